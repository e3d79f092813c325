"""The client's pure modules, run in Chromium: the JSON Patch applier, the meld readers, and
the language tables."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tests.browser.flows import CHINESE_TERMS

STATIC = Path(__file__).resolve().parents[2] / "static"


@pytest.fixture(scope="module")
def module_page(browser, static_url):  # type: ignore[no-untyped-def]
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{static_url}/css/base.css")
    yield page
    context.close()


def run_patch(page, doc, patch):  # type: ignore[no-untyped-def]
    return page.evaluate(
        """async ([doc, patch]) => {
            const m = await import('/js/json_patch.js');
            const before = JSON.stringify(doc);
            try {
                const result = m.applyPatch(doc, patch);
                return {ok: true, result, untouched: JSON.stringify(doc) === before};
            } catch (e) {
                return {ok: false, error: e.name, untouched: JSON.stringify(doc) === before};
            }
        }""",
        [doc, patch],
    )


# RFC 6902 appendix A, plus the edges the server's differ produces.
GOOD_CASES = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"foo": "bar", "baz": "qux"}),
    (
        {"foo": ["bar", "baz"]},
        [{"op": "add", "path": "/foo/1", "value": "qux"}],
        {"foo": ["bar", "qux", "baz"]},
    ),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    (
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        {"foo": ["bar"]},
        [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
        {"foo": ["bar", ["abc", "def"]]},
    ),
    ({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}], None),
    (
        {"/": 9, "~1": 10},
        [{"op": "test", "path": "/~01", "value": 10}, {"op": "replace", "path": "/~1", "value": 1}],
        {"/": 1, "~1": 10},
    ),
    (
        {"a": {"b": [1, 2]}},
        [{"op": "copy", "from": "/a/b", "path": "/c"}],
        {"a": {"b": [1, 2]}, "c": [1, 2]},
    ),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    (
        {"hand": ["H1", "S2", "D3"]},
        [{"op": "remove", "path": "/hand/2"}, {"op": "remove", "path": "/hand/1"}],
        {"hand": ["H1"]},
    ),
    ({"a": [{"b": None}]}, [{"op": "test", "path": "/a/0/b", "value": None}], {"a": [{"b": None}]}),
]

BAD_CASES = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}]),
    ({"foo": "bar"}, [{"op": "remove", "path": "/nothing"}]),
    ({"foo": [1, 2]}, [{"op": "add", "path": "/foo/3", "value": 3}]),
    ({"foo": [1, 2]}, [{"op": "replace", "path": "/foo/01", "value": 3}]),
    ({"foo": [1, 2]}, [{"op": "replace", "path": "/foo/-", "value": 3}]),
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}]),
    ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/c"}]),
    ({"a": 1}, [{"op": "jump", "path": "/a"}]),
    # All or nothing: the first op would succeed, the second fails.
    ({"a": 1}, [{"op": "replace", "path": "/a", "value": 2}, {"op": "remove", "path": "/zz"}]),
]


@pytest.mark.parametrize(("doc", "patch", "expected"), GOOD_CASES)
def test_patch_applies_like_rfc_6902(module_page, doc, patch, expected) -> None:  # type: ignore[no-untyped-def]
    outcome = run_patch(module_page, doc, patch)
    assert outcome["ok"], outcome
    if expected is None:
        expected = {**doc, "child": {"grandchild": {}}}
    assert outcome["result"] == expected
    assert outcome["untouched"]


@pytest.mark.parametrize(("doc", "patch"), BAD_CASES)
def test_bad_patch_is_refused_and_changes_nothing(module_page, doc, patch) -> None:  # type: ignore[no-untyped-def]
    outcome = run_patch(module_page, doc, patch)
    assert outcome == {"ok": False, "error": "PatchError", "untouched": True}


def test_store_asks_for_a_resync_on_a_version_gap(module_page) -> None:  # type: ignore[no-untyped-def]
    outcome = module_page.evaluate(
        """async () => {
            const {Store} = await import('/js/store.js');
            const store = new Store();
            const seen = [];
            store.subscribe((state, version) => seen.push(version));
            store.applySnapshot(3, {n: 1});
            const follows = store.applyPatch(3, 4, [{op: 'replace', path: '/n', value: 2}]);
            const gap = store.applyPatch(5, 6, [{op: 'replace', path: '/n', value: 9}]);
            const broken = store.applyPatch(4, 5, [{op: 'remove', path: '/missing'}]);
            return {follows, gap, broken, state: store.state, version: store.version, seen};
        }"""
    )
    assert outcome == {
        "follows": True,
        "gap": False,
        "broken": False,
        "state": {"n": 2},
        "version": 4,
        "seen": [3, 4],
    }


def js_string_keys() -> set[str]:
    keys: set[str] = set()
    for path in STATIC.rglob("*.js"):
        if "lang" in path.parts:
            continue
        keys.update(re.findall(r"""\bt\(\s*["']([a-z_]+\.[A-Za-z0-9_.]+)["']""", path.read_text()))
    return keys


def load_table(page, name: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return page.evaluate("async (name) => (await import(`/js/lang/${name}.js`)).default", name)


def test_both_languages_have_the_same_keys_and_every_used_key(module_page) -> None:  # type: ignore[no-untyped-def]
    english = load_table(module_page, "en")
    chinese = load_table(module_page, "zh-CN")
    assert sorted(set(english) ^ set(chinese)) == []
    assert sorted(js_string_keys() - set(english)) == []
    assert all(value.strip() for value in [*english.values(), *chinese.values()])


def test_chinese_table_uses_the_rule_documents_terms(module_page) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(load_table(module_page, "zh-CN"), ensure_ascii=False)
    for term in CHINESE_TERMS:
        assert term in text, term


def test_client_gin_deadwood_agrees_with_the_engine(module_page) -> None:  # type: ignore[no-untyped-def]
    from app.games.gin_rummy.melds import min_deadwood

    rng = random.Random(6)
    deck = [f"{suit}{rank}" for suit in "SHDC" for rank in range(1, 14)]
    hands = [rng.sample(deck, rng.choice([10, 11])) for _ in range(300)]
    hands += [["H1", "H2", "H3", "S1", "D1", "C1", "H4", "S4", "D4", "C4"]]
    points = module_page.evaluate(
        """async (hands) => {
            const m = await import('/js/rules/gin_melds.js');
            return hands.map((hand) => m.bestArrangement(hand).points);
        }""",
        hands,
    )
    assert points == [min_deadwood(hand) for hand in hands]


def test_client_meld_reading_agrees_with_the_engine(module_page) -> None:  # type: ignore[no-untyped-def]
    from app.games.rummikub.melds import read_meld
    from app.games.rummikub.tiles import ALL_TILES

    rng = random.Random(7)
    melds = [rng.sample(ALL_TILES, rng.randint(1, 6)) for _ in range(200)]
    for _ in range(200):
        colour, start = rng.choice("RBKY"), rng.randint(1, 11)
        run = [f"{colour}{n}a" for n in range(start, start + rng.randint(3, 5)) if n <= 13]
        run[rng.randrange(len(run))] = "J1"
        melds.append(run)
        number = rng.randint(1, 13)
        group = [f"{c}{number}b" for c in rng.sample("RBKY", rng.randint(2, 4))] + ["J2"]
        melds.append(rng.sample(group, len(group)))
    readings = module_page.evaluate(
        """async (melds) => {
            const m = await import('/js/rules/rummikub_melds.js');
            return melds.map((meld) => {
                const r = m.readMeld(meld);
                return [r.kind, r.value];
            });
        }""",
        melds,
    )
    expected = [[read_meld(meld).kind, read_meld(meld).value] for meld in melds]
    assert readings == expected


def test_client_run_order_agrees_with_the_engine(module_page) -> None:  # type: ignore[no-untyped-def]
    from app.games.rummikub.run_order import in_run_order
    from app.games.rummikub.tiles import ALL_TILES

    rng = random.Random(5)
    melds = []
    for _ in range(400):
        colour = rng.choice("RBKY")
        numbers = rng.sample(range(1, 14), rng.randint(1, 6))
        meld = [f"{colour}{n}{rng.choice('ab')}" for n in numbers]
        for joker in ("J1", "J2")[: rng.randint(0, 2)]:
            meld.insert(rng.randint(0, len(meld)), joker)
        melds.append(meld)
    melds += [rng.sample(ALL_TILES, rng.randint(2, 5)) for _ in range(100)]
    orders = module_page.evaluate(
        """async (melds) => {
            const m = await import('/js/rules/rummikub_melds.js');
            return melds.map((meld) => m.runOrder(meld));
        }""",
        melds,
    )
    assert orders == [in_run_order(meld) for meld in melds]


def test_a_melds_refusal_names_its_real_reason(module_page) -> None:  # type: ignore[no-untyped-def]
    reasons = module_page.evaluate(
        """async () => {
            const {setLanguage} = await import('/js/i18n.js');
            const {whyInvalid} = await import('/js/views/rummikub_meld.js');
            const server = 'joker declared as B9 stands for B4 in this run';
            const melds = [
                {tiles: ['R3a', 'R5a', 'R6a']},
                {tiles: ['R2a', 'J1', 'R3a']},
                {tiles: ['J1', 'B5a', 'B6a'], declared: {J1: 'B9'}, reason: server},
                {tiles: ['R5a', 'J1']},
            ];
            const read = () => melds.map((meld) => whyInvalid(meld));
            setLanguage('en');
            const english = read();
            setLanguage('zh-CN');
            const chinese = read();
            setLanguage('en');
            return [english, chinese];
        }"""
    )
    assert reasons == [
        [
            "the run has a gap",
            "no number is missing between red 2 and red 3: put the joker at an end",
            "a joker is set to a tile that does not fit here",
            "needs at least 3 tiles",
        ],
        [
            "顺的数字不连续",
            "红色2 和 红色3 之间没有缺少的数字：请把百搭牌放到顺的一端",
            "百搭牌指定的牌放在这里不合适",
            "至少需要 3 枚牌",
        ],
    ]


def test_every_server_error_code_has_words_in_both_languages(module_page) -> None:  # type: ignore[no-untyped-def]
    from app.api.error_codes import ERROR_CODES

    for name in ("en", "zh-CN"):
        table = load_table(module_page, name)
        missing = sorted(code for code in ERROR_CODES if f"error.{code}" not in table)
        assert missing == [], f"{name}.js has no words for {missing}"


def moves(page, before, after):  # type: ignore[no-untyped-def]
    return page.evaluate(
        """async ([before, after]) => {
            const m = await import('/js/move_log.js');
            return m.movesBetween(before, after);
        }""",
        [before, after],
    )


def gin_view(**table):  # type: ignore[no-untyped-def]
    base = {
        "hand": 1,
        "turn": 1,
        "phase": "draw",
        "stock_count": 31,
        "discard_pile": ["H5"],
        "players": [{"seat": 0, "card_count": 10}, {"seat": 1, "card_count": 10}],
        "outcome": None,
    }
    return {"game": "gin_rummy", "hand_number": 1, "tables": [{**base, **table}]}


def test_gin_moves_are_read_from_two_documents(module_page) -> None:  # type: ignore[no-untyped-def]
    eleven = [{"seat": 0, "card_count": 10}, {"seat": 1, "card_count": 11}]
    drawn = gin_view(stock_count=30, phase="discard", players=eleven)
    assert moves(module_page, gin_view(), drawn) == [
        {"seat": 1, "action": {"type": "draw", "source": "stock"}}
    ]
    took = gin_view(discard_pile=[], phase="discard", players=eleven)
    assert moves(module_page, gin_view(), took) == [
        {"seat": 1, "action": {"type": "draw", "source": "discard"}, "card": "H5"}
    ]
    discarded = gin_view(discard_pile=["H5", "C9"], turn=0)
    assert moves(module_page, drawn, discarded) == [
        {"seat": 1, "action": {"type": "discard", "card": "C9"}, "card": "C9"}
    ]
    passed = gin_view(phase="upcard_offer", turn=0)
    assert moves(module_page, gin_view(phase="upcard_offer"), passed) == [
        {"seat": 1, "action": {"type": "pass"}}
    ]
    knocked = gin_view(phase="over", turn=None, outcome={"ending": "undercut", "knocker": 1})
    assert moves(module_page, drawn, knocked) == [{"seat": 1, "action": {"type": "knock"}}]
    # A knock the defender answers: the knock, then what it laid off.
    waiting = gin_view(phase="lay_off", turn=0, knock={"seat": 1})
    assert moves(module_page, drawn, waiting) == [{"seat": 1, "action": {"type": "knock"}}]
    layoffs = [{"card": "H4", "meld": 0}]
    players = [{"seat": 0, "layoffs": layoffs}, {"seat": 1, "layoffs": []}]
    answered = gin_view(phase="over", turn=None, outcome={"knocker": 1, "players": players})
    assert moves(module_page, waiting, answered) == [
        {"seat": 0, "action": {"type": "lay_off", "layoffs": layoffs}}
    ]
    dealt = {**gin_view(), "hand_number": 2}
    assert moves(module_page, gin_view(), dealt) == [
        {"seat": None, "action": {"type": "next_hand"}, "hand": 2}
    ]
    assert moves(module_page, gin_view(), gin_view()) == []
    # A document that changed elsewhere (a player's connection) is no move, even on the offer.
    offer = gin_view(phase="upcard_offer")
    assert moves(module_page, offer, gin_view(phase="upcard_offer")) == []


def rummikub_view(table, racks, turn):  # type: ignore[no-untyped-def]
    return {
        "game": "rummikub",
        "round": 1,
        "turn": turn,
        "table": [{"tiles": tiles} for tiles in table],
        "seats": [{"seat": seat, "rack_size": size} for seat, size in enumerate(racks)],
    }


def test_a_rummikub_turn_is_read_when_it_ends(module_page) -> None:  # type: ignore[no-untyped-def]
    start = rummikub_view([["R1a", "R2a", "R3a"]], [14, 14], {"seat": 1, "number": 4})
    during = {**start, "tentative": {"table": [["R1a"]]}}
    assert moves(module_page, start, during) == []
    laid = rummikub_view(
        [["R1a", "R2a", "R3a", "R4b"], ["K9a", "B9b", "Y9a"]], [14, 10], {"seat": 0, "number": 5}
    )
    assert moves(module_page, start, laid) == [
        {
            "seat": 1,
            "action": {"type": "laid", "tiles": ["R4b", "K9a", "B9b", "Y9a"]},
            "tiles": ["R4b", "K9a", "B9b", "Y9a"],
            "moved": [],
        }
    ]
    # R3 taken off the run into a new group: R3 moved, the run R1 R2 lost a tile (moved too).
    rearranged = rummikub_view(
        [["R1a", "R2a", "J1"], ["R3a", "B3a", "K3a"]], [14, 11], {"seat": 0, "number": 5}
    )
    assert moves(module_page, start, rearranged) == [
        {
            "seat": 1,
            "action": {"type": "laid", "tiles": ["J1", "B3a", "K3a"]},
            "tiles": ["J1", "B3a", "K3a"],
            "moved": ["R1a", "R2a", "R3a"],
        }
    ]
    drew = rummikub_view([["R1a", "R2a", "R3a"]], [14, 15], {"seat": 0, "number": 5})
    assert moves(module_page, start, drew) == [{"seat": 1, "action": {"type": "draw"}}]
    penalty = rummikub_view([["R1a", "R2a", "R3a"]], [14, 17], {"seat": 0, "number": 5})
    assert moves(module_page, start, penalty) == [{"seat": 1, "action": {"type": "draw", "n": 3}}]
    passed = rummikub_view([["R1a", "R2a", "R3a"]], [14, 14], {"seat": 0, "number": 5})
    assert moves(module_page, start, passed) == [{"seat": 1, "action": {"type": "pass"}}]


def test_the_move_log_words_moves_as_the_replay_does(module_page) -> None:  # type: ignore[no-untyped-def]
    words = module_page.evaluate(
        """async () => {
            const {actionText} = await import('/js/action_text.js');
            const {setLanguage} = await import('/js/i18n.js');
            const say = () => [
                actionText('gin_rummy', {type: 'discard', card: 'H7'}),
                actionText('gin_rummy', {type: 'knock'}),
                actionText('rummikub', {type: 'laid', tiles: ['R5a', 'J1']}),
                actionText('rummikub', {type: 'draw', n: 3}),
                actionText('rummikub', {type: 'laid', tiles: ['K6b']}),
                actionText('gin_rummy', {type: 'lay_off', layoffs: [{card: 'H4', meld: 0}]}),
                actionText('gin_rummy', {type: 'lay_off', layoffs: []}),
            ];
            setLanguage('en');
            const english = say();
            setLanguage('zh-CN');
            const chinese = say();
            setLanguage('en');
            return {english, chinese};
        }"""
    )
    assert words["english"] == [
        "discards the 7 of hearts",
        "knocks",
        "lays 2 tiles: red 5, joker",
        "draws 3 tiles",
        "lays a tile: black 6",
        "lays off the 4 of hearts",
        "lays off nothing",
    ]
    assert words["chinese"] == [
        "弃掉红心7",
        "敲牌",
        "出了 2 枚牌：红色5、百搭牌",
        "抽了 3 枚牌",
        "出了 1 枚牌：黑色6",
        "搭接了红心4",
        "没有搭接",
    ]


def test_the_chinese_tables_say_ju_for_a_hand_and_use_the_tables_words(module_page) -> None:  # type: ignore[no-untyped-def]
    chinese = load_table(module_page, "zh-CN")
    rules = module_page.evaluate("async () => (await import('/js/lang/rules.js')).default['zh-CN']")
    text = json.dumps([chinese, rules], ensure_ascii=False)
    # A hand of Gin Rummy is a 局; 手 stays only in 手牌, 手中 (the cards held), 先手 and 对手.
    leftover = re.sub("手牌|手中|先手|对手|手动", "", text)
    assert "手" not in leftover
    # The replay's words are the table's: 弃掉, 牌库, 抽, 新组合 (not 打出, 牌堆, 摸, 新牌组).
    for stiff in ("打出{card}", "(?<!弃)牌堆", "摸", "新牌组"):
        assert not re.search(stiff, text), stiff
    assert "破冰" in text


def test_tile_colours_read_at_4_5_to_1_on_the_tile(module_page) -> None:  # type: ignore[no-untyped-def]
    ratios = module_page.evaluate(
        """async () => {
            for (const sheet of ['base', 'tiles']) {
                const link = document.createElement('link');
                link.rel = 'stylesheet';
                link.href = `/css/${sheet}.css`;
                document.head.append(link);
                await new Promise((done) => link.addEventListener('load', done));
            }
            const {tileElement} = await import('/js/views/tiles.js');
            const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
            const luminance = ([r, g, b]) => {
                const lin = (c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
                return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
            };
            const ratio = (a, b) => {
                const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
                return (hi + 0.05) / (lo + 0.05);
            };
            const out = {};
            const cases = [['R5a', false], ['B5a', false], ['K5a', false], ['Y5a', false],
                           ['Y5a', true], ['R5a', true]];
            for (const [tile, fresh] of cases) {
                const element = tileElement(tile, {fresh});
                document.body.append(element);
                const style = getComputedStyle(element);
                const stops = style.backgroundImage.match(/rgba?\\([^)]*\\)/g).map(rgb);
                const ink = rgb(style.color);
                const worst = Math.min(...stops.map((stop) => ratio(ink, stop)));
                out[`${tile}${fresh ? ' fresh' : ''}`] = worst;
                element.remove();
            }
            return out;
        }"""
    )
    low = {tile: round(value, 2) for tile, value in ratios.items() if value < 4.5}
    assert low == {}, ratios


def test_a_drag_held_at_the_windows_edge_scrolls_to_a_far_target(browser, static_url) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 800, "height": 600})
    page = context.new_page()
    try:
        page.goto(f"{static_url}/css/base.css")
        page.evaluate(
            """async () => {
                document.body.innerHTML = `<div id="root">
                  <div data-drop="far" style="height: 80px; background: #ccc">far</div>
                  <div style="height: 3000px"></div>
                  <button data-drag="piece" id="piece" style="width: 80px">piece</button>
                </div>`;
                const {enableDrag} = await import('/js/views/drag.js');
                window.dropped = null;
                enableDrag(document.getElementById('root'), (source, target) => {
                    window.dropped = [source.dataset.drag, target.dataset.drop];
                });
                document.getElementById('piece').scrollIntoView({block: 'end'});
            }"""
        )
        start = page.locator("#piece").bounding_box()
        x, y = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(1, 11):
            page.mouse.move(x, y - (y - 4) * step / 10)
        # Held at the top edge, the page scrolls up by itself until the far target shows.
        page.wait_for_function("window.scrollY === 0")
        page.mouse.move(x, 40)
        page.mouse.up()
        assert page.evaluate("window.dropped") == ["piece", "far"]
    finally:
        context.close()


def chart(page, points, box):  # type: ignore[no-untyped-def]
    return page.evaluate(
        """async ([points, box]) =>
            (await import('/js/chart_scale.js')).ratingChart(points, box)""",
        [points, box],
    )


BOX = {"width": 600, "height": 220, "left": 48, "right": 16, "top": 26, "bottom": 30}


def test_rating_ticks_are_round_and_cover_the_ratings(module_page) -> None:  # type: ignore[no-untyped-def]
    ticks = module_page.evaluate(
        "async () => (await import('/js/chart_scale.js')).roundTicks(1487, 1612)"
    )
    assert ticks == [1450, 1500, 1550, 1600, 1650]
    step = module_page.evaluate("async () => (await import('/js/chart_scale.js')).niceStep(0.3, 4)")
    assert step == pytest.approx(0.1)


def test_the_chart_puts_the_oldest_match_left_and_the_highest_rating_up(module_page) -> None:  # type: ignore[no-untyped-def]
    points = [
        {"at": "2026-03-01T10:00:00Z", "rating": 1520},
        {"at": "2026-03-02T10:00:00Z", "rating": 1490},
        {"at": "2026-03-05T10:00:00Z", "rating": 1580},
    ]
    laid = chart(module_page, points, BOX)
    xs = [p["x"] for p in laid["positions"]]
    ys = [p["y"] for p in laid["positions"]]
    assert xs[0] == BOX["left"]
    assert xs[-1] == BOX["width"] - BOX["right"]
    assert xs[0] < xs[1] < xs[2]
    # One day of four lies a quarter of the way across.
    assert xs[1] - xs[0] == pytest.approx((xs[2] - xs[0]) / 4, abs=0.2)
    assert ys[2] < ys[0] < ys[1]
    assert laid["path"].count("L") == 2
    assert laid["path"].startswith(f"M{xs[0]} {ys[0]}")
    ticks = [t["value"] for t in laid["ratingTicks"]]
    assert ticks[0] <= 1490
    assert ticks[-1] >= 1580
    tick_ys = [t["y"] for t in laid["ratingTicks"]]
    assert tick_ys[0] == BOX["height"] - BOX["bottom"]
    assert tick_ys[-1] == BOX["top"]
    assert laid["timeUnit"] == "day"


def test_one_match_is_one_point_in_the_middle(module_page) -> None:  # type: ignore[no-untyped-def]
    laid = chart(module_page, [{"at": "2026-03-01T10:00:00Z", "rating": 1500}], BOX)
    (point,) = laid["positions"]
    assert point["x"] == (BOX["left"] + BOX["width"] - BOX["right"]) / 2
    assert laid["path"] == f"M{point['x']} {point['y']}"
    assert BOX["top"] < point["y"] < BOX["height"] - BOX["bottom"]
    assert laid["timeUnit"] == "time"
