"""What the server counts and times as it runs, for Prometheus: one set per app.

Each app has its own registry (never prometheus-client's global one), so that several apps in
one process keep their figures apart. The hot paths pay for an addition, not for a metric
object: a counter here is a plain number (`Tally`), a histogram a list of bucket counts and a
sum (`Spread`), each bound to its labels once; the few labelled by a value known only as it
comes (a refusal's code, a close code, a bot's level) keep their bound children in a dict.
prometheus-client's own Counter and Histogram take a lock on every call, which cost a move
about 8 us of the 3 % of its server CPU that metrics may take (bench/bench_metrics.py). Every
instrument is read at scrape time by `Meters.collect`, on the event loop, where every one of
them is also written. With metrics off (`Meters.off()`) every instrument is one that does
nothing, at the cost of a method call.

The gauges of the server's state (rooms, sockets, matches, bots thinking) are not kept here:
they are read from the rooms when Prometheus scrapes (app.metrics.gauges).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

# An action inside the server is mostly its commit: from a millisecond to the storage timeouts.
ACTION_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# A bot or a hint thinks for up to a few seconds (the solver's time limit is 1 s for a hint).
THINKING_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
# What a storage error was writing: an action, a room, a new match, a hand's or match's end
# (progress), a chat line.
STORAGE_WRITES = ("action", "room", "match", "progress", "chat")

T = TypeVar("T")


class Count(Protocol):
    def inc(self, amount: float = 1) -> None: ...


class Timing(Protocol):
    def observe(self, amount: float) -> None: ...


class Nothing:
    """An instrument that measures nothing (metrics off)."""

    __slots__ = ()

    def inc(self, amount: float = 1) -> None:
        pass

    def observe(self, amount: float) -> None:
        pass


NOTHING = Nothing()


class Tally:
    """A counter's value for one set of labels."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1) -> None:
        self.value += amount


class Spread:
    """A histogram for one set of labels: a count per bucket (the last past every bound) and
    the sum; made cumulative, as Prometheus wants it, when scraped."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, amount: float) -> None:
        # Bucket `le` holds the values at or under its bound: the first bound >= amount.
        self.counts[bisect_left(self.bounds, amount)] += 1
        self.sum += amount


class Family(Generic[T]):
    """One metric: its name, its help, its label names, and a child per set of label values."""

    def __init__(self, name: str, text: str, labels: tuple[str, ...], make: Callable[[], T]):
        self.name = name
        self.text = text
        self.labels = labels
        self.make = make
        self.children: dict[tuple[str, ...], T] = {}

    def child(self, *values: str) -> T:
        child = self.children.get(values)
        if child is None:
            child = self.children[values] = self.make()
        return child


class Labelled(Generic[T]):
    """The children of one metric for the values of its last labels, each bound on first use;
    the key is those values joined by spaces."""

    __slots__ = ("_children", "_make")

    def __init__(self, make: Callable[[str], T]) -> None:
        self._make = make
        self._children: dict[str, T] = {}

    def __getitem__(self, value: str) -> T:
        child = self._children.get(value)
        if child is None:
            child = self._children[value] = self._make(value)
        return child


class Meters(Collector):
    """The server's counters and histograms, labelled by `node`."""

    def __init__(self, registry: CollectorRegistry | None, node: str) -> None:
        self.registry = registry
        self.node = node
        self.counters: list[Family[Tally]] = []
        self.histograms: list[Family[Spread]] = []
        if registry is None:
            self._off()
            return
        self._on(node)
        registry.register(self)

    def _counter(self, name: str, text: str, *labels: str) -> Family[Tally]:
        family = Family(f"meldhall_{name}", text, ("node", *labels), Tally)
        self.counters.append(family)
        return family

    def _histogram(
        self, name: str, text: str, buckets: tuple[float, ...], *labels: str
    ) -> Family[Spread]:
        family = Family(f"meldhall_{name}", text, ("node", *labels), lambda: Spread(buckets))
        self.histograms.append(family)
        return family

    def _on(self, node: str) -> None:
        counter, histogram = self._counter, self._histogram
        accepted = counter("actions_accepted_total", "Actions accepted from clients")
        refused = counter("actions_refused_total", "Actions refused, by error code", "code")
        finished = counter(
            "matches_finished_total", "Matches ended: played out, or abandoned", "game", "outcome"
        )
        opens = counter("socket_opens_total", "Room WebSockets accepted")
        closes = counter("socket_closes_total", "Room WebSockets closed, by close code", "code")
        storage = counter(
            "storage_errors_total", "Writes the database refused or failed, by what", "what"
        )
        takeovers = counter("takeovers_total", "Rooms this node took over from another")
        handovers = counter("handovers_total", "Rooms this node handed over to the others")
        relayed = counter(
            "messages_relayed_total", "Messages relayed to sockets held here for other nodes"
        )
        again = counter(
            "messages_published_again_total", "Cluster messages published again after a failure"
        )
        action = histogram(
            "action_seconds",
            "An action's time in the server, received to acknowledged",
            ACTION_BUCKETS,
        )
        commit = histogram(
            "action_log_commit_seconds", "The action log's commit of one action", ACTION_BUCKETS
        )
        bot = histogram(
            "bot_decision_seconds", "A bot's time to choose", THINKING_BUCKETS, "game", "level"
        )
        hint = histogram("hint_seconds", "A hint's time to work out", THINKING_BUCKETS, "game")
        self.actions_accepted: Count = accepted.child(node)
        self.actions_refused: Labelled[Count] = Labelled(lambda code: refused.child(node, code))
        self.matches_finished: Labelled[Count] = Labelled(
            lambda key: finished.child(node, *key.split(" "))
        )
        self.socket_opens: Count = opens.child(node)
        self.socket_closes: Labelled[Count] = Labelled(lambda code: closes.child(node, code))
        self.storage_errors: Labelled[Count] = Labelled(lambda what: storage.child(node, what))
        for what in STORAGE_WRITES:
            # Shown at 0 from the start: an alert on their rate needs the series to exist.
            self.storage_errors[what]
        self.takeovers: Count = takeovers.child(node)
        self.handovers: Count = handovers.child(node)
        self.messages_relayed: Count = relayed.child(node)
        self.messages_published_again: Count = again.child(node)
        self.action_seconds: Timing = action.child(node)
        self.commit_seconds: Timing = commit.child(node)
        self.bot_seconds: Labelled[Timing] = Labelled(lambda key: bot.child(node, *key.split(" ")))
        self.hint_seconds: Labelled[Timing] = Labelled(lambda game: hint.child(node, game))

    def _off(self) -> None:
        counts: Labelled[Count] = Labelled(lambda _: NOTHING)
        timings: Labelled[Timing] = Labelled(lambda _: NOTHING)
        self.actions_accepted = NOTHING
        self.actions_refused = counts
        self.matches_finished = counts
        self.socket_opens = NOTHING
        self.socket_closes = counts
        self.storage_errors = counts
        self.takeovers = NOTHING
        self.handovers = NOTHING
        self.messages_relayed = NOTHING
        self.messages_published_again = NOTHING
        self.action_seconds = NOTHING
        self.commit_seconds = NOTHING
        self.bot_seconds = timings
        self.hint_seconds = timings

    @property
    def on(self) -> bool:
        return self.registry is not None

    @classmethod
    def off(cls) -> Meters:
        return OFF

    def match_finished(self, game: str, outcome: str) -> None:
        self.matches_finished[f"{game} {outcome}"].inc()

    def bot_decided(self, game: str, level: str, seconds: float) -> None:
        self.bot_seconds[f"{game} {level}"].observe(seconds)

    def collect(self) -> Iterable[Metric]:
        found: list[Metric] = []
        for counters in self.counters:
            counted = CounterMetricFamily(counters.name, counters.text, labels=counters.labels)
            for values, tally in list(counters.children.items()):
                counted.add_metric(values, tally.value)
            found.append(counted)
        for histograms in self.histograms:
            spread = HistogramMetricFamily(
                histograms.name, histograms.text, labels=histograms.labels
            )
            for values, child in list(histograms.children.items()):
                spread.add_metric(values, cumulative(child), child.sum)
            found.append(spread)
        return found


def cumulative(spread: Spread) -> list[tuple[str, float]]:
    buckets, total = [], 0
    for bound, count in zip((*spread.bounds, float("inf")), spread.counts, strict=True):
        total += count
        buckets.append(("+Inf" if bound == float("inf") else repr(bound), float(total)))
    return buckets


OFF = Meters(None, "")
