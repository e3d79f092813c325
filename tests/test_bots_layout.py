"""How the rest of the server reaches the bots: through the registry, the hints and the
solver's one door, never through a bot's or the solver's own parts."""

from pathlib import Path

from tests.test_engine_purity import imported_modules

APP = Path(__file__).resolve().parent.parent / "app"
BOTS = APP / "bots"
SOLVER = BOTS / "rummikub" / "solver"
# What the rooms, the API and the app may import of app.bots.
DOORS = {"app.bots.base", "app.bots.registry", "app.bots.hints", "app.bots.rummikub.solver"}


def imports_of(files: list[Path]) -> list[tuple[str, str]]:
    return [
        (f"{path.relative_to(APP.parent)}:{line}", module)
        for path in files
        for line, module in imported_modules(path)
    ]


def test_outside_the_bots_only_their_doors_are_imported() -> None:
    outside = [path for path in sorted(APP.rglob("*.py")) if BOTS not in path.parents]
    offenders = [
        (where, module)
        for where, module in imports_of(outside)
        if module.startswith("app.bots") and module not in DOORS
    ]
    assert offenders == []


def test_the_solver_parts_are_reached_only_through_its_package() -> None:
    users = [path for path in sorted(APP.rglob("*.py")) if SOLVER not in path.parents]
    offenders = [
        (where, module)
        for where, module in imports_of(users)
        if module.startswith("app.bots.rummikub.solver.")
    ]
    assert offenders == []


def test_each_games_bots_keep_to_their_game() -> None:
    for game, other in (("gin_rummy", "rummikub"), ("rummikub", "gin_rummy")):
        files = sorted((BOTS / game).rglob("*.py"))
        assert files, game
        offenders = [
            (where, module)
            for where, module in imports_of(files)
            if module.startswith((f"app.bots.{other}", f"app.games.{other}"))
        ]
        assert offenders == [], game
