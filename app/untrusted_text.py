"""The one cleaning for text that people type (names, chat, notices), applied at the server.

Text is normalised to NFC; control characters (Cc), format characters (Cf: the bidirectional
overrides and isolates U+202A-U+202E and U+2066-U+2069, zero-width marks, soft hyphens), line and
paragraph separators, surrogates, private-use and unassigned code points are removed; runs of
white space become one space (a line break survives only where `keep_lines` asks for it), and
the ends are trimmed. Length limits are the caller's, counted on the cleaned text.
"""

from __future__ import annotations

import re
import unicodedata

# Cc, Cf, Zl, Zp, Cs, Co, Cn: nothing a person means to show, and all a way to spoof a line.
_REMOVED = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_SPACES = re.compile(r"[^\S\n]+")
_LINES = re.compile(r" *\n[ \n]*")


def clean_text(text: str, *, keep_lines: bool = False) -> str:
    """The text as it may be stored and shown; may be empty."""
    text = unicodedata.normalize("NFC", text)
    if keep_lines:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(
        char
        for char in text
        if (keep_lines and char == "\n")
        or unicodedata.category(char) not in _REMOVED
        # A tab or a line break in a name is white space, not a character to drop silently.
        or char in "\t\n\r\x0b\x0c"
    )
    if not keep_lines:
        return " ".join(kept.split())
    kept = _SPACES.sub(" ", kept)
    return _LINES.sub("\n", kept).strip()
