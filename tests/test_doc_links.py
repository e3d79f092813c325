"""Every relative link in README.md and docs/ leads somewhere: the file exists, and an `#anchor`
names a heading of the target as GitHub makes its anchors."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+).*?\1")
# [text](target) and ![alt](target), the target up to a space (a title may follow) or ")".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_TARGET = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"""<a\b[^>]*\b(?:name|id)\s*=\s*["']([^"']+)["']""")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(INLINE_CODE.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without markup, lower case, punctuation but
    hyphens and underscores dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor GitHub gives `path`'s headings (repeats numbered -1, -2, ...)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    text = path.read_text(encoding="utf-8")
    for line in prose_lines(text):
        found.update(EXPLICIT_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if not heading:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    targets: list[str] = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        targets += INLINE_LINK.findall(line) + HTML_TARGET.findall(line)
        reference = REFERENCE.match(line)
        if reference:
            targets.append(reference.group(1))
    return [target for target in targets if not EXTERNAL.match(target)]


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in links(path):
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif not linked.is_relative_to(REPO):
            broken.append(f"{target}: outside the repository")
        elif anchor and linked.suffix == ".md" and unquote(anchor) not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(REPO)}")
    return broken


def test_the_slug_follows_githubs_rules() -> None:
    assert slug("With podman (what CI runs)") == "with-podman-what-ci-runs"
    assert (
        slug("Players and ratings at scale, 2026-12-07")
        == "players-and-ratings-at-scale-2026-12-07"
    )
    assert slug("The `view(seat)` call: one seat's part") == "the-viewseat-call-one-seats-part"
    assert slug("Against **Colyseus**") == "against-colyseus"
    assert slug("[docs/cluster.md](docs/cluster.md) & more") == "docsclustermd--more"
    assert slug("金拉米 rules") == "金拉米-rules"


def test_repeated_headings_are_numbered(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n## Notes\n")
    assert anchors(page) == {"notes", "notes-1", "notes-2"}


def test_links_in_code_and_to_the_web_are_not_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "See [a](gone.md), `[b](in-code.md)`, [c](https://example.org/x.md) and\n"
        '```\n[d](fenced.md)\n```\n[e]: ref.md#top\n![f](img.png "title")\n'
    )
    assert sorted(links(page)) == ["gone.md", "img.png", "ref.md#top"]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_relative_link_resolves(document: Path) -> None:
    assert broken_links(document) == []
