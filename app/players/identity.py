"""Players' identities in SQL: create, find by key, rename, link a device, sign out, forget.

Every write is one transaction on the store's database; the database's unique index on the
folded name settles two people taking one name at once.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import bindparam, delete, insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.players.errors import PlayerError
from app.players.keys import (
    hash_secret,
    new_link_code,
    new_player_id,
    new_player_key,
    split_code,
)
from app.players.names import FORGOTTEN_NAME, clean_name, name_key
from app.storage import circle_sizes
from app.storage.models import (
    LINK_CODES,
    PLAYER_KEYS,
    PLAYERS,
    RATING_CLOCK,
    RATING_TOTALS,
    RATINGS,
    SEATS,
)
from app.storage.sql_reads import utc

PERSON = "person"
BOT = "bot"
LINK_CODE_LIFE = timedelta(minutes=10)
LINK_CODE_TRIES = 5


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    kind: str
    created_at: datetime


# One player by id, built once (a profile's first statement).
PLAYER_BY_ID = select(PLAYERS).where(PLAYERS.c.id == bindparam("player"))


def player_from_row(row: object) -> Player:
    return Player(
        id=row.id,  # type: ignore[attr-defined]
        name=row.name,  # type: ignore[attr-defined]
        kind=row.kind,  # type: ignore[attr-defined]
        created_at=utc(row.created_at),  # type: ignore[attr-defined]
    )


def _name_taken(name: str) -> PlayerError:
    return PlayerError("name_taken", f"the name {name!r} is taken; choose another")


class Identities:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(self, raw_name: str) -> tuple[Player, str]:
        """A new person and their first key (returned once, never kept)."""
        name = clean_name(raw_name)
        player = Player(new_player_id(), name, PERSON, datetime.now(UTC))
        key = new_player_key()
        try:
            async with self.engine.begin() as connection:
                await connection.execute(
                    insert(PLAYERS).values(
                        id=player.id,
                        name=name,
                        name_key=name_key(name),
                        kind=PERSON,
                        created_at=player.created_at,
                    )
                )
                await _add_key(connection, player.id, key)
        except IntegrityError:
            raise _name_taken(name) from None
        return player, key

    async def by_key(self, key: str) -> Player:
        """The key's player; PlayerError bad_player_key for a key unknown, revoked or forgotten."""
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(PLAYERS)
                    .join(PLAYER_KEYS, PLAYER_KEYS.c.player_id == PLAYERS.c.id)
                    .where(PLAYER_KEYS.c.key_hash == hash_secret(key))
                )
            ).first()
        if row is None:
            raise PlayerError("bad_player_key", "this player key is unknown or was signed out")
        return player_from_row(row)

    async def get(self, player_id: str) -> Player | None:
        async with self.engine.connect() as connection:
            row = (await connection.execute(PLAYER_BY_ID, {"player": player_id})).first()
        return None if row is None else player_from_row(row)

    async def rename(self, player: Player, raw_name: str) -> Player:
        name = clean_name(raw_name)
        try:
            async with self.engine.begin() as connection:
                await connection.execute(
                    update(PLAYERS)
                    .where(PLAYERS.c.id == player.id)
                    .values(name=name, name_key=name_key(name))
                )
        except IntegrityError:
            raise _name_taken(name) from None
        return Player(player.id, name, player.kind, player.created_at)

    async def sign_out_others(self, player: Player) -> str:
        """Revoke every key of the player; the new key is the asking device's."""
        key = new_player_key()
        async with self.engine.begin() as connection:
            await connection.execute(
                delete(PLAYER_KEYS).where(PLAYER_KEYS.c.player_id == player.id)
            )
            await _add_key(connection, player.id, key)
        return key

    async def forget(self, player: Player) -> None:
        """Delete the player, keys, codes, ratings and pairs' counts, and take them out of
        others' circles; past seats keep a neutral name. A room may still seat the player: its
        later seat writes come out anonymous (app.storage.prepared's seat statements), and a
        match it ends rates them no more."""
        neutral = (
            update(SEATS)
            .where(SEATS.c.player_id == player.id)
            .values(player_id=None, name=FORGOTTEN_NAME)
        )
        async with self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # The rating clock's lock first, as a rated match end takes it
                # (app.storage.rating_writes): the ratings counted below then stay as read.
                # SQLite's writes are one at a time; its transaction starts with a write, so as
                # not to upgrade a read.
                await connection.execute(
                    select(RATING_CLOCK.c.seq).where(RATING_CLOCK.c.id == 1).with_for_update()
                )
            await connection.execute(neutral)
            modes = list(
                await connection.scalars(
                    select(RATINGS.c.mode).where(RATINGS.c.player_id == player.id)
                )
            )
            if modes:
                # Out of the circles that hold them, while their pairs still say whose.
                gone = literal(player.id, PLAYERS.c.id.type)
                await connection.execute(circle_sizes.forget_member(gone, modes))
                await connection.execute(circle_sizes.drop_empty(gone, modes))
            await connection.execute(delete(PLAYERS).where(PLAYERS.c.id == player.id))
            if modes:
                await connection.execute(
                    update(RATING_TOTALS)
                    .where(RATING_TOTALS.c.mode.in_(modes))
                    .values(players=RATING_TOTALS.c.players - 1)
                )
            # A seat written while the delete waited for that write's lock on the player.
            await connection.execute(neutral)

    async def new_link_code(self, player: Player) -> tuple[str, datetime]:
        """A one-time code for another device, and when it expires; earlier codes stop."""
        now = datetime.now(UTC)
        expires = now + LINK_CODE_LIFE
        async with self.engine.begin() as connection:
            await connection.execute(
                delete(LINK_CODES).where(
                    (LINK_CODES.c.player_id == player.id) | (LINK_CODES.c.expires_at < now)
                )
            )
        for _ in range(8):
            code = new_link_code()
            parts = split_code(code)
            assert parts is not None
            locator, secret = parts
            try:
                async with self.engine.begin() as connection:
                    await connection.execute(
                        insert(LINK_CODES).values(
                            locator=locator,
                            player_id=player.id,
                            secret_hash=hash_secret(secret),
                            created_at=now,
                            expires_at=expires,
                            failures=0,
                            used=False,
                        )
                    )
            except IntegrityError:
                continue  # that locator is in use by another live code
            return code, expires
        raise PlayerError("link_code_busy", "no link code could be made now; try again")

    async def redeem(self, typed: str) -> tuple[Player, str]:
        """The code's player and a new key for this device; the code is spent."""
        parts = split_code(typed)
        if parts is None:
            raise PlayerError("link_code_wrong", "a link code is 8 letters and digits")
        locator, secret = parts
        now = datetime.now(UTC)
        async with self.engine.begin() as connection:
            row = (
                await connection.execute(
                    select(LINK_CODES).where(LINK_CODES.c.locator == locator).with_for_update()
                )
            ).first()
            if row is None:
                raise PlayerError("link_code_wrong", "this link code is not right")
            if row.used or utc(row.expires_at) <= now:
                raise PlayerError("link_code_expired", "this link code was used or has expired")
            if row.failures >= LINK_CODE_TRIES:
                raise PlayerError("link_code_locked", "this link code was mistyped too often")
            if not hmac.compare_digest(row.secret_hash, hash_secret(secret)):
                # Counted in this transaction, which must commit: the refusal comes after it.
                await connection.execute(
                    update(LINK_CODES)
                    .where(LINK_CODES.c.locator == locator)
                    .values(failures=LINK_CODES.c.failures + 1)
                )
                wrong = LINK_CODE_TRIES - row.failures - 1
            else:
                wrong = None
                await _spend(connection, locator)
                key = new_player_key()
                await _add_key(connection, row.player_id, key)
                player = (
                    await connection.execute(select(PLAYERS).where(PLAYERS.c.id == row.player_id))
                ).one()
        if wrong is not None:
            raise PlayerError(
                "link_code_wrong", f"this link code is not right ({wrong} tries left)"
            )
        return player_from_row(player), key


async def _spend(connection: AsyncConnection, locator: str) -> None:
    await connection.execute(
        update(LINK_CODES).where(LINK_CODES.c.locator == locator).values(used=True)
    )


async def _add_key(connection: AsyncConnection, player_id: str, key: str) -> None:
    await connection.execute(
        insert(PLAYER_KEYS).values(
            key_hash=hash_secret(key), player_id=player_id, created_at=datetime.now(UTC)
        )
    )
