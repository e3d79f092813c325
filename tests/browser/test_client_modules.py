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
