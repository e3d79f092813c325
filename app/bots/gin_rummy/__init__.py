"""Gin Rummy's bots: `basic` plays the easy level, `strong` the normal and hard levels (with
what it remembers of the table in `memory` and its model of the opponent's hand in `opponent`),
and `simple` is the known simple strategy the benches measure them against."""
