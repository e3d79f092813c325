"""Rummikub (拉密), as the rules document 003 fixes it, completed by the standard rules.

Rules
-----
- 106 tiles: 1-13 in red, blue, black, yellow (`R`, `B`, `K`, `Y`), two copies each (ids
  `R5a`, `R5b`), and two jokers (`J1`, `J2`). 2 to 4 players, 14 tiles each. Each player draws
  a tile for the first turn: the highest number starts (a joker counts 0, ties draw again);
  turns go clockwise (seat order). Later rounds start one seat further on.
- A group is 3 or 4 tiles of one number in distinct colours; a run is 3 to 13 consecutive
  numbers of one colour, read left to right, 1 low only, no wrap. A joker stands for one tile:
  in a run the number of its place; in a group the group's number in any missing colour. A meld
  that reads both ways (one numbered tile, two jokers) is read the way worth more, a group on a
  tie; a player may declare a joker (`{"J1": "R4"}`) to fix its meaning.
- A turn is a play of at least one rack tile after which every meld is valid, or a draw of one
  tile from the pool (ending the turn). Table tiles never return to a rack.
- Initial meld: new melds from one's own rack only, worth >= `initial_meld_points`, without
  touching the melds on the table. After it: build, extend, split, merge, take tiles off runs'
  ends and four-groups, swap jokers out (the freed joker must be played the same turn). The
  check is of the whole table: a table joker may move like any table tile as long as every
  meld is valid at the end, and no table tile, joker or not, ever goes back to a rack.
- With the pool empty a player passes; the round ends when a rack is emptied (that player
  wins) or when every player has passed once in a row (lowest rack value wins; a tie goes to
  the tied player first in that round's turn order).
- Scoring: each loser scores minus their rack value (joker 30); the winner scores the sum of
  (loser's rack - winner's rack) over the losers (their whole racks when the winner's is empty).
- Turn timer (`turn_timer_s`): the room applies `timeout`; the turn's changes are undone and
  the player draws `timeout_penalty_tiles` (with an empty pool a timeout counts as a pass).
  The engine has no clock: the room adds the deadline to the view it sends.

Parameters (defaults): initial_meld_points=30, rounds=1 (0 = until target_score),
target_score=0 (off), turn_timer_s=0 (off; 60 is standard), timeout_penalty_tiles=3,
tiles_per_player=14. `new(config, players, seed)` shuffles from `random.Random(seed)`;
`deck=[all 106 ids]` fixes the first round instead (seat 0 starts, seat 0 gets the first
tiles_per_player tiles, then seat 1, ...; the pool is the rest, drawn from the front).

Actions (JSON)
--------------
- `{"type": "play", "table": [["R5a", "R6a", "R7b"], ...], "jokers": {"J1": "R4"}}`: the whole
  new table, checked as a whole; ends the turn. `jokers` is optional.
- `{"type": "draw"}`: draw one tile and end the turn (undoes the turn in progress).
- `{"type": "pass"}`: only when the pool is empty.
- Steps on the table in progress (only `end_turn` checks the rules):
  `{"type": "move", "tile": "R5a", "to": 2 | "new", "pos": 0}` (from the rack or a meld; `pos`
  optional, default: in number order), `{"type": "split", "meld": 1, "at": 3}`,
  `{"type": "merge", "meld": 3, "into": 1, "pos": 0}` (`pos` optional, default the end),
  where a step without `pos` puts a run in the making in order, jokers where they fit (as
  do splits and tiles taken off a run: `run_order.py`),
  `{"type": "return", "tile": "R5a"}` (a tile laid from the rack this turn),
  `{"type": "declare", "joker": "J1", "as": "R5" | null}`, `{"type": "reset"}`,
  `{"type": "end_turn"}`. Meld indexes refer to the table before the step; melds emptied by a
  step disappear; after every step the melds keep their places (`table_order.py`).
- System actions (seat None): `{"type": "timeout"}`, `{"type": "next_round"}`.

`legal_actions(seat)` returns one template per allowed type (`end_turn` only when the table in
progress would pass). Error codes: not_your_turn, bad_action, invalid_meld,
initial_meld_below_30 (whatever the configured threshold), initial_meld_touches_table,
tile_not_on_rack, tile_not_laid_this_turn, table_tile_missing, freed_joker_not_played,
no_tile_played, pool_empty, pool_not_empty, round_over, game_over, bad_config.
"""

from app.games.engine import IllegalAction
from app.games.rummikub.engine import Phase, Rummikub
from app.games.rummikub.melds import MeldReading, is_valid_meld, meld_value, read_meld
from app.games.rummikub.play import check_play
from app.games.rummikub.tiles import ALL_TILES, rack_value

__all__ = [
    "ALL_TILES",
    "IllegalAction",
    "MeldReading",
    "Phase",
    "Rummikub",
    "check_play",
    "is_valid_meld",
    "meld_value",
    "rack_value",
    "read_meld",
]
