"""A seat played through the REST API beside a page: a friend at the table, or the page's own
seat moved quickly to reach a hand's end."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.rated_matches import quick_move

# A Gin Rummy hand played by both seats' quick moves ends long before this many rounds.
MAX_ROUNDS = 400


class Seat:
    def __init__(self, base: str, room: str, token: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)
        self.room = room
        self.headers = {"Authorization": f"Bearer {token}"}

    def state(self) -> tuple[int, dict[str, Any]]:
        answer = self.http.get(f"/api/rooms/{self.room}/state", headers=self.headers).json()
        return answer["version"], answer["state"]

    def act(self, action: dict[str, Any]) -> int:
        """Applies `action` and returns the room's version once it is in the log."""
        known, _ = self.state()
        answer = self.http.post(
            f"/api/rooms/{self.room}/actions",
            json={"action": action, "version": known},
            headers=self.headers,
        )
        assert answer.status_code == 200, answer.text
        return int(answer.json()["version"])

    def ready(self) -> None:
        self.http.post(f"/api/rooms/{self.room}/ready", headers=self.headers)


def play_gin_until(seats: list[Seat], statuses: tuple[str, ...]) -> None:
    """Quick Gin Rummy moves for every seat until the room's status is one of `statuses`
    (each seat is readied between hands unless "between_hands" is wanted)."""
    for _ in range(MAX_ROUNDS):
        for seat in seats:
            _, document = seat.state()
            status = document["room"]["status"]
            if status in statuses:
                return
            if status == "between_hands":
                seat.ready()
            elif status == "playing" and document["you"]["legal"]:
                seat.act(quick_move(document["game"]["me"]["hand"], document["you"]["legal"]))
    raise AssertionError(f"the room did not reach {statuses} in {MAX_ROUNDS} rounds")
