"""docs/self-hosting.md names the server's settings as app/settings.py reads them, and the
commands it shows are those of the project's files."""

from __future__ import annotations

import re
from pathlib import Path

from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "self-hosting.md").read_text(encoding="utf-8")
# Read by docker-compose.yml for itself, or by the wheel's build: not settings of the server.
NOT_SERVER_SETTINGS = {"MELDHALL_CLUSTER_NODES", "MELDHALL_CLUSTER_PORT", "MELDHALL_COMPILE"}


def server_variables() -> set[str]:
    return {
        field.validation_alias or f"MELDHALL_{name.upper()}"
        for name, field in Settings.model_fields.items()
        if isinstance(field.validation_alias, str | None)
    }


def settings_table() -> list[str]:
    table = PAGE.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for row in table.splitlines():
        if row.startswith("| `"):
            names += re.findall(r"`([A-Z_]+)`", row.split("|")[1])
    return names


def test_the_settings_table_lists_every_setting_once() -> None:
    names = settings_table()
    assert len(names) == len(set(names))
    assert set(names) == server_variables()


def test_every_variable_the_page_names_exists() -> None:
    named = set(re.findall(r"\bMELDHALL_[A-Z][A-Z_]*[A-Z]\b", PAGE))
    assert named - server_variables() - NOT_SERVER_SETTINGS == set()
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    for variable in NOT_SERVER_SETTINGS - {"MELDHALL_COMPILE"}:
        assert f"${{{variable}:-" in compose


def test_the_compose_commands_are_the_files_own() -> None:
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert "MELDHALL_REDIS_URL=redis://redis:6379/0" in PAGE
    assert "docker compose --profile cluster up -d" in PAGE
    assert "MELDHALL_REDIS_URL=redis://redis:6379/0" in compose
    # The user and database the backup commands name are those the compose file creates.
    assert "POSTGRES_USER: meldhall" in compose
    assert "POSTGRES_DB: meldhall" in compose
    assert "pg_dump -U meldhall -d meldhall" in PAGE


def test_the_image_command_migrates_before_it_serves() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'CMD ["sh", "-c", "meldhall migrate && exec meldhall serve"]' in dockerfile
    assert "`meldhall migrate` first" in PAGE
