"""Running the server as an operator would: a separate process, found through /healthz."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_health(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with {process.returncode} during start"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer /healthz in time")


def fetch(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
        return str(answer.read().decode("utf-8"))


def scratch_environment(folder: Path, **extra: str) -> dict[str, str]:
    """This process's environment with a scratch data folder and no database URL."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env["MELDHALL_DATA_DIR"] = str(folder / "data")
    env.update(extra)
    return env


@contextmanager
def serving(
    command: Sequence[str], port: int, *, cwd: Path, env: dict[str, str], log: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """The command running until the block ends; yields once /healthz answers on `port`."""
    output = open(log, "wb") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=output)
    try:
        wait_for_health(port, process)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)
        if log is not None:
            output.close()  # type: ignore[union-attr]
