"""A stopping server is not held up by a client that never finishes its request."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.processes import ServerProcess, server_env

GRACE_S = 1
# A bound for the test to fail by: the grace, then the shutdown itself (rooms saved, the
# store closed), on a loaded machine.
STOP_BOUND_S = GRACE_S + 20


def test_sigterm_stops_the_server_within_its_grace_though_a_client_stalls_mid_request(
    tmp_path: Path,
) -> None:
    env = server_env(tmp_path, MELDHALL_SHUTDOWN_GRACE_S=str(GRACE_S), MELDHALL_LOG_LEVEL="info")
    node = ServerProcess(env, tmp_path / "server.log").start()
    address = ("127.0.0.1", int(env["MELDHALL_PORT"]))
    try:
        with socket.create_connection(address, timeout=10) as stall:
            # Headers promising a body of 100 bytes, then a few of them, then nothing more:
            # the request stays open for as long as the client keeps the socket.
            stall.sendall(
                b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                b'{"game": '
            )
            time.sleep(0.5)
            started = time.monotonic()
            node.signal(signal.SIGTERM)
            try:
                node.wait_exit(STOP_BOUND_S)
            except subprocess.TimeoutExpired:
                raise AssertionError(
                    f"still running {STOP_BOUND_S} s after SIGTERM:\n{node.output()[-3000:]}"
                ) from None
            took = time.monotonic() - started
            answer = read_all(stall)
    finally:
        node.kill()
    output = node.output()
    # The grace was given (the stalled request waited it out), then the application's own
    # shutdown ran to its end.
    assert took >= GRACE_S, output
    assert "timeout graceful shutdown exceeded" in output, output
    assert "Application shutdown complete" in output, output
    # The cut-short request is answered with a code, and logged in one line, not as a failure.
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503 "), answer
    assert json.loads(body)["error"]["code"] == "server_stopping", answer
    assert "POST '/api/rooms' cut short: the server is stopping" in output, output
    assert "Exception in ASGI application" not in output, output
    assert "Traceback" not in output, output


def read_all(connection: socket.socket) -> bytes:
    """What the server sent before it closed the connection."""
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
