#!/usr/bin/env python3
"""Stand-ins for the public images that meldhall's Dockerfile and docker-compose.yml name, built
from Debian bookworm's packages with mmdebstrap and tagged with those images' exact names, so
that the project's files build and run unchanged on a machine that cannot pull them.

THESE ARE NOT THE OFFICIAL IMAGES. meldhall's CI machines reach Debian's package archive and
PyPI, and no image registry: `docker.io/library/python:3.11-slim` and the others cannot be
pulled there. To build the Dockerfile and run docker-compose.yml for real (tests/deploy/), this
script makes images of the same names that do what those files rely on, from Debian's packages:

- python:3.11-slim: Debian's Python 3.11 (python3.11, python3-pip, python3-dev for the C
  headers, python-is-python3), `python` and `pip` on the PATH, pip free to install as root into
  /usr/local (the official image's Python is not Debian's, so nothing marks it externally
  managed: the marker is removed here), apt able to install gcc, and this machine's CA bundle
  (pip reaches PyPI here through a TLS-inspecting path whose authority only that bundle holds).
- postgres:16-alpine: Debian's PostgreSQL **15** (bookworm has no 16), with an entrypoint that
  honours POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB: the database is created on the first
  start in the volume at /var/lib/postgresql/data, on a server listening on its Unix socket
  only, then the real server listens on every address with password (SCRAM) logins over TCP;
  `pg_isready` is on the PATH. No /docker-entrypoint-initdb.d scripts.
- redis:7-alpine: Debian's Redis 7.0, `redis-server` and `redis-cli`, run as the redis user in
  /data with protected mode off (as the official image is built).
- haproxy:2.6-alpine: Debian's HAProxy 2.6 reading /usr/local/etc/haproxy/haproxy.cfg, in
  master-worker mode in the foreground as the haproxy user.

The differences that remain (Debian, not Alpine, under the three service images; PostgreSQL 15
for 16; a Python 3.11 of Debian's rather than python.org's build) are why a run on the stand-ins
shows that meldhall's own files work, not that the public images behave the same.

Each image carries the label org.meldhall.standin.recipe, a digest of this script, the image's
entrypoint and (for python) the CA bundle it copies in. An image whose label matches is kept:
only a changed recipe rebuilds it (or --force). Debian's security updates are taken in at a
rebuild, not by a run that finds the image up to date.

    python3 deploy/podman/standins.py            # build the missing or out-of-date stand-ins
    python3 deploy/podman/standins.py --force    # rebuild them all
    python3 deploy/podman/standins.py --check    # exit 1 unless all four are up to date

Needs podman and mmdebstrap (apt-get install podman runc mmdebstrap), run as root.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENTRYPOINTS = HERE / "standins"
LABEL = "org.meldhall.standin.recipe"
SUITE = "bookworm"
MIRRORS = [
    "deb http://deb.debian.org/debian bookworm main",
    "deb http://deb.debian.org/debian bookworm-updates main",
    "deb http://deb.debian.org/debian-security bookworm-security main",
]
# As Debian's own slim images: no manuals or documentation (copyright notices kept), no
# translations.
SLIM = [
    "path-exclude=/usr/share/man/*",
    "path-exclude=/usr/share/doc/*",
    "path-include=/usr/share/doc/*/copyright",
    "path-exclude=/usr/share/info/*",
    "path-exclude=/usr/share/locale/*",
    "path-exclude=/usr/share/lintian/*",
]
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class StandIn:
    name: str  # what the project's files say
    packages: list[str]
    config: list[str]  # podman import --change instructions
    hooks: list[str] = field(default_factory=list)  # mmdebstrap --customize-hook commands
    entrypoint: str | None = None  # a file of ENTRYPOINTS, installed as docker-entrypoint.sh
    uploads: list[Path] = field(default_factory=list)  # host files copied in, part of the recipe

    @property
    def reference(self) -> str:
        return f"docker.io/library/{self.name}"

    def recipe(self) -> str:
        digest = hashlib.sha256()
        digest.update(Path(__file__).read_bytes())
        digest.update(self.name.encode())
        if self.entrypoint:
            digest.update((ENTRYPOINTS / self.entrypoint).read_bytes())
        for path in self.uploads:
            digest.update(path.read_bytes())
        return digest.hexdigest()[:32]


ENTRYPOINT = "/usr/local/bin/docker-entrypoint.sh"

STAND_INS = [
    StandIn(
        "python:3.11-slim",
        ["python3.11", "python3-pip", "python3-dev", "python-is-python3", "ca-certificates"],
        [f"ENV PATH={PATH}", "ENV LANG=C.UTF-8", 'CMD ["python3"]'],
        hooks=[
            'rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED',
            f"upload {CA_BUNDLE} {CA_BUNDLE}",
        ],
        uploads=[CA_BUNDLE],
    ),
    StandIn(
        "postgres:16-alpine",
        ["postgresql-15"],
        [
            f"ENV PATH=/usr/lib/postgresql/15/bin:{PATH}",
            "ENV LANG=C.UTF-8",
            "ENV PGDATA=/var/lib/postgresql/data",
            "VOLUME /var/lib/postgresql/data",
            "EXPOSE 5432",
            "STOPSIGNAL SIGINT",
            f'ENTRYPOINT ["{ENTRYPOINT}"]',
            'CMD ["postgres"]',
        ],
        hooks=[
            # The package made a cluster of its own; the entrypoint makes the one in PGDATA.
            'rm -rf "$1"/etc/postgresql/15 "$1"/var/lib/postgresql/15',
            'mkdir -p "$1"/var/lib/postgresql/data',
            'chroot "$1" chown -R postgres:postgres /var/lib/postgresql',
        ],
        entrypoint="postgres-entrypoint.sh",
    ),
    StandIn(
        "redis:7-alpine",
        ["redis-server"],
        [
            f"ENV PATH={PATH}",
            "VOLUME /data",
            "WORKDIR /data",
            "EXPOSE 6379",
            f'ENTRYPOINT ["{ENTRYPOINT}"]',
            'CMD ["redis-server"]',
        ],
        hooks=['mkdir -p "$1"/data', 'chroot "$1" chown redis:redis /data'],
        entrypoint="redis-entrypoint.sh",
    ),
    StandIn(
        "haproxy:2.6-alpine",
        ["haproxy"],
        [
            f"ENV PATH={PATH}",
            "USER haproxy",
            "WORKDIR /var/lib/haproxy",
            "STOPSIGNAL SIGUSR1",
            f'ENTRYPOINT ["{ENTRYPOINT}"]',
            'CMD ["haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]',
        ],
        hooks=['mkdir -p "$1"/usr/local/etc/haproxy'],
        entrypoint="haproxy-entrypoint.sh",
    ),
]


def current_recipe(image: StandIn) -> str | None:
    """The recipe label of the image stored under the name, or None without one."""
    found = subprocess.run(
        ["podman", "image", "inspect", "--format", "json", image.reference],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if found.returncode != 0:
        return None
    labels = json.loads(found.stdout)[0].get("Labels") or {}
    return labels.get(LABEL)


def image_id(reference: str) -> str | None:
    found = subprocess.run(
        ["podman", "image", "inspect", "--format", "{{.Id}}", reference],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return found.stdout.strip() if found.returncode == 0 else None


def build(image: StandIn, log: Path) -> float:
    """Makes the image's root file system with mmdebstrap and imports it under its name."""
    started = time.monotonic()
    hooks = list(image.hooks)
    if image.entrypoint:
        hooks += [
            f"upload {ENTRYPOINTS / image.entrypoint} {ENTRYPOINT}",
            f'chmod 755 "$1"{ENTRYPOINT}',
        ]
    with tempfile.TemporaryDirectory(prefix="meldhall-standin-") as folder:
        tarball = Path(folder) / "rootfs.tar"
        command = [
            "mmdebstrap", "--variant=minbase", "--mode=root", "--format=tar",
            f"--include={','.join(image.packages)}",
            *[f"--dpkgopt={option}" for option in SLIM],
            *[f"--customize-hook={hook}" for hook in hooks],
            SUITE, str(tarball), *MIRRORS,
        ]  # fmt: skip
        with log.open("ab") as output:
            subprocess.run(command, check=True, stdout=output, stderr=output)
        old = image_id(image.reference)
        changes = [*image.config, f"LABEL {LABEL}={image.recipe()}"]
        changes.append(
            "LABEL org.meldhall.standin=" + json.dumps(f"a stand-in for {image.name}, not it")
        )
        subprocess.run(
            ["podman", "import", "--quiet", *[f"--change={c}" for c in changes],
             "--message", f"meldhall stand-in for {image.name}", str(tarball), image.reference],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    if old and old != image_id(image.reference):
        # The previous build, now untagged; one still used by a container stays.
        subprocess.run(["podman", "rmi", old], capture_output=True, check=False)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--check", action="store_true", help="only say whether all are current")
    args = parser.parse_args()
    for tool in ("podman", "mmdebstrap"):
        if shutil.which(tool) is None:
            print(f"{tool} is missing: apt-get install podman runc mmdebstrap", file=sys.stderr)
            return 2
    stale = [image for image in STAND_INS if args.force or current_recipe(image) != image.recipe()]
    for image in STAND_INS:
        state = "to build" if image in stale else "up to date (recipe label matches), kept"
        print(f"{image.reference}: {state}", flush=True)
    if args.check or not stale:
        return 1 if stale and args.check else 0
    log = Path(tempfile.gettempdir()) / "meldhall-standins.log"
    log.write_bytes(b"")
    # Two at a time: mostly downloading and unpacking, on a machine of two cores.
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {image.name: pool.submit(build, image, log) for image in stale}
        failed = False
        for name, future in futures.items():
            try:
                print(f"{name}: built in {future.result():.0f} s", flush=True)
            except subprocess.CalledProcessError as error:
                failed = True
                print(f"{name}: failed ({error}); see {log}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
