"""Real `meldhall serve` processes for the tests: start, wait until healthy, signal, stop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

MELDHALL = Path(sys.executable).parent / "meldhall"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_env(data_dir: Path, **settings: str) -> dict[str, str]:
    """The environment of a test server: this one's, with quick timings and a port of its own."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(
        MELDHALL_HOST="127.0.0.1",
        MELDHALL_PORT=str(free_port()),
        MELDHALL_DATA_DIR=str(data_dir),
        MELDHALL_BETWEEN_HANDS_S="0",
        MELDHALL_BOT_DELAY_MS="0",
        MELDHALL_RECONNECT_GRACE_S="3600",
        MELDHALL_LOG_LEVEL="warning",
    )
    env.update(settings)
    return env


def base_url(env: dict[str, str]) -> str:
    return f"http://127.0.0.1:{env['MELDHALL_PORT']}"


@dataclass
class ServerProcess:
    """One server process; its output goes to `log` (appended to across restarts)."""

    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return base_url(self.env)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, *, wait: bool = True, timeout: float = 60) -> ServerProcess:
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                [str(MELDHALL), "serve"], env=self.env, stdout=output, stderr=output
            )
        if wait:
            self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.running, f"the server exited: {self.output()[-3000:]}"
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start in time"
            time.sleep(0.1)

    def wait_exit(self, timeout: float = 60) -> int:
        assert self.process is not None
        return self.process.wait(timeout=timeout)

    def signal(self, number: int) -> None:
        assert self.process is not None
        self.process.send_signal(number)

    def kill(self) -> None:
        """SIGKILL: the process ends at once, as on a crash or a machine gone."""
        if self.running:
            self.signal(signal.SIGKILL)
            self.wait_exit(10)

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, as an orchestrator stops a server, then wait for it to end."""
        assert self.process is not None
        if self.running:
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGTERM)
        return self.wait_exit(timeout)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@contextmanager
def server(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The real server as a subprocess; yields once /healthz answers, stops it after."""
    running = ServerProcess(env, log).start()
    assert running.process is not None
    try:
        yield running.process
    finally:
        if running.running:
            running.stop(30)
