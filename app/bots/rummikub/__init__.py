"""Rummikub's bots: `basic` plays the easy level, `strong` the normal and hard levels with the
exact solver of `solver`, which hints use as well."""
