"""Rules engines import only the standard library and app.games itself."""

import ast
import sys
from pathlib import Path

GAMES = Path(__file__).resolve().parent.parent / "app" / "games"


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue
            found.append((node.lineno, node.module or ""))
    return found


def is_allowed(module: str) -> bool:
    top = module.split(".")[0]
    in_games = module == "app.games" or module.startswith("app.games.")
    return top in sys.stdlib_module_names or in_games


def test_engines_import_only_the_standard_library_and_app_games() -> None:
    files = sorted(GAMES.rglob("*.py"))
    assert files, "no engine modules found"
    offenders = [
        f"{path.relative_to(GAMES.parent.parent)}:{line} imports {module}"
        for path in files
        for line, module in imported_modules(path)
        if not is_allowed(module)
    ]
    assert offenders == []


def test_the_purity_check_itself_rejects_outside_imports() -> None:
    assert not is_allowed("fastapi")
    assert not is_allowed("app.rooms")
    assert is_allowed("random")
    assert is_allowed("app.games.gin_rummy.melds")
