"""How many players of each mode a player's circle holds (the circle_sizes table), as SQL.

A player's circle in a mode is the player and every other player they shared a rated match
with (app.storage.pair_counts: `shared`, or `shared_public` for anyone but the player) who is
rated in the mode. A leaderboard narrowed to a circle reads its total here by key instead of
joining the player's pairs, tens of thousands for the busiest players, to their ratings.

`members` counts the others over every match, `members_public` over public rooms' matches; the
player themself is added at read time when rated in the mode. Both change only when a pair's
count becomes positive or a pair's other player is rated in a mode for the first time, which
happens only in a rated match's end, and when a player is forgotten: both take the rating
clock's lock first (app.storage.rating_writes), so the counts change one transaction at a time.

- A rated end runs `count_newcomers` after its rating writes (for its players rated in the mode
  for the first time, over the pairs met before) and `count_new_pairs` before its pairs are
  counted (for its pairs whose counts become positive, over every mode of the other player,
  this one included).
- Forgetting a player runs `forget_member` before the player's pairs and ratings go.
- `meldhall ratings rebuild` and the migration that brought the table fill it with
  `all_circles`, which a test holds to what the live ends keep.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Delete,
    Insert,
    Select,
    Update,
    and_,
    bindparam,
    case,
    delete,
    func,
    literal_column,
    select,
    update,
)

from app.storage.models import CIRCLE_SIZES, PLAYER_PAIRS, RATINGS
from app.storage.pair_counts import pair_rows

COLUMNS = ["player_id", "mode", "members", "members_public"]

# The most players one match rates for the first time in its mode (four seats).
NEWCOMERS = 4


# Constants inline: the statements are compiled once (app.storage.prepared) and bound by name.
ZERO: ColumnElement[Any] = literal_column("0")


def _one(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return case((condition, literal_column("1")), else_=literal_column("0"))


def _added(insert: Any, rows: Select[Any]) -> Insert:
    """The rows' counts added to the stored ones (a new row takes them as they are). `insert` is
    the dialect's insert; the rows come in key order, so that writers lock rows in one order."""
    statement = insert(CIRCLE_SIZES).from_select(COLUMNS, rows)
    upsert: Insert = statement.on_conflict_do_update(
        index_elements=["player_id", "mode"],
        set_={
            "members": CIRCLE_SIZES.c.members + statement.excluded.members,
            "members_public": CIRCLE_SIZES.c.members_public + statement.excluded.members_public,
        },
    )
    return upsert


def all_circles() -> Select[Any]:
    """Every player's counts per mode, from the pairs and the ratings as they stand."""
    pairs = PLAYER_PAIRS.c
    return (
        select(
            pairs.player_id,
            RATINGS.c.mode,
            func.count().label("members"),
            func.sum(_one(pairs.shared_public > ZERO)).label("members_public"),
        )
        .select_from(PLAYER_PAIRS.join(RATINGS, RATINGS.c.player_id == pairs.other_id))
        .where(pairs.shared > ZERO)
        .group_by(pairs.player_id, RATINGS.c.mode)
    )


def count_newcomers(insert: Any) -> Insert:
    """Players rated in mode `p_mode` for the first time ("p_newcomer_0" to "_3", null when
    unused) added to the circles of those who shared a match with them before: run after the
    ratings are written and before the match's pairs are counted, which `count_new_pairs`
    covers. Found through the index of the pairs by their other player."""
    pairs = PLAYER_PAIRS.c
    newcomers = [bindparam(f"p_newcomer_{n}", type_=pairs.other_id.type) for n in range(NEWCOMERS)]
    mode = bindparam("p_mode", type_=RATINGS.c.mode.type)
    rows = (
        select(
            pairs.player_id,
            mode,
            func.count().label("members"),
            func.sum(_one(pairs.shared_public > ZERO)).label("members_public"),
        )
        .where(pairs.other_id.in_(newcomers), pairs.shared > ZERO)
        .group_by(pairs.player_id)
        .order_by(pairs.player_id)
    )
    return _added(insert, rows)


def count_new_pairs(insert: Any, match_id: ColumnElement[Any]) -> Insert:
    """A finished match's pairs whose counts become positive with it, each added to its
    player's circle in every mode its other player is rated in (after the match's ratings are
    written, so this one too): run before `count_pairs` adds the match to the stored pairs."""
    match = pair_rows(match_id).subquery("match")
    stored = PLAYER_PAIRS.alias("stored")
    new = and_(match.c.shared > ZERO, func.coalesce(stored.c.shared, ZERO) == ZERO)
    new_public = and_(
        match.c.shared_public > ZERO, func.coalesce(stored.c.shared_public, ZERO) == ZERO
    )
    rows = (
        select(
            match.c.player_id,
            RATINGS.c.mode,
            func.sum(_one(new)).label("members"),
            func.sum(_one(new_public)).label("members_public"),
        )
        .select_from(match)
        .outerjoin(
            stored,
            and_(stored.c.player_id == match.c.player_id, stored.c.other_id == match.c.other_id),
        )
        .join(RATINGS, RATINGS.c.player_id == match.c.other_id)
        .where(new_public | new)
        .group_by(match.c.player_id, RATINGS.c.mode)
        .order_by(match.c.player_id, RATINGS.c.mode)
    )
    return _added(insert, rows)


def _met(player: ColumnElement[Any]) -> Select[Any]:
    """The players who shared a rated match with `player` (whose circles hold them)."""
    pairs = PLAYER_PAIRS.c
    return select(pairs.player_id).where(pairs.other_id == player, pairs.shared > ZERO)


def forget_member(player: ColumnElement[Any], modes: list[str]) -> Update:
    """The player (rated in `modes`) taken out of the circles that hold them; run before the
    player's pairs go. A circle's row left counting nobody is deleted by `drop_empty`."""
    pairs = PLAYER_PAIRS.c
    pair = and_(pairs.player_id == CIRCLE_SIZES.c.player_id, pairs.other_id == player)
    shared = select(_one(pairs.shared > ZERO)).where(pair).scalar_subquery()
    shared_public = select(_one(pairs.shared_public > ZERO)).where(pair).scalar_subquery()
    return (
        update(CIRCLE_SIZES)
        .where(CIRCLE_SIZES.c.mode.in_(modes), CIRCLE_SIZES.c.player_id.in_(_met(player)))
        .values(
            members=CIRCLE_SIZES.c.members - shared,
            members_public=CIRCLE_SIZES.c.members_public - shared_public,
        )
    )


def drop_empty(player: ColumnElement[Any], modes: list[str]) -> Delete:
    """The rows `forget_member` left at zero: a row stands for a circle with others in it, as
    a rebuild makes them."""
    return delete(CIRCLE_SIZES).where(
        CIRCLE_SIZES.c.mode.in_(modes),
        CIRCLE_SIZES.c.player_id.in_(_met(player)),
        CIRCLE_SIZES.c.members == ZERO,
    )


def circle_total(circle_of: str, mode: str, public: bool) -> Select[Any]:
    """A circle's total: its others (over public rooms' matches with `public`), and the player
    when rated in the mode; two lookups by key."""
    counted = CIRCLE_SIZES.c.members_public if public else CIRCLE_SIZES.c.members
    others = (
        select(counted)
        .where(CIRCLE_SIZES.c.player_id == circle_of, CIRCLE_SIZES.c.mode == mode)
        .scalar_subquery()
    )
    own = (
        select(func.count())
        .select_from(RATINGS)
        .where(RATINGS.c.player_id == circle_of, RATINGS.c.mode == mode)
        .scalar_subquery()
    )
    return select(func.coalesce(others, ZERO) + own)
