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


class KeyedLimits:
    """A token bucket per key (a player, an address), for calls that are rare by nature.

    Buckets of keys not seen for a while are dropped once there are `max_keys`, so a flood of
    addresses cannot grow it without bound; a dropped key starts again with a full burst.
    """

    def __init__(self, rate: float, burst: int, max_keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, key: str) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._drop_full()
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket.take()

    def _drop_full(self) -> None:
        now = monotonic()
        refill = self.burst / self.rate if self.rate else float("inf")
        stale = [key for key, bucket in self._buckets.items() if now - bucket.stamp >= refill]
        for key in stale or list(self._buckets)[: self.max_keys // 2]:
            del self._buckets[key]
