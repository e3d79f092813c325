"""What a seat (or a spectator) sees of a Rummikub match: `game` in its state document."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.api.contract.notation import Face, Joker, SeatNumber, Tile, Wire

Reason = Literal["empty_rack", "pool_exhausted"]


class RummikubConfig(Wire):
    """The match's options, defaults filled in (see GET /api/games)."""

    initial_meld_points: int
    rounds: int
    target_score: int
    turn_timer_s: int
    timeout_penalty_tiles: int
    tiles_per_player: int


class Meld(Wire):
    """A meld as shown: its tiles, how it reads, and why it is not valid."""

    tiles: list[Tile]
    kind: Literal["group", "run"] | None = Field(description="null while it is not a meld")
    value: int
    jokers: dict[Joker, list[Face]] = Field(description="Each joker's possible faces")
    declared: dict[Joker, Face] = Field(description="Jokers whose face was declared")
    valid: bool
    reason: str | None


class Problem(Wire):
    code: str
    message: str


class Tentative(Wire):
    """The turn in progress, built by steps; every viewer sees it as it is built."""

    table: list[Meld] = Field(description="The whole table as the steps left it")
    laid: list[Tile] = Field(description="Tiles laid from the rack this turn")
    initial_points: int = Field(description="Before the initial meld: the new melds' value")
    ready: bool = Field(description="end_turn would be accepted")
    problem: Problem | None = Field(description="Why end_turn would be refused")


class Turn(Wire):
    seat: SeatNumber
    number: int
    timer_s: int


class RummikubSeat(Wire):
    seat: SeatNumber
    rack_size: int
    initial_meld_done: bool
    score: int


class RoundSummary(Wire):
    round: int
    winner: SeatNumber
    reason: Reason
    points: list[int]
    totals: list[int]


class LastRound(RoundSummary):
    """The round just over, with every rack laid open."""

    rack_values: list[int]
    racks: list[list[Tile]]


class RummikubResult(Wire):
    scores: list[int]
    winner: SeatNumber | None = Field(description="null on a tie: see winners")
    winners: list[SeatNumber]
    rounds: int


class RummikubView(Wire):
    """The engine's view for one seat (or null for a spectator)."""

    game: Literal["rummikub"]
    phase: Literal["playing", "round_over", "match_over"]
    seat: SeatNumber | None
    players: int
    config: RummikubConfig
    round: int
    to_act: list[SeatNumber]
    turn: Turn | None
    rack: list[Tile] | None = Field(description="One's own rack; null for spectators")
    seats: list[RummikubSeat]
    pool_size: int
    passes_in_row: int
    first_draw: list[list[Face | Literal["J"]]] = Field(
        description="Faces each seat drew for the first turn (ties drew again); J a joker"
    )
    table: list[Meld] = Field(description="The committed table")
    tentative: Tentative | None
    scores: list[int]
    rounds: list[RoundSummary]
    last_round: LastRound | None = Field(description="Between rounds and at the end")
    result: RummikubResult | None
