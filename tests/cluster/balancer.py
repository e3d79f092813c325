"""HAProxy in front of a test cluster, from the project's own deploy/haproxy.cfg.

The file is used as it is, except for what only a test changes: it listens on 127.0.0.1 at a
free port, and the backend lists the test's nodes instead of finding them in Docker's DNS.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import missing_service
from tests.processes import ServerProcess, free_port

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"


def config_for(nodes: list[ServerProcess], port: int) -> str:
    text = CONFIG.read_text()
    text = text.replace("bind *:8000", f"bind 127.0.0.1:{port}")
    # Docker's resolver is not there outside Compose.
    text = re.sub(r"\nresolvers docker\n(    .*\n)+", "\n", text)
    servers = "\n".join(
        f"    server {node.log.stem} 127.0.0.1:{node.env['MELDHALL_PORT']} check" for node in nodes
    )
    text, count = re.subn(r"(    server-template .*\n)+", servers + "\n", text)
    assert count == 1, "deploy/haproxy.cfg has no server-template lines to replace"
    return text


@dataclass
class Balancer:
    folder: Path
    nodes: list[ServerProcess]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, room_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/rooms/{room_id}"

    def start(self) -> Balancer:
        binary = shutil.which("haproxy")
        if binary is None:
            missing_service("HAProxy is not installed (apt-get install -y haproxy)")
        self.port = free_port()
        config = self.folder / "haproxy.cfg"
        config.write_text(config_for(self.nodes, self.port))
        check = subprocess.run([binary, "-c", "-f", str(config)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        with (self.folder / "haproxy.log").open("ab") as log:
            self.process = subprocess.Popen(
                [binary, "-db", "-f", str(config)], stdout=log, stderr=log
            )
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "HAProxy did not start"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
