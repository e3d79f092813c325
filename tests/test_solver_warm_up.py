"""`meldhall serve` compiles the Rummikub solver's program in a child process after it starts,
logs when the program is ready, and shuts down cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from tests.test_docker_files import free_port

VENV_BIN = Path(sys.executable).parent
# A cold compile took ~35 s on a loaded 2-core host; the suite's own solves usually left
# numba's cache warm, and then it is a second or two.
READY_WITHIN_S = 300


def test_the_server_serves_while_the_solver_warms_up_and_says_when_it_is_ready(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "MELDHALL_SOLVER_WARM_UP": "true",
        "MELDHALL_DATA_DIR": str(tmp_path / "data"),
        "MELDHALL_PORT": str(port),
        "MELDHALL_LOG_LEVEL": "info",
    }
    server = subprocess.Popen(
        [str(VENV_BIN / "meldhall"), "serve"], env=env, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            lines.append(line)
            if "dynamic program ready" in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + READY_WITHIN_S
        while time.monotonic() < deadline and not ready.is_set():
            assert server.poll() is None, "".join(lines)
            time.sleep(0.2)
        assert ready.is_set(), "".join(lines)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            assert r.status == 200
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        reader.join(timeout=5)
    # uvicorn ends on SIGTERM by raising the signal again once shut down: -15, after a clean exit.
    assert server.returncode in (0, -signal.SIGTERM), "".join(lines)
    assert any("Application shutdown complete" in line for line in lines), "".join(lines)
    assert not any("Traceback" in line for line in lines), "".join(lines)
