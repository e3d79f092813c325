"""Shared test plumbing: services that may be missing skip locally and fail under CI=true."""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

# Servers started by the tests (in this process or as subprocesses, which inherit this) leave
# the Rummikub solver to compile on first use, as the tests' own solves do: one compile per
# process rather than a child process per server start. tests/test_solver_warm_up.py runs a
# server with the warm-up on.
os.environ.setdefault("MELDHALL_SOLVER_WARM_UP", "false")

POSTGRES_URL = os.environ.get(
    "MELDHALL_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)


def missing_service(reason: str) -> NoReturn:
    """Skip with the reason on a developer's machine; under CI=true a missing service fails."""
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        missing_service("Chromium is not installed (apt-get install -y chromium)")
    return path
