# meldhall: a slim image that applies the migrations, then serves on port 8000.
# Settings come from the environment (see app/settings.py); docker-compose.yml wires
# PostgreSQL in. Without DATABASE_URL the server keeps a SQLite file in /data.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MELDHALL_ENVIRONMENT=production \
    MELDHALL_HOST=0.0.0.0 \
    MELDHALL_PORT=8000 \
    MELDHALL_DATA_DIR=/data \
    NUMBA_CACHE_DIR=/srv/meldhall/.numba-cache

WORKDIR /srv/meldhall

# Dependencies first, read from pyproject.toml, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY alembic.ini ./
COPY app ./app
COPY static ./static
COPY migrations ./migrations
# Editable, so the code stays here: the server reads static/ and migrations/ from beside app/.
RUN pip install --no-deps -e .

RUN useradd --system --uid 10001 --home-dir /srv/meldhall --shell /usr/sbin/nologin meldhall \
    && mkdir -p /data "$NUMBA_CACHE_DIR" \
    && chown meldhall:meldhall /data "$NUMBA_CACHE_DIR"
USER meldhall
# The Rummikub solver's compiled program goes into the image (about half a minute here), so a
# container loads it in under a second instead of compiling it on its first start.
RUN python -c "from app.bots.rummikub_solver import warm_up; warm_up()"
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('MELDHALL_PORT', '8000') + '/healthz', timeout=2)"]

# Migrations, then the server (`serve` would migrate too; doing it first fails fast and loud).
CMD ["sh", "-c", "meldhall migrate && exec meldhall serve"]
