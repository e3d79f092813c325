"""The self-hosting path run for real: the project's Dockerfile built and its docker-compose.yml
run, both unchanged, with podman and podman-compose on stand-ins for the public images
(deploy/podman/standins.py says why and how they stand in). tests/deploy/podman.py says what
podman-compose cannot do here and what is run in its place.

Without podman (or podman-compose) these tests skip with the reason; with CI=true they fail."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import missing_service
from tests.deploy.podman import IMAGE, STANDINS, Compose, image_id, podman, podman_missing

FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def podman_ready() -> None:
    """podman and podman-compose are there, the stand-ins are built (kept when up to date) and
    podman runs a container."""
    reason = podman_missing()
    if reason is not None:
        missing_service(reason)
    started = time.monotonic()
    built = subprocess.run(
        [sys.executable, str(STANDINS)], capture_output=True, text=True, timeout=1200, check=False
    )
    print(built.stdout, f"stand-ins ready in {time.monotonic() - started:.0f} s", sep="")
    if built.returncode == 2:
        missing_service(built.stderr.strip())
    assert built.returncode == 0, built.stdout + built.stderr
    probe = podman("run", "--rm", "--network=none", "python:3.11-slim", "true", check=False)
    if probe.returncode != 0:
        missing_service(
            f"podman cannot run a container here ({probe.stderr.strip()[-300:]}); "
            "deploy/podman/containers.conf holds the settings these machines need"
        )


@pytest.fixture(scope="session")
def image(podman_ready: None, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The project's image, built from its Dockerfile by `podman-compose build` (in Docker's
    image format, which keeps the HEALTHCHECK). Under CI=true without podman's layer cache:
    every step of the Dockerfile runs, on the stand-in base."""
    folder = tmp_path_factory.mktemp("build")
    builder = Compose("meldhall-test-build", folder, {"POSTGRES_PASSWORD": "unused"}, cluster=False)
    previous = image_id(IMAGE)
    started = time.monotonic()
    # BUILDAH_LAYERS=false: no cached step is reused and no intermediate image is kept.
    builder.run("build", "app", timeout=1500, env={"BUILDAH_LAYERS": "false"} if in_ci() else {})
    print(f"{IMAGE} built in {time.monotonic() - started:.0f} s")
    if previous is not None and previous != image_id(IMAGE):
        podman("rmi", previous, check=False)  # the build before, now untagged
    return IMAGE


@pytest.fixture
def compose_project(
    request: pytest.FixtureRequest, tmp_path: Path, image: str
) -> Iterator[Callable[..., Compose]]:
    """Makes Compose runs for the test; shows their logs if it fails, and removes all they left."""
    made: list[Compose] = []

    def make(project: str, dotenv: dict[str, str], *, cluster: bool = False) -> Compose:
        stack = Compose(project, tmp_path, dotenv, cluster=cluster)
        stack.remove_everything()  # a run killed before its clean-up
        made.append(stack)
        return stack

    yield make
    for stack in made:
        if request.node.stash.get(FAILED, False):
            print(stack.all_logs())
        stack.remove_everything()
