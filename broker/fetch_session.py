"""Incremental fetch sessions (KIP-227): Kafka's ``FetchManager`` and ``FetchSessionCache``.

A fetcher that reads many partitions sends them all once (a *full* fetch, epoch 0); the
broker caches that partition set with the fetcher's per-partition request parameters under
a new session id. Later fetches (*incremental*, epoch 1, 2, ...) name only the partitions
whose parameters changed (a new fetch offset, mostly) and those to drop
(``forgotten_topics_data``); the broker fetches every partition of the session and leaves
out of the answer those with nothing new: no records, the same high watermark, last stable
offset and log start offset as last answered, and no error (Kafka's
``CachedPartition.maybeUpdateResponseData``; Kafka 3.9 does not compare the last stable
offset, Moldau also answers a partition whose last stable offset moved).

Session protocol (Kafka's ``FetchManager.newContext``):
- epoch 0 (INITIAL) is a full fetch that asks for a session; a session id given with it is
  closed first. Epoch -1 (FINAL) is a full fetch without a session (sessionless: answered
  with session id 0), which is also what Fetch v4-v6 always are.
- any other epoch is incremental: an unknown session id answers FETCH_SESSION_ID_NOT_FOUND,
  an epoch other than the session's next one INVALID_FETCH_SESSION_EPOCH, a session made
  with topic ids (Fetch v13+) used by a request with names (v12-) or the other way round
  FETCH_SESSION_TOPIC_ID_ERROR; all three answer session id 0 and no partitions, and the
  client falls back to a full fetch. An incremental fetch that forgets every partition
  closes the session and is answered sessionless.
- epochs wrap from 2^31-1 to 1 (``FetchMetadata.nextEpoch``).

The cache (``FetchSessionCache``) holds at most ``max.incremental.fetch.session.cache.slots``
sessions. When it is full a new session may evict (``tryEvict``): the least recently used
session if it is stale (unused for 120 s, Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS);
otherwise the least valuable one, ordered by (privileged, size, id), if the newcomer is
worth more: followers' sessions are privileged over consumers', larger sessions over
smaller; sessions younger than 120 s can be evicted only by a privileged newcomer, and a
privileged one only once it is 120 s old. A full fetch that finds no slot is answered
sessionless (session id 0), and the client keeps sending full fetches.

Partitions are keyed by (topic name, partition) for Fetch v7-v12 and by (topic id,
partition) for v13+ sessions (whose names are resolved at each fetch, Kafka's
``maybeResolveUnknownName``). A session is broker memory only: a restarted broker knows no
session and its clients go back to full fetches.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from broker.fetch_params import FetchPartitionData, FetchPartitionInfo
from protocol.errors import ErrorCode

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0
FINAL_EPOCH = -1
# Kafka's KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS
EVICTION_MS = 120_000
_INT32_MAX = 2**31 - 1

# A session's partition key: (topic name, partition) before v13, (topic id, partition) after.
SessionKey = tuple[str | uuid.UUID, int]


def next_epoch(epoch: int) -> int:
    """Kafka's ``FetchMetadata.nextEpoch``: FINAL stays, the counter wraps past 2^31-1 to 1."""
    if epoch < 0:
        return FINAL_EPOCH
    return 1 if epoch == _INT32_MAX else epoch + 1


class SessionPartition(NamedTuple):
    """One partition to fetch: its name (None for a topic id not known here), id and index."""

    topic: str | None
    topic_id: uuid.UUID | None
    partition: int


class CachedPartition:
    """A session's partition: the fetcher's last request parameters and what it was last told."""

    __slots__ = ("high_watermark", "info", "last_stable_offset", "log_start_offset", "part")

    def __init__(self, part: SessionPartition, info: FetchPartitionInfo) -> None:
        self.part = part
        self.info = info
        # -1 until answered: the first fetch after the partition joins the session answers it.
        self.high_watermark = -1
        self.last_stable_offset = -1
        self.log_start_offset = -1

    def must_respond(self, result: FetchPartitionData, update: bool = True) -> bool:
        """Whether the answer must carry this partition (and remember what it tells)."""
        # FetchSession.maybeUpdateResponseData: records, a diverging epoch and a preferred read
        # replica (KIP-392) are always answered
        respond = (
            bool(len(result.records))
            or result.diverging_epoch is not None
            or result.preferred_read_replica >= 0
        )
        if self.high_watermark != result.high_watermark:
            respond = True
            if update:
                self.high_watermark = result.high_watermark
        if self.log_start_offset != result.log_start_offset:
            respond = True
            if update:
                self.log_start_offset = result.log_start_offset
        if self.last_stable_offset != result.last_stable_offset:
            respond = True
            if update:
                self.last_stable_offset = result.last_stable_offset
        if result.error is not ErrorCode.NONE:
            # An error is always answered; the cleared high watermark makes the partition
            # answered again once the error is gone.
            respond = True
            if update:
                self.high_watermark = -1
        return respond


class FetchSession:
    """A cached session: its partitions in fetch order, epoch and eviction keys."""

    __slots__ = ("creation_ms", "epoch", "id", "last_used_ms", "partitions", "privileged", "uses_topic_ids")

    def __init__(
        self,
        session_id: int,
        privileged: bool,
        uses_topic_ids: bool,
        partitions: dict[SessionKey, CachedPartition],
        now_ms: int,
    ) -> None:
        self.id = session_id
        self.privileged = privileged
        self.uses_topic_ids = uses_topic_ids
        self.partitions = partitions  # insertion order is fetch order
        self.creation_ms = now_ms
        self.last_used_ms = now_ms
        self.epoch = next_epoch(INITIAL_EPOCH)

    def __len__(self) -> int:
        return len(self.partitions)

    def evictable_key(self) -> tuple[bool, int, int]:
        """Kafka's ``EvictableKey``: the lowest is evicted first."""
        return (self.privileged, len(self.partitions), self.id)

    def update(
        self,
        fetch_data: Mapping[SessionKey, tuple[SessionPartition, FetchPartitionInfo]],
        to_forget: Iterable[SessionKey],
    ) -> None:
        """Apply an incremental request: added and changed partitions, then forgotten ones."""
        partitions = self.partitions
        for key, (part, info) in fetch_data.items():
            cached = partitions.get(key)
            if cached is None:
                partitions[key] = CachedPartition(part, info)
            else:
                cached.info = info
        for key in to_forget:
            partitions.pop(key, None)


class FetchSessionCache:
    """Kafka's ``FetchSessionCache``: at most ``max_entries`` sessions, evicted by value."""

    def __init__(self, max_entries: int, time_ms: Callable[[], int], eviction_ms: int = EVICTION_MS) -> None:
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self.time_ms = time_ms
        self._sessions: dict[int, FetchSession] = {}
        self.evictions = 0
        self._random = random.Random()

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, session_id: int) -> FetchSession | None:
        return self._sessions.get(session_id)

    def total_partitions(self) -> int:
        """Kafka's NumIncrementalFetchPartitionsCached."""
        return sum(len(s) for s in self._sessions.values())

    def remove(self, session_id: int) -> FetchSession | None:
        return self._sessions.pop(session_id, None)

    def touch(self, session: FetchSession) -> None:
        session.last_used_ms = self.time_ms()

    def maybe_create_session(
        self, privileged: bool, uses_topic_ids: bool, partitions: dict[SessionKey, CachedPartition]
    ) -> int:
        """A new session's id, or INVALID_SESSION_ID when there is no room for it."""
        now = self.time_ms()
        if len(self._sessions) >= self.max_entries and not self._try_evict(privileged, len(partitions), now):
            return INVALID_SESSION_ID
        session_id = self._new_session_id()
        self._sessions[session_id] = FetchSession(session_id, privileged, uses_topic_ids, partitions, now)
        return session_id

    def _new_session_id(self) -> int:
        while True:
            session_id = self._random.randint(1, _INT32_MAX - 1)
            if session_id not in self._sessions:
                return session_id

    def _try_evict(self, privileged: bool, size: int, now: int) -> bool:
        """Kafka's ``tryEvict``: a stale session first, else the least valuable if worth less.

        A scan of at most ``max_entries`` sessions, done only when a full fetch finds the
        cache full.
        """
        if not self._sessions:
            return False
        stalest = min(self._sessions.values(), key=lambda s: (s.last_used_ms, s.id))
        if now - stalest.last_used_ms > self.eviction_ms:
            self._evict(stalest)
            return True
        # Sessions younger than eviction_ms are safe from consumers; a privileged newcomer may
        # evict young consumer sessions but young privileged ones neither.
        # As Kafka's ``touch``, a session's age is judged as of its last use.
        if privileged:
            candidates = [s for s in self._sessions.values() if not s.privileged or self._aged(s)]
        else:
            candidates = [s for s in self._sessions.values() if self._aged(s)]
        if not candidates:
            return False
        victim = min(candidates, key=FetchSession.evictable_key)
        # The newcomer's key has id 0: it ties on (privileged, size) in its favour.
        if (privileged, size, 0) < victim.evictable_key():
            return False
        self._evict(victim)
        return True

    def _aged(self, session: FetchSession) -> bool:
        return session.last_used_ms - session.creation_ms > self.eviction_ms

    def _evict(self, session: FetchSession) -> None:
        del self._sessions[session.id]
        self.evictions += 1


class FetchContext:
    """One fetch's view of its session (Kafka's ``FetchContext``).

    ``partitions`` are what to read, in order; ``answer`` takes the results (in that order)
    and returns the top-level error, the session id and the indexes of the results to send.
    """

    __slots__ = ("error", "partitions")

    def __init__(
        self, partitions: list[tuple[SessionPartition, FetchPartitionInfo]], error: ErrorCode
    ) -> None:
        self.partitions = partitions
        self.error = error

    def answer(self, results: Sequence[FetchPartitionData]) -> tuple[ErrorCode, int, list[int]]:
        """Sessionless (and session error): every partition, session id 0."""
        return self.error, INVALID_SESSION_ID, list(range(len(results)))


class _FullFetchContext(FetchContext):
    __slots__ = ("_cache", "_privileged", "_uses_topic_ids")

    def __init__(
        self,
        partitions: list[tuple[SessionPartition, FetchPartitionInfo]],
        cache: FetchSessionCache,
        privileged: bool,
        uses_topic_ids: bool,
    ) -> None:
        super().__init__(partitions, ErrorCode.NONE)
        self._cache = cache
        self._privileged = privileged
        self._uses_topic_ids = uses_topic_ids

    def answer(self, results: Sequence[FetchPartitionData]) -> tuple[ErrorCode, int, list[int]]:
        cached: dict[SessionKey, CachedPartition] = {}
        for (part, info), result in zip(self.partitions, results, strict=True):
            entry = CachedPartition(part, info)
            entry.must_respond(result)
            cached[_key(part, self._uses_topic_ids)] = entry
        session_id = self._cache.maybe_create_session(self._privileged, self._uses_topic_ids, cached)
        return ErrorCode.NONE, session_id, list(range(len(results)))


class _IncrementalFetchContext(FetchContext):
    __slots__ = ("_epoch", "_session")

    def __init__(self, session: FetchSession) -> None:
        super().__init__([(c.part, c.info) for c in session.partitions.values()], ErrorCode.NONE)
        self._session = session
        self._epoch = session.epoch  # the epoch this fetch's answer belongs to

    def answer(self, results: Sequence[FetchPartitionData]) -> tuple[ErrorCode, int, list[int]]:
        session = self._session
        if session.epoch != self._epoch:
            # Another fetch of the session came in while this one waited: a duplicate.
            return ErrorCode.INVALID_FETCH_SESSION_EPOCH, session.id, []
        partitions = session.partitions
        uses_ids = session.uses_topic_ids
        send = []
        for i, ((part, _), result) in enumerate(zip(self.partitions, results, strict=True)):
            key = _key(part, uses_ids)
            cached = partitions.get(key)
            if cached is None or not cached.must_respond(result):
                continue
            send.append(i)
            if len(result.records):
                # Partitions that returned data go to the back of the session, so the next
                # fetches start with the others (Kafka's round robin within a session).
                del partitions[key]
                partitions[key] = cached
        return ErrorCode.NONE, session.id, send


def _key(part: SessionPartition, uses_topic_ids: bool) -> SessionKey:
    if uses_topic_ids:
        assert part.topic_id is not None
        return (part.topic_id, part.partition)
    assert part.topic is not None
    return (part.topic, part.partition)


class FetchManager:
    """Kafka's ``FetchManager``: turns a fetch's session fields into its ``FetchContext``."""

    def __init__(self, cache: FetchSessionCache) -> None:
        self.cache = cache

    def new_context(
        self,
        version: int,
        session_id: int,
        epoch: int,
        is_follower: bool,
        fetch_data: Sequence[tuple[SessionPartition, FetchPartitionInfo]],
        to_forget: Iterable[SessionPartition],
        topic_names: Mapping[uuid.UUID, str] | None = None,
    ) -> FetchContext:
        """The context of one fetch; ``fetch_data`` in request order (a repeated partition
        keeps its last parameters), ``to_forget`` its forgotten partitions (v7+)."""
        uses_ids = version >= 13
        keyed = {_key(part, uses_ids): (part, info) for part, info in fetch_data}
        if version < 7:
            session_id, epoch = INVALID_SESSION_ID, FINAL_EPOCH
        if epoch in (INITIAL_EPOCH, FINAL_EPOCH):
            if session_id != INVALID_SESSION_ID:
                # Any session named by a full fetch is closed.
                self.cache.remove(session_id)
            partitions = list(keyed.values())
            if epoch == FINAL_EPOCH:
                return FetchContext(partitions, ErrorCode.NONE)
            return _FullFetchContext(partitions, self.cache, is_follower, uses_ids)
        session = self.cache.get(session_id)
        if session is None:
            return FetchContext([], ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
        if session.epoch != epoch:
            return FetchContext([], ErrorCode.INVALID_FETCH_SESSION_EPOCH)
        if session.uses_topic_ids != uses_ids:
            return FetchContext([], ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR)
        session.update(keyed, [_key(p, uses_ids) for p in to_forget])
        if not session.partitions:
            self.cache.remove(session.id)
            return FetchContext(list(keyed.values()), ErrorCode.NONE)
        if uses_ids and topic_names:
            _resolve_names(session, topic_names)
        self.cache.touch(session)
        session.epoch = next_epoch(session.epoch)
        return _IncrementalFetchContext(session)


def _resolve_names(session: FetchSession, topic_names: Mapping[uuid.UUID, str]) -> None:
    """Kafka's ``maybeResolveUnknownName``: a topic id unknown when it joined may be known now."""
    for cached in session.partitions.values():
        part = cached.part
        if part.topic is None and part.topic_id in topic_names:
            cached.part = part._replace(topic=topic_names[part.topic_id])
