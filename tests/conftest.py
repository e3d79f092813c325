"""Shared test plumbing: services that may be missing skip locally and fail under CI=true."""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

# Servers started by the tests (in this process or as subprocesses, which inherit this) skip
# the background warm-up: the session compiles the Rummikub solver once (below) and they load
# it from numba's cache on first use. tests/test_solver_warm_up.py runs a server with it on.
os.environ.setdefault("MELDHALL_SOLVER_WARM_UP", "false")


def pytest_sessionstart(session: pytest.Session) -> None:
    # On a fresh checkout numba's cache is cold and the first solve compiles for 20-60 s; done
    # inside a test, that stalls a live server's event loop past the test's timeouts. Compile
    # (or load, under a second) once here, as `meldhall serve` does at start; servers started
    # as subprocesses then load the program from the cache this fills.
    from app.bots.rummikub.solver import warm_up

    warm_up()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for the workers (`-n auto --dist loadgroup`): a file's tests run on one worker,
    so that module fixtures (a live server, a fuzzed table) start once; the cluster tests, each
    of which starts three servers, Redis and a balancer, take turns on one worker, so that two
    clusters never share the machine's cores and their leases keep time; and so do the podman
    tests of tests/deploy/, which share one image build."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(worker_group(item)))
    # The cluster tests, the longest run on one worker, go first (a stable sort), so they do
    # not end the run alone while the other workers idle.
    items.sort(key=lambda item: worker_group(item) != "cluster")


def worker_group(item: pytest.Item) -> str:
    path = item.path.relative_to(item.config.rootpath).as_posix()
    if path.startswith("tests/deploy/"):
        # One image build and podman's containers: all on one worker, one after another.
        return "deploy"
    return "cluster" if path.startswith("tests/cluster/") else path


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
