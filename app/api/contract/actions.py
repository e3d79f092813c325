"""Every action of both games, as a seat sends it (REST `/actions`, socket `action`).

The rooms apply the system actions (`next_hand`, `next_round`, `timeout`) themselves, with seat
null; a client never sends them, but they appear in the action log of a replay.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, RootModel

from app.api.contract.notation import Card, Face, Joker, Tile, Wire

MeldIndex = Annotated[int, Field(ge=0, description="A meld's index on the table before the step")]


# -- Gin Rummy -----------------------------------------------------------------------------


class TakeUpcard(Wire):
    """First turn of a hand: take the upcard (then discard)."""

    type: Literal["take_upcard"]


class GinPass(Wire):
    """First turn of a hand: leave the upcard; after both pass, the first player draws."""

    type: Literal["pass"]


class GinDraw(Wire):
    """Draw the stock's top card or the discard pile's."""

    type: Literal["draw"]
    source: Literal["stock", "discard"]


class Discard(Wire):
    """End the turn by discarding a card (not the one just taken from the discard pile)."""

    type: Literal["discard"]
    card: Card


class Knock(Wire):
    """Discard `card` face down and lay out the rest; deadwood within the knock limit.

    Without `melds` the server lays out the rest with the least deadwood.
    """

    type: Literal["knock"]
    card: Card
    melds: list[list[Card]] | None = Field(
        default=None, description="The knocker's melds; omitted or null: the server's layout"
    )


class Gin(Wire):
    """Knock with no deadwood left (scored as gin)."""

    type: Literal["gin"]
    card: Card
    melds: list[list[Card]] | None = None


class BigGin(Wire):
    """All 11 cards melded after drawing: no discard."""

    type: Literal["big_gin"]


class LayOffCard(Wire):
    card: Card
    meld: int = Field(ge=0, description="Index into the knocker's melds (the table's `knock`)")


class LayOff(Wire):
    """The defender's answer to a knock (phase lay_off): the cards laid off onto the
    knocker's melds; the rest laid out with the least deadwood.

    Without `layoffs` the server lays off the defender's best; `[]` lays off nothing.
    """

    type: Literal["lay_off"]
    layoffs: list[LayOffCard] | None = Field(
        default=None, description="Omitted or null: the defender's best lay-offs"
    )


class NextHand(Wire):
    """System action (seat null): deal the next hand."""

    type: Literal["next_hand"]


GinRummyActionUnion = Annotated[
    TakeUpcard | GinPass | GinDraw | Discard | Knock | Gin | BigGin | LayOff | NextHand,
    Field(discriminator="type"),
]


class GinRummyAction(RootModel[GinRummyActionUnion]):
    """A Gin Rummy action."""


# -- Rummikub ------------------------------------------------------------------------------


class Play(Wire):
    """The whole table after the turn, checked as a whole; ends the turn."""

    type: Literal["play"]
    table: list[list[Tile]] = Field(description="Every meld on the table after the play")
    jokers: dict[Joker, Face] = Field(
        default_factory=dict, description="What a joker stands for where a meld reads two ways"
    )


class RummikubDraw(Wire):
    """Draw one tile from the pool and end the turn (undoes the turn in progress)."""

    type: Literal["draw"]


class RummikubPass(Wire):
    """End the turn without playing; only when the pool is empty."""

    type: Literal["pass"]


class Move(Wire):
    """Step: move a tile from the rack or a meld to meld `to` or a new meld."""

    type: Literal["move"]
    tile: Tile
    to: MeldIndex | Literal["new"]
    pos: int | None = Field(
        default=None, ge=0, description="Place in the target meld; omitted: in number order"
    )


class Split(Wire):
    """Step: cut meld `meld` before its tile at `at`; the right part follows it."""

    type: Literal["split"]
    meld: MeldIndex
    at: int = Field(ge=1)


class Merge(Wire):
    """Step: put meld `meld`'s tiles into meld `into` at `pos` (omitted: the end)."""

    type: Literal["merge"]
    meld: MeldIndex
    into: MeldIndex
    pos: int | None = Field(default=None, ge=0)


class Return(Wire):
    """Step: take a tile laid from the rack this turn back to the rack."""

    type: Literal["return"]
    tile: Tile


class Declare(Wire):
    """Step: fix what a joker on the table stands for (null clears it)."""

    type: Literal["declare"]
    joker: Joker
    as_: Face | None = Field(default=None, alias="as")


class Reset(Wire):
    """Step: undo the turn in progress."""

    type: Literal["reset"]


class EndTurn(Wire):
    """Commit the turn in progress (the table built by steps), checked as a play."""

    type: Literal["end_turn"]


class Timeout(Wire):
    """System action (seat null): the turn timer ran out; the turn is undone, penalty drawn."""

    type: Literal["timeout"]


class NextRound(Wire):
    """System action (seat null): deal the next round."""

    type: Literal["next_round"]


RummikubActionUnion = Annotated[
    Play
    | RummikubDraw
    | RummikubPass
    | Move
    | Split
    | Merge
    | Return
    | Declare
    | Reset
    | EndTurn
    | Timeout
    | NextRound,
    Field(discriminator="type"),
]


class RummikubAction(RootModel[RummikubActionUnion]):
    """A Rummikub action."""


class Action(RootModel[GinRummyAction | RummikubAction]):
    """An action of either game (the room's game decides which)."""


GIN_RUMMY_ACTIONS = (TakeUpcard, GinPass, GinDraw, Discard, Knock, Gin, BigGin, LayOff, NextHand)
RUMMIKUB_ACTIONS = (
    Play, RummikubDraw, RummikubPass, Move, Split, Merge, Return, Declare, Reset, EndTurn,
    Timeout, NextRound,
)  # fmt: skip
