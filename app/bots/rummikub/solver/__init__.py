"""The exact Rummikub move solver: its one door.

`solve(table, rack, ...)` returns the play that places the most rack tiles, then the most
points, then keeps the most old melds whole; hints and the strong bots call it, and servers
start `warm_up_in_background` so that no move waits for the compiler. Everything else in this
package is the solver's own: the dynamic program (`_dp`, `_groups`, `_replay`), the search that
drives it (`_rearrange`), its linear relaxation (`_bound`) and the penalties the program adds up
from it (`_penalties`), the integer program (`_solve`), the exact cover that seeds it (`_cover`)
and the meld catalogue they share (`_melds`).
"""

from app.bots.rummikub.solver._solve import (
    POINT_WEIGHT,
    TILE_WEIGHT,
    Solution,
    SolverError,
    program_state,
    solve,
    warm_up,
    warm_up_in_background,
)

__all__ = [
    "POINT_WEIGHT",
    "TILE_WEIGHT",
    "Solution",
    "SolverError",
    "program_state",
    "solve",
    "warm_up",
    "warm_up_in_background",
]
