"""The history API over a store filled by playing real Gin Rummy and Rummikub matches."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.api.errors import install_error_handlers
from app.api.routes import history
from app.bots.rummikub.basic import BasicRummikubBot
from app.games.engine import Engine
from app.games.gin_rummy import GinRummy
from app.games.rummikub import Rummikub
from app.rooms.tokens import hash_token
from app.storage.migrate import upgrade_to_head
from app.storage.store import MatchStore, SeatRecord, open_store

Chooser = Callable[[Engine, int], dict[str, Any]]


def gin_player(seed: int) -> Chooser:
    """Knocks whenever it may, otherwise plays at random: short, varied hands."""
    rng = random.Random(seed)

    def choose(engine: Engine, seat: int) -> dict[str, Any]:
        legal = engine.legal_actions(seat)
        for kind in ("big_gin", "gin", "knock"):
            for action in legal:
                if action["type"] == kind:
                    return action
        return rng.choice(legal)

    return choose


def rummikub_player(seed: int) -> Chooser:
    bots = [BasicRummikubBot(seed + seat) for seat in range(4)]
    return lambda engine, seat: bots[seat].choose(engine.view(seat), engine.legal_actions(seat))


SYSTEM = {"gin_rummy": "next_hand", "rummikub": "next_round"}


async def record_match(
    store: MatchStore,
    match_id: str,
    engine_cls: type[Engine],
    names: list[str],
    *,
    seed: int,
    config: dict[str, Any],
    choose: Chooser,
    stop_after: int | None = None,
    room_meta: dict[str, Any] | None = None,
) -> Engine:
    """Play through the engine and log it as a room would: create, actions, hands, finish."""
    config = engine_cls.validate_config(config, len(names))
    engine = engine_cls.new(config, len(names), seed=seed)
    await store.create_match(
        match_id=match_id,
        room_id=f"room-{match_id}",
        game=engine_cls.name,
        config=config,
        seed=seed,
        players=len(names),
        seats=[
            SeatRecord(
                seat=i,
                name=name,
                kind="human",
                level=None,
                token_hash=hash_token(f"token-{match_id}-{i}"),
            )
            for i, name in enumerate(names)
        ],
        room_meta=room_meta or {"public": True, "spectators": True},
    )
    index = 0
    while not engine.is_over() and (stop_after is None or index < stop_after):
        seats = engine.to_act()
        seat = seats[0] if seats else None
        action = {"type": SYSTEM[engine.name]} if seat is None else choose(engine, seat)
        engine.apply(seat, action)
        await store.append_action(match_id=match_id, index=index, seat=seat, action=action)
        index += 1
    for hand_index, result in enumerate(engine.hand_results()):
        await store.record_hand(match_id=match_id, hand_index=hand_index, result=result)
    if engine.is_over():
        result = engine.result()
        assert result is not None
        scores = result.get("scores") or [
            next(s["total"] for s in result["sides"] if seat in s["seats"])
            for seat in range(len(names))
        ]
        await store.finish_match(
            match_id=match_id, status="finished", result=result, final_scores=scores
        )
    return engine


@pytest.fixture
async def store() -> AsyncIterator[MatchStore]:
    opened = open_store("memory://")
    await opened.start()
    yield opened
    await opened.close()


def history_app(store: MatchStore) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(history.router)
    app.state.store = store
    return app


def http_client(store: MatchStore) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=history_app(store))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


@pytest.fixture
async def client(store: MatchStore) -> AsyncIterator[httpx.AsyncClient]:
    async with http_client(store) as http:
        yield http


@pytest.fixture
async def played(store: MatchStore) -> dict[str, Engine]:
    """Two finished Gin matches, a finished Rummikub game and a Gin match still running."""
    return {
        "gin1": await record_match(
            store, "gin1", GinRummy, ["ann", "bob"], seed=5, config={"target": 40},
            choose=gin_player(3),
        ),
        "gin2": await record_match(
            store, "gin2", GinRummy, ["bob", "cy"], seed=8, config={"target": 30},
            choose=gin_player(4),
        ),
        "rk1": await record_match(
            store, "rk1", Rummikub, ["ann", "cy", "dee"], seed=5, config={"rounds": 1},
            choose=rummikub_player(1),
        ),
        "live": await record_match(
            store, "live", GinRummy, ["ann", "eve"], seed=11, config={}, choose=gin_player(5),
            stop_after=9,
        ),
    }  # fmt: skip


def winners_of(engine: Engine) -> list[int]:
    result = engine.result()
    assert result is not None
    return sorted(result["winners"])


async def test_matches_are_listed_newest_first_with_seats_and_winners(
    client: httpx.AsyncClient, played: dict[str, Engine]
) -> None:
    page = (await client.get("/api/matches")).json()
    assert page["total"] == 4
    assert [m["match_id"] for m in page["items"]] == ["live", "rk1", "gin2", "gin1"]
    gin1 = page["items"][3]
    assert [s["name"] for s in gin1["seats"]] == ["ann", "bob"]
    assert gin1["status"] == "finished"
    assert gin1["winners"] == winners_of(played["gin1"])
    assert page["items"][0]["winners"] == []
    assert "token_hash" not in gin1["seats"][0]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("game=gin_rummy", ["live", "gin2", "gin1"]),
        ("game=rummikub", ["rk1"]),
        ("player=ann", ["live", "rk1", "gin1"]),
        ("player=cy&game=gin_rummy", ["gin2"]),
        ("status=active", ["live"]),
        ("status=finished&player=bob", ["gin2", "gin1"]),
        ("player=zed", []),
        ("limit=2", ["live", "rk1"]),
        ("limit=2&offset=2", ["gin2", "gin1"]),
        ("offset=10", []),
    ],
)
async def test_matches_filter_and_page(
    client: httpx.AsyncClient, played: dict[str, Engine], query: str, expected: list[str]
) -> None:
    page = (await client.get(f"/api/matches?{query}")).json()
    assert [m["match_id"] for m in page["items"]] == expected


async def test_the_total_counts_every_page(
    client: httpx.AsyncClient, played: dict[str, Engine]
) -> None:
    page = (await client.get("/api/matches?game=gin_rummy&limit=1&offset=1")).json()
    assert (page["total"], page["limit"], page["offset"]) == (3, 1, 1)


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("limit=0", 422, "bad_request"),
        ("limit=101", 422, "bad_request"),
        ("offset=-1", 422, "bad_request"),
        ("status=won", 422, "bad_request"),
        ("game=chess", 400, "unknown_game"),
    ],
)
async def test_bad_list_queries_are_refused_with_a_clear_error(
    client: httpx.AsyncClient, query: str, status: int, code: str
) -> None:
    answer = await client.get(f"/api/matches?{query}")
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code
    assert answer.json()["error"]["message"]


async def test_a_finished_match_detail_has_every_hand_final_scores_and_seed(
    client: httpx.AsyncClient, played: dict[str, Engine]
) -> None:
    engine = played["gin1"]
    detail = (await client.get("/api/matches/gin1")).json()
    assert [h["result"] for h in detail["hands"]] == engine.hand_results()
    assert [h["hand_index"] for h in detail["hands"]] == list(range(len(engine.hand_results())))
    assert detail["result"] == engine.result()
    totals = engine.result()["totals"]  # type: ignore[index]
    assert [s["final_score"] for s in detail["seats"]] == totals
    assert (detail["seed"], detail["config"]["target"]) == (5, 40)
    assert detail["action_count"] > 0


async def test_a_running_match_detail_keeps_the_seed_secret(
    client: httpx.AsyncClient, played: dict[str, Engine]
) -> None:
    detail = (await client.get("/api/matches/live")).json()
    assert (detail["status"], detail["seed"], detail["action_count"]) == ("active", None, 9)
    assert detail["result"] is None


async def test_an_unknown_match_is_not_found(client: httpx.AsyncClient) -> None:
    for path in ("/api/matches/nope", "/api/matches/nope/replay"):
        answer = await client.get(path)
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "match_not_found"


@pytest.mark.parametrize("match_id", ["gin1", "rk1"])
async def test_a_finished_replay_ends_in_the_final_views_with_every_hand_revealed(
    client: httpx.AsyncClient, played: dict[str, Engine], match_id: str
) -> None:
    engine = played[match_id]
    replay = (await client.get(f"/api/matches/{match_id}/replay")).json()
    steps = replay["steps"]
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert steps[-1]["view"] == engine.view(None)
    assert steps[-1]["seat_views"] == [
        engine.view(seat) for seat in range(engine.view(None)["players"])
    ]
    assert replay["hand_results"] == engine.hand_results()
    assert replay["match"]["winners"] == winners_of(engine)
    first = type(engine).new(engine.view(None)["config"], len(steps[0]["seat_views"]), seed=5)
    assert replay["initial_view"] == first.view(None)


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values()), set(value))
    if isinstance(value, list):
        return set().union(set(), *(strings_in(v) for v in value))
    return set()


async def test_a_running_replay_shows_only_what_a_spectator_may_see(
    client: httpx.AsyncClient, played: dict[str, Engine]
) -> None:
    engine = played["live"]
    replay = (await client.get("/api/matches/live/replay")).json()
    assert len(replay["steps"]) == 9
    assert replay["steps"][-1]["view"] == engine.view(None)
    assert all(step["seat_views"] is None for step in replay["steps"])
    assert (replay["initial_seat_views"], replay["hand_results"]) == (None, [])
    hidden = engine.hidden_from(None)
    assert hidden
    assert not strings_in(replay) & hidden


async def test_a_running_match_in_a_room_closed_to_spectators_has_no_replay(
    client: httpx.AsyncClient, store: MatchStore
) -> None:
    await record_match(
        store, "closed", GinRummy, ["ann", "bob"], seed=1, config={}, choose=gin_player(1),
        stop_after=3, room_meta={"public": False, "spectators": False},
    )  # fmt: skip
    # Its invite link lets one in to the history; a running match still has no replay.
    answer = await client.get("/api/matches/closed/replay", params={"room": "room-closed"})
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "spectators_not_allowed"


async def test_a_private_rooms_matches_are_history_only_to_its_players_and_invitees(
    client: httpx.AsyncClient, store: MatchStore
) -> None:
    await record_match(
        store, "open", GinRummy, ["ann", "bob"], seed=5, config={"target": 40},
        choose=gin_player(3),
    )  # fmt: skip
    await record_match(
        store, "secret", GinRummy, ["cy", "dee"], seed=8, config={"target": 30},
        choose=gin_player(4), room_meta={"public": False, "spectators": True},
    )  # fmt: skip
    paths = ("/api/matches/secret", "/api/matches/secret/replay")

    async def listed(**kwargs: Any) -> set[str]:
        page = (await client.get("/api/matches", **kwargs)).json()
        return {item["match_id"] for item in page["items"]}

    # A stranger sees the public match only, and the private one does not exist for them.
    assert await listed() == {"open"}
    assert await listed(params={"player": "cy"}) == set()
    for path in paths:
        answer = await client.get(path)
        assert (answer.status_code, answer.json()["error"]["code"]) == (404, "match_not_found")
    stats = (await client.get("/api/players/cy/stats")).json()
    assert stats["matches_played"] == 0
    # Another room's invite link or another match's seat token opens nothing.
    assert await listed(params={"room": "room-open"}) == {"open"}
    other_token = {"Authorization": "Bearer not-a-seat-of-it"}
    assert await listed(headers=other_token) == {"open"}
    # A seat of the match (its token) and a holder of the room's invite link read it all.
    seat_token = {"Authorization": "Bearer token-secret-0"}
    for access in ({"headers": seat_token}, {"params": {"room": "room-secret"}}):
        assert await listed(**access) == {"open", "secret"}
        for path in paths:
            assert (await client.get(path, **access)).status_code == 200, (path, access)


def gin_counts(engines: list[tuple[Engine, int]]) -> dict[str, Any]:
    """What the statistics should say, counted straight from the engines' hand records."""
    knocks, gins, undercuts, deadwood = 0, 0, 0, []
    for engine, seat in engines:
        for hand in engine.hand_results():
            if hand["ending"] == "undercut" and hand["winner"] == seat:
                undercuts += 1
            if hand["knocker"] != seat:
                continue
            knocks += 1
            gins += hand["ending"] == "gin"
            deadwood += [p["deadwood_points"] for p in hand["players"] if p["seat"] == seat]
    average = round(sum(deadwood) / len(deadwood), 2) if deadwood else None
    return {"knocks": knocks, "gins": gins, "undercuts": undercuts, "average": average}


async def test_player_stats_count_matches_hands_and_rounds(
    client: httpx.AsyncClient, played: dict[str, Engine]
) -> None:
    stats = (await client.get("/api/players/bob/stats")).json()
    gin1, gin2, rk1 = played["gin1"], played["gin2"], played["rk1"]
    assert stats["matches_played"] == 2
    assert stats["matches_won"] == (0 in winners_of(gin2)) + (1 in winners_of(gin1))
    assert stats["matches_by_game"] == {"gin_rummy": 2}
    expected = gin_counts([(gin1, 1), (gin2, 0)])
    gin = stats["gin_rummy"]
    assert (gin["knocks"], gin["gins"], gin["undercuts"]) == (
        expected["knocks"],
        expected["gins"],
        expected["undercuts"],
    )
    assert gin["average_deadwood_at_knock"] == expected["average"]
    assert gin["hands_played"] == len(gin1.hand_results()) + len(gin2.hand_results())

    cy = (await client.get("/api/players/cy/stats")).json()
    rounds_won = sum(1 for r in rk1.hand_results() if r["winner"] == 1)
    assert cy["rummikub"] == {"rounds_played": 1, "rounds_won": rounds_won}
    assert cy["matches_by_game"] == {"gin_rummy": 1, "rummikub": 1}


async def test_a_player_without_matches_has_zero_stats(client: httpx.AsyncClient) -> None:
    stats = (await client.get("/api/players/nobody/stats")).json()
    assert (stats["matches_played"], stats["matches_won"]) == (0, 0)
    assert stats["gin_rummy"]["average_deadwood_at_knock"] is None


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        times = {"created_at", "finished_at", "at"}
        return {k: without_times(v) for k, v in value.items() if k not in times}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


async def test_history_from_sqlite_reads_exactly_like_history_from_memory(
    client: httpx.AsyncClient, store: MatchStore, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'history.db'}"
    await upgrade_to_head(url)
    sqlite = open_store(url)
    await sqlite.start()
    try:
        for target in (store, sqlite):
            await record_match(
                target,
                "gin1",
                GinRummy,
                ["ann", "bob"],
                seed=5,
                config={"target": 40},
                choose=gin_player(3),
            )
            await record_match(
                target, "live", GinRummy, ["ann", "eve"], seed=11, config={},
                choose=gin_player(5), stop_after=9,
            )  # fmt: skip
        paths = [
            "/api/matches",
            "/api/matches?player=eve",
            "/api/matches/gin1",
            "/api/matches/live",
            "/api/matches/gin1/replay",
            "/api/matches/live/replay",
            "/api/players/ann/stats",
        ]
        async with http_client(sqlite) as from_sqlite:
            for path in paths:
                expected = (await client.get(path)).json()
                answer = await from_sqlite.get(path)
                assert answer.status_code == 200, path
                assert without_times(answer.json()) == without_times(expected), path
    finally:
        await sqlite.close()
