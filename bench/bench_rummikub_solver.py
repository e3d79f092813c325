"""Time the exact Rummikub solver on seeded mid-game states, in CPU time.

The states (`rummikub_states.mixed_states`): two fifths are positions of seeded games
between bots, the rest in equal shares large racks (20-30 tiles), both jokers on the table,
tables of long runs, and the class of state the solver was once slow on (about 54 table
tiles, both jokers on the table, a 24-tile rack that can all be laid). Prints the time to
compile (or load from numba's cache) the solver's dynamic program, kept apart from the
solves, then per kind and over all states the median, 90th percentile and max solve time in
CPU time of the solving thread (the machine is shared: wall-clock time would measure the
others' load), how many answers are proven optimal, and the load average.

    python bench/bench_rummikub_solver.py [--states 1000] [--seed 1] [--time-limit S]
        [--initial] [--count]

`--initial` times the initial meld instead (the integer program), on the same racks with
no table. `--count` also counts the states the dynamic program holds per solve (every
pass, those cut short by their budget too), a figure the load does not change. Figures:
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from rummikub_states import mixed_states

from app.bots.rummikub.solver import solve, warm_up


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    return (
        f"median {statistics.median(ordered):6.2f}  p90 {ordered[int(0.9 * len(ordered))]:6.2f}"
        f"  max {ordered[-1]:7.2f}"
    )


def states_figures(counts: list[int]) -> str:
    ordered = sorted(counts)
    return (
        f"total {sum(ordered):>10,}  median {int(statistics.median(ordered)):>7,}"
        f"  p90 {ordered[int(0.9 * len(ordered))]:>7,}  max {ordered[-1]:>7,}"
    )


def count_program_states() -> Callable[[], int]:
    """Count the states of every pass of the program from now on; returns the running total.
    (A bench may reach into the solver's parts: it measures them.)"""
    from app.bots.rummikub.solver import _dp

    held = [0]
    search = _dp._typed_search

    def counted(*args: Any) -> Any:
        found, best, actions, levels, workspace, cut = search(*args)
        held[0] += int(levels.max())
        return found, best, actions, levels, workspace, cut

    _dp._typed_search = counted
    return lambda: held[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--states", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per solve")
    parser.add_argument("--initial", action="store_true", help="before the initial meld")
    parser.add_argument("--count", action="store_true", help="count the program's states")
    args = parser.parse_args()
    states = mixed_states(args.states, args.seed)
    start = time.perf_counter()
    warm_up()
    print(f"warm-up (compile or load the compiled program): {time.perf_counter() - start:.2f} s")
    by_kind: dict[str, list[float]] = defaultdict(list)
    held: dict[str, list[int]] = defaultdict(list)
    counter = count_program_states() if args.count else None
    proven = 0
    for kind, (table, rack) in states:
        before = counter() if counter else 0
        if args.initial:
            table = []
        started = time.thread_time()
        solution = solve(
            table, rack, initial_meld_done=not args.initial, time_limit_s=args.time_limit
        )
        by_kind[kind].append((time.thread_time() - started) * 1000)
        if counter:
            held[kind].append(counter() - before)
        proven += solution.optimal
    print(f"solve CPU ms over {len(states)} states (time limit {args.time_limit} s):")
    for kind, times in by_kind.items():
        print(f"  {kind:16s} {len(times):4d} states  {figures(times)}")
    every = [t for times in by_kind.values() for t in times]
    print(f"  {'all':16s} {len(every):4d} states  {figures(every)}")
    if counter:
        print("program states per solve:")
        for kind, counts in held.items():
            print(f"  {kind:16s} {len(counts):4d} states  {states_figures(counts)}")
        every_count = [n for counts in held.values() for n in counts]
        print(f"  {'all':16s} {len(every_count):4d} states  {states_figures(every_count)}")
    print(f"proven optimal: {proven}/{len(states)}")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
