"""What a seat (or a spectator) sees of a Gin Rummy match: `game` in its state document."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.api.contract.notation import Card, SeatNumber, Wire

Ending = Literal["knock", "gin", "big_gin", "undercut", "draw"]


class GinRummyConfig(Wire):
    """The match's options, defaults filled in (see GET /api/games)."""

    knock_limit: int
    gin_bonus: int
    big_gin_bonus: int
    undercut_bonus: int
    target: int
    game_bonus: int
    line_bonus: int
    shutout: Literal["double", "plus_100", "none"]
    oklahoma: bool
    lay_offs: Literal["choose", "auto"]


class Layoff(Wire):
    card: Card
    meld: int = Field(description="Index into the knocker's melds")


class HandPlayer(Wire):
    """One player's cards as laid out when the hand ended."""

    seat: SeatNumber
    melds: list[list[Card]]
    deadwood: list[Card]
    deadwood_points: int
    layoffs: list[Layoff] = Field(description="The defender's cards laid off; empty otherwise")


class HandRecord(Wire):
    """How a hand ended and what it scored (`points` go to `winner`)."""

    hand: int
    table: int
    dealer: SeatNumber
    seats: list[SeatNumber]
    knock_limit: int
    ending: Ending
    knocker: SeatNumber | None
    winner: SeatNumber | None
    loser: SeatNumber | None
    deadwood_difference: int
    bonus: int
    points: int
    players: list[HandPlayer] = Field(description="Both players laid out; empty for a draw")


class HandSummary(Wire):
    """One finished hand in `history`."""

    hand: int
    table: int
    dealer: SeatNumber
    ending: Ending
    knocker: SeatNumber | None
    winner: SeatNumber | None
    points: int


class LaidOut(Wire):
    """The knocker's cards as laid out, while the defender chooses what to lay off."""

    seat: SeatNumber = Field(description="The knocker")
    melds: list[list[Card]] = Field(description="Lay-offs name these by index")
    deadwood: list[Card]
    deadwood_points: int


class TablePlayer(Wire):
    seat: SeatNumber
    card_count: int
    taken_from_discard: list[Card] = Field(description="Cards seen taken and still held")
    cards: list[Card] | None = Field(
        description="Every card once a knock lays both hands open (the knocker's alone while "
        "the defender chooses its lay-offs); null before (one's own too: they are in `me`)"
    )


class GinTable(Wire):
    """One table's hand, the same in every view."""

    table: int
    hand: int
    dealer: SeatNumber
    seats: list[SeatNumber] = Field(description="[first player, second player]")
    phase: Literal["upcard_offer", "draw", "discard", "lay_off", "over"]
    turn: SeatNumber | None
    stock_count: int
    discard_pile: list[Card] = Field(description="Bottom first; the last card is the top")
    knock_limit: int
    players: list[TablePlayer]
    knock: LaidOut | None = Field(
        description="In phase lay_off (the defender to act): the knocker's layout; else null"
    )
    outcome: HandRecord | None


class Arrangement(Wire):
    melds: list[list[Card]]
    deadwood: list[Card]
    deadwood_points: int


class GinMe(Wire):
    """The viewing seat's own hand; null for spectators and a seat sitting the hand out."""

    seat: SeatNumber
    table: int
    hand: list[Card]
    arrangement: Arrangement = Field(description="The best melding of the hand")
    knock_deadwood: int | None = Field(
        description="Holding 11 cards: the lowest deadwood any allowed knock card leaves"
    )
    taken_this_turn: Card | None = Field(
        description="On one's own turn, the card taken from the discard pile"
    )


class SideResult(Wire):
    side: int
    seats: list[SeatNumber]
    hand_points: int
    hands_won: int
    game_bonus: int
    shutout_bonus: int
    line_bonus: int
    total: int


class GinRummyResult(Wire):
    sides: list[SideResult]
    totals: list[int]
    scores: list[int] = Field(description="Each seat's side total")
    reached_target: int
    shutout: bool
    winner_side: int | None
    winners: list[SeatNumber]


class GinRummyView(Wire):
    """The engine's view for one seat (or null for a spectator)."""

    game: Literal["gin_rummy"]
    seat: SeatNumber | None
    players: int
    phase: Literal["playing", "hand_over", "match_over"]
    hand_number: int
    to_act: list[SeatNumber] = Field(description="Two seats while two tables play (4 players)")
    config: GinRummyConfig
    sides: list[list[SeatNumber]]
    scores: list[int] = Field(description="Hand points per seat")
    side_scores: list[int]
    hands_won: list[int]
    history: list[HandSummary]
    result: GinRummyResult | None
    tables: list[GinTable]
    me: GinMe | None
