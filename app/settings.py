"""Every setting of the server, read once from the environment (prefix MELDHALL_)."""

from __future__ import annotations

import os
import re
import secrets
import socket
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

NODE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
# An admin token opens every room: short enough to guess is refused at start.
MIN_ADMIN_TOKEN = 32


def new_node_id() -> str:
    """A name for a node not given one: its host, its process and a few random digits."""
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:32] or "node"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


class Settings(BaseSettings):
    # Empty means unset: docker-compose.yml passes every setting as "${NAME:-}".
    model_config = SettingsConfigDict(env_prefix="MELDHALL_", extra="ignore", env_ignore_empty=True)

    environment: Literal["development", "production"] = "development"
    database_url: str = Field(
        default="",
        validation_alias="DATABASE_URL",
        description="SQLAlchemy async URL; empty means a SQLite file in data_dir",
    )
    data_dir: Path = Path("data")
    sqlite_synchronous: Literal["full", "normal"] = Field(
        default="full",
        description="How the SQLite action log syncs each commit: full survives a power cut, "
        "normal survives a killed server but may lose the last moves on a power cut or an "
        "operating system crash, and takes the sync's wait off every move",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins allowed to open the WebSocket besides the server's own",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="text: lines for people; json: one JSON object a line (time, level, "
        "logger, message, and room, match and node where known)",
    )
    metrics_token: str = Field(
        default="",
        description="Serve /metrics (Prometheus) to 'Authorization: Bearer <token>' only; "
        "empty: no /metrics (404)",
    )
    admin_token: str = Field(
        default="",
        description="Open /api/admin/... (and `meldhall admin`) to 'Authorization: Bearer "
        "<token>' only, at least 32 characters; empty: no admin routes (404)",
    )
    bot_delay_ms: int = Field(default=700, ge=0, le=60_000)
    solver_warm_up: bool = Field(
        default=True,
        description="At start, compile the Rummikub solver's program in a child process "
        "(about 35 s the first time, then loaded from numba's cache); meanwhile bots and hints "
        "use the slower integer program",
    )
    reconnect_grace_s: int = Field(default=60, ge=0, le=86_400)
    between_hands_s: int = Field(default=20, ge=0, le=3_600)
    room_idle_close_s: float = Field(
        default=6 * 3_600,
        ge=0.1,
        le=30 * 86_400,
        description="A room with nobody connected and no sign of a person for this long is "
        "closed: its unfinished match is marked abandoned and it leaves the lobby",
    )
    ws_max_message_bytes: int = Field(default=16_384, ge=1_024, le=1_048_576)
    ws_messages_per_second: float = Field(default=20.0, gt=0)
    ws_burst: int = Field(default=40, ge=1)
    ws_compression: bool = False
    chat_lines_per_second: float = Field(default=1.0, gt=0, le=1_000)
    chat_burst: int = Field(default=5, ge=1, le=1_000)
    ws_ping_interval_s: float = Field(default=20.0, gt=0)
    ws_hello_timeout_s: float = Field(default=10.0, gt=0, le=300)
    shutdown_grace_s: int = Field(
        default=5,
        ge=1,
        le=300,
        description="On SIGTERM, how long open requests may take to finish before they are "
        "cancelled and the server stops (hands its rooms over, closes the store)",
    )
    redis_url: str = Field(
        default="",
        description="Redis for a cluster of servers (redis://host:6379/0); empty runs one "
        "server alone. A cluster needs PostgreSQL (DATABASE_URL) too",
    )
    node_id: str = Field(
        default="",
        max_length=64,
        description="This server's name in the cluster; empty picks host-pid-random",
    )
    cluster_name: str = Field(
        default="meldhall",
        min_length=1,
        max_length=40,
        description="Prefix of the cluster's Redis keys, so clusters can share one Redis",
    )
    lease_s: float = Field(
        default=5.0,
        ge=1.0,
        le=60.0,
        description="How long a node's hold on a room lasts unless renewed: the longest a "
        "dead node's rooms wait before another node takes them over",
    )

    @property
    def cluster(self) -> bool:
        return bool(self.redis_url)

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'meldhall.db'}"

    @model_validator(mode="after")
    def refuse_unsafe_combinations(self) -> Settings:
        if self.environment == "production" and "*" in self.allowed_origins:
            raise ValueError(
                "MELDHALL_ALLOWED_ORIGINS may not contain '*' in production: "
                "any web page could then act with a visitor's seat token"
            )
        url = self.database_url
        if url and not url.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "DATABASE_URL must use an async driver: sqlite+aiosqlite:// or "
                f"postgresql+asyncpg://, got {url.split('://', 1)[0]}://"
            )
        if self.redis_url:
            if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError(
                    "MELDHALL_REDIS_URL must start with redis://, rediss:// or unix://"
                )
            if not url.startswith("postgresql+asyncpg://"):
                raise ValueError(
                    "a cluster (MELDHALL_REDIS_URL set) needs PostgreSQL, which every node "
                    "shares: set DATABASE_URL=postgresql+asyncpg://..."
                )
        if self.admin_token and len(self.admin_token) < MIN_ADMIN_TOKEN:
            raise ValueError(
                f"MELDHALL_ADMIN_TOKEN must be at least {MIN_ADMIN_TOKEN} characters (it opens "
                "every room to whoever holds it): make one with "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`"
            )
        if self.node_id and not NODE_ID.fullmatch(self.node_id):
            raise ValueError("MELDHALL_NODE_ID may hold only letters, digits, '.', '_' and '-'")
        if not NODE_ID.fullmatch(self.cluster_name):
            raise ValueError(
                "MELDHALL_CLUSTER_NAME may hold only letters, digits, '.', '_' and '-'"
            )
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
