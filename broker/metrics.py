"""Broker metrics: plain counters updated on the event loop, exported on demand.

The hot paths update only Python ints in objects defined here (O(1) per request, per
partition of a request, per flush; never per record). Nothing here imports
``prometheus_client``: the exposition (``broker.metrics_exposition``) is imported only
when ``metrics.prometheus.port`` is set, and reads these counters at scrape time.

- ``BrokerTopicStats``: Kafka's ``BrokerTopicStats`` (BytesIn/BytesOut/MessagesIn and the
  produce/fetch request meters) per topic and for all topics, plus the idempotent-producer
  answers (duplicates, out-of-order and duplicate-sequence errors). Owned by the
  ReplicaManager and always counted: an int add per partition of a request.
- ``IsrChangeStats``: Kafka's ``IsrShrinksPerSec`` / ``IsrExpandsPerSec`` /
  ``FailedIsrUpdatesPerSec``, counted by ``Partition`` when an AlterPartition is answered.
- ``LatencyHistogram``: bucket counts for latencies in milliseconds (Kafka's Yammer
  histograms become Prometheus histograms).
- ``RequestMetrics``: Kafka's ``RequestMetrics`` per API: requests by version, errors by
  code, total/queue/local/remote time. Only when the endpoint is on: ``instrument`` wraps
  each handler of the server's dispatch table, so a broker without the endpoint runs its
  handlers unwrapped and pays one attribute check per frame; with it, the server also stamps
  each frame when it has been read whole (one clock read per request), for the queue time.
- ``BrokerMetrics``: the component the broker builds first; it owns the above (but the
  topic stats), starts and stops the HTTP endpoint and registers the collectors.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode
from protocol.messages._base import Message, Struct
from storage.config_def import ConfigError

if TYPE_CHECKING:
    from broker.broker import Broker
    from broker.handlers import HandlerSpec, RequestContext
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

# Upper bounds (ms) of the latency buckets: sub-millisecond handling up to long polls.
LATENCY_BUCKETS_MS: tuple[float, ...] = (
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    25.0,
    50.0,
    100.0,
    250.0,
    500.0,
    1000.0,
    2500.0,
    5000.0,
    10000.0,
    30000.0,
)


class LatencyHistogram:
    """Counts of observations per bucket (``counts[i]``: at most ``bounds[i]``, the last one
    above every bound), their sum and number. One bisect and three adds per observation."""

    __slots__ = ("bounds", "count", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS_MS) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value
        self.count += 1

    def cumulative(self) -> list[tuple[str, int]]:
        """Prometheus buckets: (upper bound, observations at or below it), ending with +Inf."""
        out = []
        total = 0
        for bound, n in zip((*self.bounds, float("inf")), self.counts, strict=True):
            total += n
            out.append(("+Inf" if bound == float("inf") else repr(bound), total))
        return out

    def copy(self) -> LatencyHistogram:
        other = LatencyHistogram(self.bounds)
        other.counts = list(self.counts)
        other.sum = self.sum
        other.count = self.count
        return other


# ---------------------------------------------------------------------------- topics


class TopicCounters:
    """One topic's counters (or the all-topics ones)."""

    __slots__ = (
        "bytes_in",
        "bytes_out",
        "duplicate_batches",
        "duplicate_sequence_errors",
        "failed_fetch_requests",
        "failed_produce_requests",
        "fetch_requests",
        "messages_in",
        "out_of_order_sequence_errors",
        "produce_requests",
    )

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, 0)

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class BrokerTopicStats:
    """Kafka's ``BrokerTopicStats``: counters per topic and for all topics (``all_topics``).

    A topic's counters go when it is deleted (Kafka's ``removeMetrics``); the all-topics
    ones stay, so their totals only grow.
    """

    def __init__(self) -> None:
        self.all_topics = TopicCounters()
        self.topics: dict[str, TopicCounters] = {}

    def topic(self, topic: str) -> TopicCounters:
        found = self.topics.get(topic)
        if found is None:
            found = self.topics[topic] = TopicCounters()
        return found

    def remove_topic(self, topic: str) -> None:
        self.topics.pop(topic, None)

    def record_append(self, topic: str, size: int, num_records: int) -> None:
        """A batch appended (any origin, as Kafka's ``appendToLocalLog`` counts)."""
        t = self.topic(topic)
        t.bytes_in += size
        t.messages_in += num_records
        a = self.all_topics
        a.bytes_in += size
        a.messages_in += num_records

    def record_produce(self, topic: str, error: ErrorCode | None, duplicate: bool, *, hosted: bool) -> None:
        """One partition of a Produce request, answered ``error`` (None: appended). A
        partition not hosted here counts in the all-topics counters only, so names that
        are no topic here cost no memory (Kafka counts only existing topics per topic)."""
        a = self.all_topics
        t = self.topic(topic) if hosted else None
        a.produce_requests += 1
        if t is not None:
            t.produce_requests += 1
        if error is None:
            if duplicate:
                a.duplicate_batches += 1
                if t is not None:
                    t.duplicate_batches += 1
            return
        a.failed_produce_requests += 1
        if t is not None:
            t.failed_produce_requests += 1
        if error is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER:
            a.out_of_order_sequence_errors += 1
            if t is not None:
                t.out_of_order_sequence_errors += 1
        elif error is ErrorCode.DUPLICATE_SEQUENCE_NUMBER:
            a.duplicate_sequence_errors += 1
            if t is not None:
                t.duplicate_sequence_errors += 1

    def record_fetch(self, topic: str, error: ErrorCode, size: int, *, hosted: bool) -> None:
        """One partition of a Fetch answer: ``size`` bytes of records, or an error (a
        partition not hosted here: the all-topics counters only)."""
        a = self.all_topics
        t = self.topic(topic) if hosted else None
        a.fetch_requests += 1
        if t is not None:
            t.fetch_requests += 1
        if error is not ErrorCode.NONE:
            a.failed_fetch_requests += 1
            if t is not None:
                t.failed_fetch_requests += 1
        elif size:
            a.bytes_out += size
            if t is not None:
                t.bytes_out += size

    def snapshot(self) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
        """(all topics, per topic) as plain dicts (taken on the event loop)."""
        return self.all_topics.as_dict(), {t: c.as_dict() for t, c in self.topics.items()}


class IsrChangeStats:
    """Kafka's ``IsrShrinksPerSec`` / ``IsrExpandsPerSec`` / ``FailedIsrUpdatesPerSec`` of the
    ReplicaManager, marked by ``Partition`` as Kafka's ``AlterPartitionListener``: a shrink or
    an expansion when the controller commits the leader's AlterPartition proposing it
    (``handleAlterPartitionUpdate``), a failure when it refuses it or the answer is stale.
    An ISR the controller sets itself (LeaderAndIsr: a broker gone, a new leader) is neither."""

    __slots__ = ("expands", "failed", "shrinks")

    def __init__(self) -> None:
        self.shrinks = 0
        self.expands = 0
        self.failed = 0


# ---------------------------------------------------------------------------- requests


class ApiRequestStats:
    """One API's request metrics (Kafka's ``RequestMetrics`` for one request name)."""

    __slots__ = ("errors", "local", "name", "queue", "remote", "requests", "total")

    def __init__(self, name: str) -> None:
        self.name = name
        self.requests: dict[int, int] = {}  # by API version
        self.errors: dict[int, int] = {}  # by error code (NONE included, as Kafka counts it)
        self.total = LatencyHistogram()
        self.queue = LatencyHistogram()
        self.local = LatencyHistogram()
        self.remote = LatencyHistogram()

    def done(
        self,
        version: int,
        received: float | None,
        started: float,
        handled: float,
        finished: float,
        response: Any,
    ) -> None:
        """A request answered: ``received`` is when its frame had been read whole (None: not
        stamped, a handler called outside the server), ``started`` when its handler began,
        ``handled`` when it returned, ``finished`` when its answer was ready (later than
        ``handled`` when it waited: Kafka's remote time). Kafka's TotalTimeMs counts from the
        request's receipt, so the queue time is part of the total."""
        requests = self.requests
        requests[version] = requests.get(version, 0) + 1
        local_ms = (handled - started) * 1000.0
        self.local.observe(local_ms)
        total_ms = local_ms
        if received is not None:
            queue_ms = (started - received) * 1000.0
            self.queue.observe(queue_ms)
            total_ms += queue_ms
        if finished == handled:  # answered at once (most requests): remote time 0
            remote = self.remote
            remote.counts[0] += 1
            remote.count += 1
        else:
            remote_ms = (finished - handled) * 1000.0
            self.remote.observe(remote_ms)
            total_ms += remote_ms
        self.total.observe(total_ms)
        if response is not None:
            error_counter(type(response))(response, self.errors)

    def snapshot(self) -> dict[str, Any]:
        return {
            "requests": dict(self.requests),
            "errors": dict(self.errors),
            "total": self.total.copy(),
            "queue": self.queue.copy(),
            "local": self.local.copy(),
            "remote": self.remote.copy(),
        }


ErrorCounter = Callable[[Any, dict[int, int]], None]
# Per message class: a function adding the class's error codes (its own and those of the
# structs below it) to a dict of counts; built once per class from its FIELDS.
_ERROR_COUNTERS: dict[type, ErrorCounter] = {}


def _count_nothing(node: Any, counts: dict[int, int]) -> None:
    pass


def error_counter(cls: type) -> ErrorCounter:
    """The counting function of ``cls`` (Kafka's ``AbstractResponse.errorCounts``: the
    top-level error code and those of its topics, partitions, groups, ...)."""
    found = _ERROR_COUNTERS.get(cls)
    if found is not None:
        return found
    _ERROR_COUNTERS[cls] = _count_nothing  # a recursive struct sees nothing while being built
    codes: list[str] = []
    children: list[tuple[str, bool, ErrorCounter]] = []
    for f in getattr(cls, "FIELDS", ()):
        if f.struct is not None:
            sub = error_counter(f.struct)
            if sub is not _count_nothing:
                children.append((f.attr, f.is_array, sub))
        elif f.attr == "error_code" and f.type == "int16" and not f.is_array:
            codes.append(f.attr)
    if not codes and not children:
        counter: Any = _count_nothing
    else:
        code_attrs = tuple(codes)
        child_plan = tuple(children)

        def counter(node: Any, counts: dict[int, int]) -> None:
            for attr in code_attrs:
                code = getattr(node, attr)
                counts[code] = counts.get(code, 0) + 1
            for attr, is_array, sub in child_plan:
                value = getattr(node, attr)
                if value is None:
                    continue
                if is_array:
                    for item in value:
                        sub(item, counts)
                else:
                    sub(value, counts)

    _ERROR_COUNTERS[cls] = counter
    return counter


def error_codes(response: Struct) -> dict[int, int]:
    """How often each error code occurs in ``response``."""
    counts: dict[int, int] = {}
    error_counter(type(response))(response, counts)
    return counts


class RequestMetrics:
    """Kafka's ``RequestMetrics`` for every API the broker serves."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.apis: dict[str, ApiRequestStats] = {}
        # When the frame about to be handled was read whole (this clock), set by the server
        # just before it calls the handler and taken by the handler's wrapper (Kafka's
        # RequestChannel.Request.startTimeNanos: the RequestQueueTimeMs starts there).
        self.received: float | None = None

    def instrument(self, handlers: Mapping[int, HandlerSpec]) -> dict[int, HandlerSpec]:
        """The dispatch table with every handler timed and counted."""
        return {key: self._instrument(spec) for key, spec in handlers.items()}

    def _instrument(self, spec: HandlerSpec) -> HandlerSpec:
        stats = self.apis.setdefault(spec.name, ApiRequestStats(spec.name))
        fn = spec.fn
        is_async = spec.is_async
        clock = self.clock

        def timed(ctx: RequestContext, request: Message) -> Any:
            started = clock()
            received, self.received = self.received, None  # a stamp serves one request only
            result = fn(ctx, request)  # an exception closes the connection: not an answer
            handled = clock()
            if is_async or (result is not None and not isinstance(result, Message)):
                return _answered_later(stats, ctx.api_version, received, started, handled, result, clock)
            stats.done(ctx.api_version, received, started, handled, handled, result)
            return result

        # The server awaits whatever is not a Message, so the wrapper is a plain function.
        return dataclasses.replace(spec, fn=timed, is_async=False)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return {name: stats.snapshot() for name, stats in self.apis.items()}


async def _answered_later(
    stats: ApiRequestStats,
    version: int,
    received: float | None,
    started: float,
    handled: float,
    pending: Awaitable[Any],
    clock: Callable[[], float],
) -> Any:
    response = await pending
    stats.done(version, received, started, handled, clock(), response)
    return response


# ---------------------------------------------------------------------------- component


class BrokerMetrics:
    """The broker's metrics component: built first, the endpoint started before the logs
    load (so log recovery can be watched), the broker's components attached before the
    server listens.

    ``port`` < 0: off. Then nothing is registered or wrapped; the always-on counters
    (topic stats, ISR changes) stay plain ints nobody reads.
    """

    def __init__(self, port: int, host: str) -> None:
        self.port = port
        self.host = host
        self.requests = RequestMetrics()
        self.log_flush = LatencyHistogram()
        self.endpoint: Any = None  # the exposition's MetricsEndpoint once started
        self.bound: tuple[str, int] | None = None

    @property
    def enabled(self) -> bool:
        return self.port >= 0

    async def start_endpoint(self) -> None:
        """Serve ``/metrics`` (a thread of its own) if the port is set."""
        if not self.enabled:
            return
        from broker.metrics_exposition import MetricsEndpoint  # prometheus_client only when on

        endpoint = MetricsEndpoint(self.host, self.port)
        try:
            self.bound = await endpoint.start()
        except OSError as exc:
            raise ConfigError(
                f"metrics.prometheus.port: cannot serve on {self.host}:{self.port}: {exc.strerror or exc}"
            ) from None
        self.endpoint = endpoint
        log.info("metrics endpoint listening on http://%s:%d/metrics", *self.bound)

    async def stop_endpoint(self) -> None:
        if self.endpoint is not None:
            endpoint, self.endpoint = self.endpoint, None
            await endpoint.stop()

    def watch_log_manager(self, log_manager: LogManager) -> None:
        """Log recovery progress and flush times (the LogManager exists, its logs not yet)."""
        log_manager.on_flush_time = self._observe_flush
        if self.endpoint is not None:
            self.endpoint.watch_log_manager(log_manager, self.log_flush)

    def _observe_flush(self, seconds: float) -> None:
        self.log_flush.observe(seconds * 1000.0)

    def attach(self, broker: Broker) -> None:
        """Everything else, once the broker's components exist (before the server listens)."""
        if self.endpoint is not None:
            self.endpoint.attach(broker, self.requests)

    def instrument(self, handlers: Mapping[int, HandlerSpec]) -> dict[int, HandlerSpec]:
        """The server's dispatch table: timed handlers with the endpoint on, else as given."""
        if not self.enabled:
            return dict(handlers)
        return self.requests.instrument(handlers)
