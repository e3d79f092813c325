"""A token bucket per connection: a steady rate with room for a short burst."""

from __future__ import annotations

from time import monotonic


class TokenBucket:
    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = monotonic()

    def take(self) -> bool:
        # Taken for every message a socket receives: a comparison rather than a call to min().
        now = monotonic()
        tokens = self.tokens + (now - self.stamp) * self.rate
        if tokens > self.burst:
            tokens = self.burst
        self.stamp = now
        if tokens >= 1.0:
            self.tokens = tokens - 1.0
            return True
        self.tokens = tokens
        return False
