"""`python -m app`: the `meldhall` command line; with no command it serves (`meldhall serve`)."""

from __future__ import annotations

import sys

from app.cli import COMMANDS, main

arguments = sys.argv[1:]
if not arguments or arguments[0] not in (*COMMANDS, "-h", "--help"):
    arguments = ["serve", *arguments]
main(arguments)
