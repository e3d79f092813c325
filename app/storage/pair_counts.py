"""Per pair of rated players, what they did together (the player_pairs table), as SQL.

The counts are made from the stored seats of finished matches by one query, `pair_rows`: a
match end runs it for its own match, adding to the counts in its transaction (`count_pairs`),
and `meldhall ratings rebuild` and the migration that brought the table run it over every
finished match at once (`all_pairs`). The same query both ways, so a rebuild gives the counts the
live ends gave.

A player's seat in a match is their first seat (one person may hold two). Two rated players of
a match are opponents unless they are partners (the only sides of more than one seat are Gin
Rummy's partnerships at four, seats 0 and 2 against 1 and 3: app.games.gin_rummy.match_score),
and a duel counts only when both have a place. They shared a rated match when both were rated
by it (both have its rating event). A player no longer there (forgotten) counts with nobody.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Insert,
    Select,
    and_,
    case,
    func,
    literal_column,
    not_,
    null,
    or_,
    select,
)

from app.storage.models import MATCHES, PLAYER_PAIRS, PLAYERS, RATING_EVENTS, SEATS
from app.storage.records import FINISHED

COUNTS = (
    "shared",
    "shared_public",
    "duels",
    "wins",
    "losses",
    "duels_public",
    "wins_public",
    "losses_public",
)


def rated_id(seat: Any, game: Any) -> ColumnElement[Any]:
    """app.players.rating_math.rated_id in SQL: the seat's player, or its bot's player id
    (None: anonymous). Constants are inline, so that the expression can be grouped by."""
    bot = literal_column("'bot-'") + game + literal_column("'-'") + seat.c.level
    is_bot = and_(seat.c.kind == literal_column("'bot'"), seat.c.level.isnot(None))
    return func.coalesce(seat.c.player_id, case((is_bot, bot), else_=null()))


def _firsts(match_id: ColumnElement[Any] | None) -> Select[Any]:
    """Each rated player's first seat in each finished match (of one match, or of all)."""
    rid = rated_id(SEATS, MATCHES.c.game)
    query = (
        select(SEATS.c.match_id, rid.label("player_id"), func.min(SEATS.c.seat).label("seat"))
        .select_from(SEATS.join(MATCHES, MATCHES.c.id == SEATS.c.match_id))
        .where(MATCHES.c.status == literal_column(f"'{FINISHED}'"), rid.isnot(None))
        .group_by(SEATS.c.match_id, rid)
    )
    if match_id is not None:
        query = query.where(SEATS.c.match_id == match_id)
    return query


def pair_rows(match_id: ColumnElement[Any] | None) -> Select[Any]:
    """One row per ordered pair of rated players of each finished match, with its counts (0 or
    1 each); pairs that count nothing are left out."""
    a = _firsts(match_id).subquery("a")
    b = _firsts(match_id).subquery("b")
    seat_a, seat_b = SEATS.alias("seat_a"), SEATS.alias("seat_b")
    player_a, player_b = PLAYERS.alias("player_a"), PLAYERS.alias("player_b")
    event_a, event_b = RATING_EVENTS.alias("event_a"), RATING_EVENTS.alias("event_b")
    partners = and_(
        MATCHES.c.game == literal_column("'gin_rummy'"),
        MATCHES.c.players == literal_column("4"),
        seat_a.c.seat % literal_column("2") == seat_b.c.seat % literal_column("2"),
    )
    duel = and_(not_(partners), seat_a.c.place.isnot(None), seat_b.c.place.isnot(None))
    shared = and_(event_a.c.match_id.isnot(None), event_b.c.match_id.isnot(None))
    public = MATCHES.c.public.is_(True)

    def one(condition: ColumnElement[bool]) -> ColumnElement[int]:
        return case((condition, literal_column("1")), else_=literal_column("0"))

    won = and_(duel, seat_a.c.place < seat_b.c.place)
    lost = and_(duel, seat_a.c.place > seat_b.c.place)
    return (
        select(
            a.c.player_id.label("player_id"),
            b.c.player_id.label("other_id"),
            one(shared).label("shared"),
            one(and_(shared, public)).label("shared_public"),
            one(duel).label("duels"),
            one(won).label("wins"),
            one(lost).label("losses"),
            one(and_(duel, public)).label("duels_public"),
            one(and_(won, public)).label("wins_public"),
            one(and_(lost, public)).label("losses_public"),
        )
        .select_from(a)
        .join(b, and_(b.c.match_id == a.c.match_id, b.c.player_id != a.c.player_id))
        .join(MATCHES, MATCHES.c.id == a.c.match_id)
        .join(seat_a, and_(seat_a.c.match_id == a.c.match_id, seat_a.c.seat == a.c.seat))
        .join(seat_b, and_(seat_b.c.match_id == b.c.match_id, seat_b.c.seat == b.c.seat))
        .join(player_a, player_a.c.id == a.c.player_id)
        .join(player_b, player_b.c.id == b.c.player_id)
        .outerjoin(
            event_a,
            and_(event_a.c.match_id == a.c.match_id, event_a.c.player_id == a.c.player_id),
        )
        .outerjoin(
            event_b,
            and_(event_b.c.match_id == b.c.match_id, event_b.c.player_id == b.c.player_id),
        )
        .where(or_(duel, shared))
    )


def count_pairs(insert: Any, match_id: ColumnElement[Any]) -> Insert:
    """Add one finished match's pairs to the counts. `insert` is the dialect's insert (both
    have ON CONFLICT). Rows go in key order, so that two ends at once lock shared rows in the
    same order."""
    rows = pair_rows(match_id).subquery("pairs")
    ordered = select(rows).order_by(rows.c.player_id, rows.c.other_id)
    statement = insert(PLAYER_PAIRS).from_select(["player_id", "other_id", *COUNTS], ordered)
    added = {name: PLAYER_PAIRS.c[name] + statement.excluded[name] for name in COUNTS}
    upsert: Insert = statement.on_conflict_do_update(
        index_elements=["player_id", "other_id"], set_=added
    )
    return upsert


def all_pairs() -> Select[Any]:
    """Every finished match's pairs, summed per ordered pair: the whole table's rows."""
    rows = pair_rows(None).subquery("pairs")
    return select(
        rows.c.player_id,
        rows.c.other_id,
        *(func.sum(rows.c[name]).label(name) for name in COUNTS),
    ).group_by(rows.c.player_id, rows.c.other_id)


def hold_players(match_id: ColumnElement[Any]) -> Select[Any]:
    """The rated players of a match, locked against being forgotten until the end commits
    (FOR KEY SHARE on PostgreSQL, nothing on SQLite, whose writes are one at a time): a player
    forgotten meanwhile would break the foreign keys of its pairs and rating event."""
    rid = rated_id(SEATS, MATCHES.c.game)
    seated = (
        select(rid)
        .select_from(SEATS.join(MATCHES, MATCHES.c.id == SEATS.c.match_id))
        .where(SEATS.c.match_id == match_id)
    )
    return (
        select(PLAYERS.c.id)
        .where(PLAYERS.c.id.in_(seated))
        .order_by(PLAYERS.c.id)
        .with_for_update(read=True, key_share=True)
    )
