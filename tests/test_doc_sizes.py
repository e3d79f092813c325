"""The README stays a page a newcomer reads in minutes, and docs/performance.md holds current
figures only (superseded runs live in git's history)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("document", "most"), [("README.md", 150), ("docs/performance.md", 400)])
def test_a_document_keeps_within_its_length(document: str, most: int) -> None:
    lines = (REPO / document).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= most, f"{document} has {len(lines)} lines; at most {most}"
