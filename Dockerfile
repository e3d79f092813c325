# meldhall: a slim image that applies the migrations, then serves on port 8000.
# Settings come from the environment (see the README's settings table); docker-compose.yml
# wires PostgreSQL in. Without DATABASE_URL the server keeps a SQLite file in /data.
#
# Reproducible: every package comes from requirements/*.lock, pinned with hashes for any
# platform (uv pip compile --universal; see the README), and the server itself is installed as
# a wheel built from the source here, not in editable mode.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# mypyc turns the hot modules into C extensions: the compiler is needed here only, the image
# below ships the built wheel and no compiler.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements/build.lock requirements/
RUN pip install --require-hashes -r requirements/build.lock
COPY pyproject.toml README.md hatch_build.py ./
COPY app app
COPY static static
COPY migrations migrations
# The wheel carries static/ and migrations/ inside the package (pyproject.toml maps them in).
# MELDHALL_COMPILE=1 adds the differ and rules engines compiled beside their sources
# (hatch_build.py), for less server CPU per move; they are built for this stage's Python,
# which is why both stages start from the same image.
RUN MELDHALL_COMPILE=1 pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MELDHALL_ENVIRONMENT=production \
    MELDHALL_HOST=0.0.0.0 \
    MELDHALL_PORT=8000 \
    MELDHALL_DATA_DIR=/data \
    NUMBA_CACHE_DIR=/srv/meldhall/.numba-cache \
    NUMBA_CPU_NAME=generic

WORKDIR /srv/meldhall

# Dependencies first, so that a code change does not reinstall them.
COPY requirements/server.lock /tmp/server.lock
RUN pip install --require-hashes -r /tmp/server.lock && rm /tmp/server.lock

COPY --from=build /wheels /tmp/wheels
RUN pip install --no-deps /tmp/wheels/meldhall-*.whl && pip check && rm -rf /tmp/wheels

RUN useradd --system --uid 10001 --home-dir /srv/meldhall --shell /usr/sbin/nologin meldhall \
    && mkdir -p /data "$NUMBA_CACHE_DIR" \
    && chown meldhall:meldhall /data "$NUMBA_CACHE_DIR"
USER meldhall
# The Rummikub solver's compiled program goes into the image (about half a minute here), so a
# container loads it in under a second instead of compiling it on its first start. numba keys
# its cache on the CPU it compiled for: NUMBA_CPU_NAME=generic (set above, so at build and at
# run time alike) compiles for the architecture's baseline CPU, so the cache built here loads
# on any machine of that architecture instead of being compiled again in every container.
RUN python -c "from app.bots.rummikub.solver import warm_up; warm_up()"
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('MELDHALL_PORT', '8000') + '/healthz', timeout=2)"]

# Migrations, then the server (`serve` would migrate too; doing it first fails fast and loud).
CMD ["sh", "-c", "meldhall migrate && exec meldhall serve"]
