"""The app with every match dealt from one seed, for browser tests that need a known deal.

The server runs in its own process, so the seed comes from MELDHALL_TEST_SEED; it replaces the
match seed the way tests/api/test_hidden_hands.py does in process.
"""

from __future__ import annotations

import os

from fastapi import FastAPI

from app.main import create_app
from app.rooms import match


def create() -> FastAPI:
    seed = int(os.environ["MELDHALL_TEST_SEED"])
    match.new_seed = lambda: seed
    return create_app()
