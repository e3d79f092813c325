"""The `meldhall` command applies the migrations on its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MELDHALL = Path(sys.executable).parent / "meldhall"


def test_meldhall_migrate_creates_the_sqlite_database_in_the_data_folder(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env["MELDHALL_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [str(MELDHALL), "migrate"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "migrations applied" in done.stdout
    assert (tmp_path / "data" / "meldhall.db").stat().st_size > 0
