"""Rummikub bots that play the exact solver's answer as one whole-turn `play` action.

- hard: the solver's best play over the whole table (rearranging as it likes), except that
  it keeps a joker on its rack when the play without it still lays something, the rack is
  not emptied and no opponent is close to going out: a joker is worth 30 against you at the
  end but is the most useful tile to hold.
- normal: plays like a person who sees only part of the table: each turn it looks at about a
  fifth of the table's melds, chosen at random, and plays the solver's best answer with those
  (or the baseline bot's play when that lays more tiles), leaving the rest as they are; no
  jokers held back. bench/bench_rummikub_bots.py measures each level against the one below
  at 2, 3 and 4 players (figures in docs/performance.md).
Before the initial meld both play the best melds worth the threshold, or draw.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Literal

from app.bots.rummikub.basic import BasicRummikubBot
from app.bots.rummikub.solver import Solution, solve
from app.games.rummikub import IllegalAction, check_play
from app.games.rummikub.play import carry_declarations

View = dict[str, Any]
Action = dict[str, Any]
Level = Literal["normal", "hard"]

# A rack this small on another seat may go out on its next turn, so nothing is held back.
DANGER_RACK_SIZE = 4
# A room waits for a bot; past this the solver answers with the best play found so far.
SOLVE_TIME_LIMIT_S = 2.0
# The share of the table's melds the normal bot considers rearranging on a turn.
NORMAL_SEES = 0.2


def _more_tiles(ours: Action | None, baseline: Action, view: View) -> Action | None:
    """Whichever play lays more tiles (ours on a tie); None if neither is a play."""
    if baseline.get("type") != "play":
        return ours
    before = sum(len(meld["tiles"]) for meld in view["table"])

    def laid(play: Action | None) -> int:
        return -1 if play is None else sum(len(meld) for meld in play["table"]) - before

    return baseline if laid(baseline) > laid(ours) else ours


def _rack_before_turn(view: View) -> list[str]:
    """The rack as the turn began: a `play` replaces any steps already taken this turn."""
    laid = (view.get("tentative") or {}).get("laid") or []
    return [*view["rack"], *(tile for tile in laid if tile not in view["rack"])]


class SolverRummikubBot:
    """Plays the exact solver's answer (hard) or the best rack-only melds (normal)."""

    def __init__(
        self,
        seed: int = 0,
        level: Level = "hard",
        hold_back: bool = True,
        time_limit_s: float = SOLVE_TIME_LIMIT_S,
    ) -> None:
        if level not in ("normal", "hard"):
            raise ValueError(f"level must be 'normal' or 'hard', got {level!r}")
        self._random = random.Random(seed)
        self.level = level
        self.hold_back = hold_back
        self.time_limit_s = time_limit_s
        self._baseline = BasicRummikubBot(seed)

    def choose(self, view: View, legal: list[Action]) -> Action:
        kinds = {action["type"] for action in legal}
        if "play" in kinds and view.get("rack"):
            play = self._play(view)
            if self.level == "normal":
                play = _more_tiles(play, self._baseline.choose(view, legal), view)
            if play is not None:
                return play
        for kind in ("draw", "pass", "next_round", "timeout"):
            if kind in kinds:
                return {"type": kind}
        return dict(self._random.choice(legal))

    def best_play(self, view: View) -> Solution:
        """The play this bot would make from `view` (its table may equal the current one)."""
        rack = _rack_before_turn(view)
        table = [list(meld["tiles"]) for meld in view["table"]]
        melded: bool = view["seats"][view["seat"]]["initial_meld_done"]
        need: int = view["config"]["initial_meld_points"]
        if not melded:
            return solve(
                table,
                rack,
                initial_meld_done=False,
                initial_meld_minimum=need,
                time_limit_s=self.time_limit_s,
            )
        if self.level == "normal":
            return self._partial_sight(table, rack)
        best = solve(table, rack, initial_meld_done=True, time_limit_s=self.time_limit_s)
        if self.hold_back and self._should_hold_jokers(view, best, rack):
            spare = [tile for tile in rack if not tile.startswith("J")]
            held = solve(table, spare, initial_meld_done=True, time_limit_s=self.time_limit_s)
            if held.placed:
                return held
        return best

    def _partial_sight(self, table: list[list[str]], rack: list[str]) -> Solution:
        """The best play that touches only the melds it happens to look at."""
        seen = [self._random.random() < NORMAL_SEES for _ in table]
        unseen = [meld for meld, looked in zip(table, seen, strict=True) if not looked]
        found = solve(
            [meld for meld, looked in zip(table, seen, strict=True) if looked],
            rack,
            initial_meld_done=True,
            time_limit_s=self.time_limit_s,
        )
        return replace(found, table=[*found.table, *unseen], kept=found.kept + len(unseen))

    def _should_hold_jokers(self, view: View, best: Solution, rack: list[str]) -> bool:
        jokers_laid = any(tile.startswith("J") for tile in best.placed)
        if not jokers_laid or len(best.placed) == len(rack) or view.get("pool_size", 0) == 0:
            return False
        others = [s["rack_size"] for s in view["seats"] if s["seat"] != view["seat"]]
        return min(others, default=99) > DANGER_RACK_SIZE

    def _play(self, view: View) -> Action | None:
        solution = self.best_play(view)
        if not solution.placed:
            return None
        before = [list(meld["tiles"]) for meld in view["table"]]
        declared = {j: f for meld in view["table"] for j, f in meld.get("declared", {}).items()}
        jokers = carry_declarations(before, solution.table, declared, {})
        melded: bool = view["seats"][view["seat"]]["initial_meld_done"]
        try:
            check_play(
                before,
                solution.table,
                _rack_before_turn(view),
                melded,
                initial_meld_points=view["config"]["initial_meld_points"],
                jokers=jokers,
            )
        except IllegalAction:
            return None  # a defect in the solver must never cost the seat its turn
        return {"type": "play", "table": solution.table, "jokers": jokers}
