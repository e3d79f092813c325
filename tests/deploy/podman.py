"""Running the project's docker-compose.yml and image with podman and podman-compose, unchanged.

Where podman-compose (1.6, from PyPI) with Debian bookworm's podman (4.3) cannot do something
the compose file uses, this module runs the podman commands it stands for, and says so:

- `depends_on: condition: service_healthy`: podman-compose skips the condition on podman older
  than 4.6 (it starts the dependant at once, with a warning). `Compose.up` does what the
  condition means: it starts the services others wait on first, waits until podman reports them
  healthy, then runs `up -d` for the rest.
- Health checks: podman 4.3 runs them from systemd timers, and these machines have no systemd
  (podman logs "unable to get systemd connection to add healthchecks"). `HealthChecks` runs
  `podman healthcheck run` for each running container at its check's interval, as the timer
  would (the first check one interval after the start, as Docker does); podman itself keeps
  the start period, the retries and the status.
- `deploy: replicas`: podman-compose honours it only beside an explicit `mode: replicated`
  (Compose's default, so the file leaves it out): `Compose.up` passes the file's count as
  `--scale node=N`. `podman-compose down` then knows the first replica only, so `Compose.down`
  stops and removes the others first (`podman stop`, `podman rm`), as `compose down` would.
- Profiles, builds, ports, volumes, networks and restart policies: podman-compose as it is.

Every run gets a project name of its own (`-p`, instead of the file's `meldhall`), so that a
real deployment on the same machine is never touched, and an env file of its own
(`--env-file`), never the checkout's `.env`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
STANDINS = ROOT / "deploy" / "podman" / "standins.py"
IMAGE = "meldhall:latest"
PROJECT_LABEL = "io.podman.compose.project"


def clean_environment() -> dict[str, str]:
    """This process's environment without anything Compose would substitute into the file or
    the server would read: the env file alone decides, as on a self-hoster's machine. Builds
    keep the HEALTHCHECK: podman's default OCI image format has no place for it."""
    dropped = ("MELDHALL_", "POSTGRES_", "PG", "COMPOSE_", "DATABASE_URL")
    env = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    env["BUILDAH_FORMAT"] = "docker"
    return env


def podman(
    *args: str, check: bool = True, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["podman", *args], capture_output=True, text=True, timeout=timeout, check=False,
        env=clean_environment(),
    )  # fmt: skip
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def inspect(name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = json.loads(podman("inspect", "--type", "container", name).stdout)
    return found[0]


def image_id(reference: str) -> str | None:
    found = podman("image", "inspect", "--format", "{{.Id}}", reference, check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def health(name: str) -> str:
    state = inspect(name)["State"]
    return str((state.get("Health") or state.get("Healthcheck") or {}).get("Status", ""))


def get_json(url: str, headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def wait_for_health(url: str, seconds: float = 90) -> None:
    """Until GET /healthz at `url` answers 200."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        assert time.monotonic() < deadline, f"{url}/healthz did not answer in {seconds} s"
        time.sleep(0.3)


class HealthChecks:
    """`podman healthcheck run` for the matching running containers at their checks' intervals:
    what podman's systemd timers would do, on a machine without systemd."""

    def __init__(self, filters: list[str]) -> None:
        self.filters = filters  # `podman ps --filter` arguments
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        # container id -> its check's interval (None: it has no check)
        self.intervals: dict[str, float | None] = {}
        # container id and start time -> when its next check is due
        self.due: dict[tuple[str, str], float] = {}
        self.errors: list[str] = []

    def __enter__(self) -> HealthChecks:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=30)

    def _run(self) -> None:
        while not self.stopped.wait(0.5):
            try:
                self._tick()
            except Exception as error:  # a container may go away mid-tick
                self.errors.append(repr(error))

    def _tick(self) -> None:
        args = ["ps", "--format", "{{.ID}} {{.StartedAt}}"]
        for condition in self.filters:
            args += ["--filter", condition]
        for line in podman(*args, check=False).stdout.splitlines():
            container, started = line.split()
            if container not in self.intervals:
                try:
                    check = inspect(container)["Config"].get("Healthcheck") or {}
                except AssertionError:
                    continue  # removed since
                has_check = check.get("Test", ["NONE"])[0] != "NONE"
                interval = (check.get("Interval") or 30_000_000_000) / 1e9
                self.intervals[container] = interval if has_check else None
            interval = self.intervals[container]
            if interval is None:
                continue
            now = time.monotonic()
            due = self.due.setdefault((container, started), now + interval)
            if now >= due:
                self.due[(container, started)] = now + interval
                podman("healthcheck", "run", container, check=False, timeout=60)


class Compose:
    """podman-compose on the project's docker-compose.yml under a project name and env file of
    the test's own."""

    def __init__(self, project: str, folder: Path, dotenv: dict[str, str], *, cluster: bool):
        self.project = project
        self.folder = folder
        self.cluster = cluster
        self.env_file = folder / f"{project}.env"
        self.dotenv: dict[str, str] = {}
        self.volumes_seen: set[str] = set()
        self.write_env(dotenv)

    # -- the env file and the file's own values -----------------------------------------------

    def write_env(self, dotenv: dict[str, str]) -> None:
        """The .env file as a self-hoster writes it: NAME=value lines, values unquoted."""
        self.dotenv = dict(dotenv)
        lines = [f"{key}={value}" for key, value in dotenv.items()]
        self.env_file.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def services(self) -> dict[str, Any]:
        """The services this run starts (the profile's too, with the cluster)."""
        spec = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))["services"]
        return {
            name: service
            for name, service in spec.items()
            if not service.get("profiles") or (self.cluster and "cluster" in service["profiles"])
        }

    def waited_on(self) -> list[str]:
        """Services that another waits for with `condition: service_healthy`."""
        names: set[str] = set()
        for service in self.services().values():
            depends = service.get("depends_on") or {}
            if isinstance(depends, dict):
                names |= {n for n, c in depends.items() if c.get("condition") == "service_healthy"}
        return sorted(names)

    def replicas(self) -> dict[str, int]:
        """deploy.replicas of each service that has it, with the env file's values."""
        from tests.test_docker_files import substitute

        found = {}
        for name, service in self.services().items():
            count = (service.get("deploy") or {}).get("replicas")
            if count is not None:
                found[name] = int(substitute(str(count), self.dotenv))
        return found

    # -- podman-compose ------------------------------------------------------------------------

    def run(self, *args: str, timeout: float = 600, env: dict[str, str] | None = None) -> str:
        command = [sys.executable, "-m", "podman_compose", "--env-file", str(self.env_file),
                   "-p", self.project, "-f", str(COMPOSE_FILE)]  # fmt: skip
        if self.cluster:
            command += ["--profile", "cluster"]
        done = subprocess.run(
            [*command, *args], cwd=ROOT, env={**clean_environment(), **(env or {})},
            capture_output=True, text=True,
            timeout=timeout, check=False,
        )  # fmt: skip
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"podman-compose {' '.join(args)} failed:\n{output[-6000:]}"
        return output

    def up(self) -> None:
        """`up -d`, with the services others wait on healthy before those start (see the top)."""
        first = self.waited_on()
        if first:
            self.run("up", "-d", *first)
            self.wait_healthy(first)
        scale = [f"--scale={name}={count}" for name, count in self.replicas().items()]
        self.run("up", "-d", *scale)
        self._remember_volumes()

    def down(self, *flags: str) -> None:
        """`down` (with `-v`: the volumes too)."""
        self._remember_volumes()
        containers = self.containers()
        extra = [c["Id"] for c in containers if self._replica(c) > 1]
        if extra:
            # Those that depend on them (the balancer) go first, as compose down orders it.
            dependents = [
                c["Id"] for c in containers
                if set(inspect(c["Id"]).get("Dependencies") or []) & set(extra)
            ]  # fmt: skip
            for group in (dependents, extra):
                if group:
                    podman("stop", *group, timeout=120)
                    podman("rm", *(["-v"] if "-v" in flags else []), *group)
        self.run("down", *flags)

    # -- what is running -------------------------------------------------------------------------

    def containers(self) -> list[dict[str, Any]]:
        listed = podman(
            "ps", "-a", "--format", "json", "--filter", f"label={PROJECT_LABEL}={self.project}"
        )
        return list(json.loads(listed.stdout or "[]"))

    def running(self) -> list[str]:
        return sorted(c["Names"][0] for c in self.containers() if c["State"] == "running")

    def named(self, service: str) -> list[str]:
        """The service's containers, by replica number."""
        label = "com.docker.compose.service"
        found = [c for c in self.containers() if c["Labels"].get(label) == service]
        return [c["Names"][0] for c in sorted(found, key=self._replica)]

    @staticmethod
    def _replica(container: dict[str, Any]) -> int:
        return int(container["Labels"].get("com.docker.compose.container-number", "1"))

    def volume(self, name: str) -> str:
        return f"{self.project}_{name}"

    def volume_exists(self, name: str) -> bool:
        return podman("volume", "exists", self.volume(name), check=False).returncode == 0

    def wait_healthy(self, services: Iterable[str], seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        names = [name for service in services for name in self.named(service)]
        assert names, f"no containers for {services}"
        while True:
            states = {name: health(name) for name in names}
            if all(state == "healthy" for state in states.values()):
                return
            assert time.monotonic() < deadline, f"not healthy in {seconds} s: {states}"
            time.sleep(0.5)

    def logs(self, name: str) -> str:
        done = podman("logs", name, check=False)
        return done.stdout + done.stderr

    def all_logs(self) -> str:
        return "\n".join(
            f"--- {name}\n{self.logs(name)[-5000:]}"
            for c in self.containers()
            for name in c["Names"]
        )

    def _remember_volumes(self) -> None:
        for container in self.containers():
            for mount in inspect(container["Id"]).get("Mounts", []):
                if mount.get("Type") == "volume":
                    self.volumes_seen.add(mount["Name"])

    def remove_everything(self) -> None:
        """Whatever the test left: containers, their pod and network, and the volumes."""
        self._remember_volumes()
        names = [c["Id"] for c in self.containers()]
        if names:
            podman("rm", "-f", "-v", "-t", "2", *names, check=False, timeout=180)
        podman("pod", "rm", "-f", f"pod_{self.project}", check=False)
        podman("network", "rm", "-f", f"{self.project}_default", check=False)
        declared = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8")).get("volumes") or {}
        for volume in self.volumes_seen | {self.volume(name) for name in declared}:
            podman("volume", "rm", "-f", volume, check=False)


def podman_missing() -> str | None:
    """Why the container tests cannot run here, or None."""
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman runc mmdebstrap, deploy/podman/)"
    try:
        import podman_compose  # noqa: F401
    except ImportError:
        return "podman-compose is not installed (pip install -e '.[dev]')"
    return None


class Steps:
    """Prints how long each step of a test took (shown with -s, or when the test fails)."""

    def __init__(self) -> None:
        self.started = self.last = time.monotonic()

    def __call__(self, what: str) -> None:
        now = time.monotonic()
        print(f"[{now - self.started:6.1f} s] {what} ({now - self.last:.1f} s)", flush=True)
        self.last = now
