"""Metadata (key 3), versions 0-12.

Behaviour (Kafka's ``KafkaApis.handleTopicMetadataRequest`` over its ``MetadataCache``):
- Everything comes from the broker's MetadataCache, the cluster view the controller
  publishes: the alive brokers that have an endpoint on the listener the request came in
  on, the controller id (where the Java Admin client sends CreateTopics/DeleteTopics), and
  for each partition its leader, leader epoch, replicas, ISR and offline replicas.
- A partition whose leader is not alive answers LEADER_NOT_AVAILABLE, one whose leader has
  no endpoint on this listener LISTENER_NOT_FOUND from v6 (LEADER_NOT_AVAILABLE before),
  both with leader -1 (``ZkMetadataCache.getPartitionMetadata``). v0 leaves out replicas
  without a live endpoint and then answers REPLICA_NOT_AVAILABLE.
- Topics requested: v0's empty list means all topics; from v1 a null list
  means all topics and an empty list none. v12 may ask for a topic by id
  (UNKNOWN_TOPIC_ID, name null, if there is none). v10 and v11 carry topic ids but may not
  use them: a topic with a null name or a non-zero id makes the whole request
  INVALID_REQUEST, every requested topic answered with that error and name "" (Kafka's
  InvalidRequestException -> ``MetadataRequest.getErrorResponse``).
- Missing topics are created when ``auto.create.topics.enable`` is on and the
  request allows it (always for v0-3, ``allow_auto_topic_creation`` from v4),
  with ``num.partitions`` and ``default.replication.factor``; an illegal name gets
  INVALID_TOPIC_EXCEPTION, a missing topic otherwise UNKNOWN_TOPIC_OR_PARTITION.
- Internal topics (``__consumer_offsets``, ``__transaction_state``) are never created by a
  Metadata request: the broker creates them with its own configuration (the group
  coordinator on first use). Asked for while missing: UNKNOWN_TOPIC_OR_PARTITION.
- Authorization (``authorizer.class.name``): each topic needs Describe. Asked for all
  topics, the others are left out; asked by name, they answer TOPIC_AUTHORIZATION_FAILED
  whether they exist or not (by id: with the id, without the name). Auto-creation needs
  Create on the cluster or on the topic, else TOPIC_AUTHORIZATION_FAILED.
- Authorized operations (v8+, KIP-430): what the principal may do on each topic (and, v8-v10,
  on the cluster: 0 without Describe on it), computed by the authorizer; with none,
  everything the resource type supports. A topic it may describe has them also when it does
  not exist or is being created; an unknown topic id, a topic it may not describe, and one
  it may not auto-create keep the field's default (Integer.MIN_VALUE).

Version notes: v1 adds controller_id, rack, is_internal and null-means-all;
v2 cluster_id; v3 throttle_time_ms; v4 allow_auto_topic_creation; v5
offline_replicas; v7 leader_epoch; v8 authorized operations; v9 flexible;
v10 topic ids; v11 drops cluster authorized operations; v12 nullable names.

An auto-created topic, and any topic still being created or being deleted, answers
LEADER_NOT_AVAILABLE (as Kafka until its controller has elected leaders): the creation's
file work runs off the loop and the topic appears when it is published. The work per
requested name is O(1) plus its partitions (no file work), and the names are handled in
slices of 500 per loop turn. Auto-creations of one request stop at
``max.partitions.per.request`` partitions (the first always goes, however large): the rest
answer LEADER_NOT_AVAILABLE and are created when the client asks again; past
``max.partitions``: POLICY_VIOLATION. A missing topic not auto-created answers
UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for a name no topic can have.

ZooKeeper mode: a broker that has not yet received the controller's first UpdateMetadata
(just started) holds Metadata requests up to 5 s for it, instead of answering with no
controller: librdkafka asks again for a controller only at its metadata refresh interval.

Scale: an existing topic's entry is encoded straight from the MetadataCache, one struct
pack per partition (``TopicEntryEncoder``; no Topic or Partition objects). The entries of an
all-topics answer are kept per (version, listener, authorized operations) and reused until
the topic changes (the MetadataCache's ``topic_version``) or the brokers do, so asking again
for 10,000 partitions costs a join of byte strings, and asking first some 30 ms.

Differs from Kafka: Kafka's AutoTopicCreationManager creates a
missing ``__consumer_offsets`` asked for in Metadata (with the broker's configuration);
here only the group coordinator creates it.
"""

from __future__ import annotations

import asyncio
import struct
import sys
import uuid

from broker import authorized_operations as ops
from broker.handlers import RequestContext, handler
from broker.metadata_cache import MetadataCache
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import INTERNAL_TOPICS, NO_LEADER, PartitionState, TopicMetadata
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, MetadataRequest, MetadataResponse
from protocol.primitives import ZERO_UUID, write_compact_string, write_string, write_uvarint

# Requested names handled per loop turn: a request may name 100,000 topics (each costs some
# microseconds, an auto-creation more), other clients are served between slices.
SLICE_TOPICS = 500

Topic = MetadataResponse.MetadataResponseTopic
Partition = MetadataResponse.MetadataResponsePartition
FIRST_CLUSTER_VIEW_WAIT_S = 5.0  # how long a new broker's Metadata waits for the cluster view


class EncodedTopicsResponse(MetadataResponse):
    """A Metadata answer whose topic entries are given as ``topic_entries``, in order: the
    entries of existing topics encoded already (bytes, ``TopicEntryEncoder``), error entries
    as Topic objects. Its ``topics`` stay empty: decode the encoding to read them."""

    __slots__ = ("_topic_entries",)

    def __init__(self, *, topic_entries: list[Topic | bytes], **fields) -> None:
        super().__init__(**fields)
        self._topic_entries = topic_entries

    def write(self, w: bytearray, version: int) -> None:
        entries = self._topic_entries
        head = bytearray()
        MetadataResponse.write(self, head, version)  # with no topics
        if not entries:
            w += head
            return
        after = _after_topics_bytes(version)
        w += head[: len(head) - after - _array_length_bytes(version)]
        if version >= 9:
            write_uvarint(w, len(entries) + 1)
        else:
            w += len(entries).to_bytes(4, "big", signed=True)
        w += b"".join(e if isinstance(e, bytes) else encode_topic(e, version) for e in entries)
        w += head[len(head) - after :]


def _array_length_bytes(version: int) -> int:
    """An empty topics array: a compact length (v9+) or an int32."""
    return 1 if version >= 9 else 4


def _after_topics_bytes(version: int) -> int:
    """What MetadataResponse.json puts after the topics: cluster authorized operations
    (v8-v10), the tagged fields (v9+, none here), the error code (v13+)."""
    return (4 if 8 <= version <= 10 else 0) + (1 if version >= 9 else 0) + (2 if version >= 13 else 0)


def encode_topic(topic: Topic, version: int) -> bytes:
    """One topic entry as it appears in a Metadata answer of ``version`` (the generic encoder)."""
    empty = MetadataResponse().encode(version)
    one = MetadataResponse(topics=[topic]).encode(version)
    start = len(empty) - _after_topics_bytes(version)
    return bytes(one[start : len(one) - _after_topics_bytes(version)])


_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_PARTITION_HEAD = struct.Struct(">hii")  # error code, partition index, leader id
_PARTITION_HEAD_EPOCH = struct.Struct(">hiii")  # ... and the leader epoch (v7+)


def _int32_array(ids: tuple[int, ...], compact: bool) -> bytes:
    """A (non-nullable) array of int32: a compact length (v9+) or an int32 one, then the ids."""
    w = bytearray()
    if compact:
        write_uvarint(w, len(ids) + 1)
    else:
        w += _INT32.pack(len(ids))
    w += struct.pack(f">{len(ids)}i", *ids)
    return bytes(w)


class TopicEntryEncoder:
    """Encodes topic entries of an all-topics answer directly from the MetadataCache, one
    struct pack per partition, byte for byte what the generic encoding of the Topic and Partition objects gives
    (tests/broker/test_metadata_encoded_topics.py compares them): building the Topic and
    Partition objects and encoding them generically cost some 50 µs a partition, so the first
    answer for 10,000 partitions held the loop for most of a second."""

    def __init__(self, cache: MetadataCache, listener: str, version: int) -> None:
        self.cache = cache
        self.version = version
        self.compact = version >= 9
        self.alive = {b.broker_id for b in cache.get_alive_brokers()}
        self.on_listener = {b.broker_id for b, _ in cache.alive_endpoints(listener)}
        self._tails: dict[tuple[tuple[int, ...], ...], bytes] = {}

    def _partition(self, state: PartitionState) -> bytes:
        """Kafka's ``ZkMetadataCache.getPartitionMetadata`` (as ``_partitions``), encoded."""
        version = self.version
        on_listener = self.on_listener
        replicas, isr = tuple(state.replicas), tuple(state.isr)
        if version == 0:
            replicas = tuple(b for b in replicas if b in on_listener)
            isr = tuple(b for b in isr if b in on_listener)
        leader = NO_LEADER
        if state.leader not in on_listener:
            if state.leader not in self.alive or version < 6:
                error = ErrorCode.LEADER_NOT_AVAILABLE.code
            else:
                error = ErrorCode.LISTENER_NOT_FOUND.code
        else:
            leader = state.leader
            if len(replicas) < len(state.replicas) or len(isr) < len(state.isr):
                error = ErrorCode.REPLICA_NOT_AVAILABLE.code
            else:
                error = 0
        if version >= 7:
            head = _PARTITION_HEAD_EPOCH.pack(error, state.partition, leader, state.leader_epoch)
        else:
            head = _PARTITION_HEAD.pack(error, state.partition, leader)
        return head + self._tail(replicas, isr, tuple(state.offline_replicas))

    def _tail(self, replicas: tuple[int, ...], isr: tuple[int, ...], offline: tuple[int, ...]) -> bytes:
        """The replica, ISR and offline-replica arrays and the tagged fields: the same few
        combinations for thousands of partitions, so encoded once each."""
        key = (replicas, isr, offline)
        tail = self._tails.get(key)
        if tail is None:
            compact = self.compact
            parts = [_int32_array(replicas, compact), _int32_array(isr, compact)]
            if self.version >= 5:
                parts.append(_int32_array(offline, compact))
            if compact:
                parts.append(b"\x00")  # no tagged fields
            tail = self._tails[key] = b"".join(parts)
        return tail

    def encode(self, t: TopicMetadata, authorized_operations: int) -> bytes:
        """The entry of topic ``t`` (error 0) with ``authorized_operations`` (v8+)."""
        version = self.version
        compact = self.compact
        w = bytearray(_INT16.pack(0))
        if compact:
            write_compact_string(w, t.name)
        else:
            write_string(w, t.name)
        if version >= 10:
            w += t.topic_id.bytes
        if version >= 1:
            w.append(1 if t.is_internal else 0)
        states = self.cache.partition_states(t.name)
        if compact:
            write_uvarint(w, len(states) + 1)
        else:
            w += _INT32.pack(len(states))
        w += b"".join([self._partition(state) for state in states])
        if version >= 8:
            w += _INT32.pack(authorized_operations)
        if compact:
            w.append(0)  # no tagged fields
        return bytes(w)


def _all_topics(ctx: RequestContext, include_ops: bool, encoder: TopicEntryEncoder) -> list[bytes]:
    """Every topic's encoded entry, re-encoded only for topics changed since (or after a
    broker change)."""
    cache = ctx.broker.metadata_cache
    version = ctx.api_version
    key = ("metadata-topics", version, ctx.listener, include_ops)
    entries = cache.derived.get(key)
    if entries is None:
        entries = cache.derived[key] = {}
    assert isinstance(entries, dict)
    out: list[bytes] = []
    for name in cache.topic_names():
        entry = entries.get(name)
        changed = cache.topic_version(name)
        if entry is None or entry[0] != changed:
            t = cache.get_topic(name)
            if t is None:
                continue
            ops_bits = ops.topic(ctx, name) if include_ops else ops.NOT_REQUESTED
            entry = entries[name] = (changed, encoder.encode(t, ops_bits))
        out.append(entry[1])
    if len(entries) > len(out):  # entries of topics deleted since: dropped, or churn grows them
        live = set(cache.topic_names())
        for stale in [name for name in entries if name not in live]:
            del entries[stale]
    return out


def _error_topic(name: str | None, error: ErrorCode, topic_id=ZERO_UUID) -> Topic:
    return Topic(
        error_code=error.code,
        name=name,
        topic_id=topic_id,
        is_internal=name in INTERNAL_TOPICS,
        partitions=[],
    )


def _denied(name: str | None, topic_id=ZERO_UUID) -> Topic:
    """A topic the principal may not describe: TOPIC_AUTHORIZATION_FAILED, never internal."""
    return Topic(
        error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
        name=name,
        topic_id=topic_id,
        is_internal=False,
        partitions=[],
    )


def _may_create(ctx: RequestContext, name: str) -> bool:
    """Auto-creation needs Create on the cluster or on the topic."""
    return ctx.authorize(AclOperation.CREATE, ResourceType.CLUSTER, log_denied=False) or ctx.authorize(
        AclOperation.CREATE, ResourceType.TOPIC, name
    )


def _cluster_operations(ctx: RequestContext, request: MetadataRequest) -> int:
    """v8-v10: the cluster's authorized operations, 0 without Describe on the cluster."""
    if ctx.api_version < 8 or not request.include_cluster_authorized_operations:
        return ops.NOT_REQUESTED
    return ops.cluster_if_describable(ctx)


def _ids_unsupported(version: int, request: MetadataRequest) -> bool:
    """v10-11 have the topic id field but not its use (KafkaApis refuses the request)."""
    if version not in (10, 11) or request.topics is None:
        return False
    return any(t.name is None or t.topic_id != ZERO_UUID for t in request.topics)


def _invalid_request(request: MetadataRequest) -> MetadataResponse:
    # MetadataRequest.getErrorResponse: "the response does not allow null, so convert to
    # empty string if necessary"; no brokers, no cluster id, no controller.
    return MetadataResponse(
        throttle_time_ms=0,
        topics=[
            Topic(
                error_code=ErrorCode.INVALID_REQUEST.code,
                name=t.name if t.name is not None else "",
                topic_id=t.topic_id,
                is_internal=False,
                partitions=[],
            )
            for t in request.topics
        ],
    )


def _auto_create(ctx: RequestContext, name: str, budget: list[int]) -> TopicMetadata | Topic:
    """Start creating a missing topic for a Metadata request: LEADER_NOT_AVAILABLE until it
    is published (or the error topic; the metadata of a topic that exists after all)."""
    broker = ctx.broker
    if name in INTERNAL_TOPICS:
        return _error_topic(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    try:
        validate_topic_name(name)
        # max.partitions.per.request bounds the creations of one request, yet the first one
        # always goes: a topic larger than the bound would otherwise never be auto-created.
        allowance = budget[0] if budget[0] < broker.config["max.partitions.per.request"] else sys.maxsize
        error, taken = broker.topic_admin.begin_auto_create(name, allowance)
        budget[0] -= taken
        return _error_topic(name, error)
    except KafkaError as exc:
        existing = broker.metadata_cache.get_topic(name)
        if exc.error == ErrorCode.TOPIC_ALREADY_EXISTS and existing is not None:
            return existing
        return _error_topic(name, exc.error)


@handler(ApiKey.METADATA, versions=(0, 12))
async def handle_metadata(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    broker = ctx.broker
    cache = broker.metadata_cache
    version = ctx.api_version
    if _ids_unsupported(version, request):
        return _invalid_request(request)
    if not cache.has_cluster_view:
        # A broker just started in ZooKeeper mode: wait (a little) for the controller's first
        # UpdateMetadata, so a client's first answer names the controller and the brokers
        # (librdkafka does not ask again for a controller before its refresh interval).
        await cache.wait_until(lambda: cache.has_cluster_view, FIRST_CLUSTER_VIEW_WAIT_S)
    include_ops = version >= 8 and request.include_topic_authorized_operations
    encoder = TopicEntryEncoder(cache, ctx.listener, version)
    topics: list[Topic | bytes] = []
    if request.topics is None or (version == 0 and not request.topics):
        if broker.authorizer.enabled:
            # Per principal: only the topics it may describe (and its own authorized operations),
            # so not from the shared encoded entries.
            for name in cache.topic_names():
                t = cache.get_topic(name)
                if t is not None and ctx.authorize(
                    AclOperation.DESCRIBE, ResourceType.TOPIC, name, log_denied=False
                ):
                    topics.append(_topic_entry(ctx, encoder, include_ops, t))
        else:
            topics.extend(_all_topics(ctx, include_ops, encoder))
    else:
        topics = await _requested_topics(ctx, request, encoder, include_ops)

    return EncodedTopicsResponse(
        topic_entries=topics,
        throttle_time_ms=0,
        brokers=[
            MetadataResponse.MetadataResponseBroker(
                node_id=b.broker_id, host=ep.host, port=ep.port, rack=b.rack
            )
            for b, ep in cache.alive_endpoints(ctx.listener)
        ],
        cluster_id=cache.cluster_id,
        controller_id=cache.controller_id,
        cluster_authorized_operations=_cluster_operations(ctx, request),
    )


def _topic_entry(
    ctx: RequestContext, encoder: TopicEntryEncoder, include_ops: bool, t: TopicMetadata
) -> bytes:
    return encoder.encode(t, ops.topic(ctx, t.name) if include_ops else ops.NOT_REQUESTED)


def _describable(ctx: RequestContext, include_ops: bool, t: Topic) -> Topic:
    # KafkaApis.handleTopicMetadataRequest sets the authorized operations on every entry of
    # getTopicMetadata, also a describable topic that does not exist (or is being created);
    # only the unknown topic ids and the topics it may not describe (or create) keep MIN_VALUE.
    if include_ops:
        t.topic_authorized_operations = ops.topic(ctx, t.name)
    return t


async def _requested_topics(
    ctx: RequestContext, request: MetadataRequest, encoder: TopicEntryEncoder, include_ops: bool
) -> list[Topic | bytes]:
    """The entries of the topics a request names (by name, or by id from v12), in its order,
    each once; missing ones auto-created where allowed."""
    broker = ctx.broker
    cfg = broker.config
    cache = broker.metadata_cache
    allow_auto = cfg["auto.create.topics.enable"] and (
        ctx.api_version < 4 or request.allow_auto_topic_creation
    )
    topics: list[Topic | bytes] = []
    seen: set[str] = set()
    seen_ids: set[uuid.UUID] = set()
    budget = [cfg["max.partitions.per.request"]]
    for i, req_topic in enumerate(request.topics):
        if i and i % SLICE_TOPICS == 0:
            await asyncio.sleep(0)  # let other clients' requests run between slices
        name = req_topic.name
        if name is None:
            if req_topic.topic_id in seen_ids:  # handleTopicMetadataRequest: a set of ids
                continue
            seen_ids.add(req_topic.topic_id)
            t = cache.get_topic_by_id(req_topic.topic_id)
            if t is None:
                topics.append(_error_topic(None, ErrorCode.UNKNOWN_TOPIC_ID, req_topic.topic_id))
            elif not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name):
                # topic ids are not secret: the id is echoed, the name is not
                topics.append(_denied(None, req_topic.topic_id))
            else:
                topics.append(_topic_entry(ctx, encoder, include_ops, t))
            continue
        if name in seen:
            continue
        seen.add(name)
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, name):
            topics.append(_denied(name))  # whether it exists is not disclosed
            continue
        t = cache.get_topic(name)
        if t is None and not allow_auto and broker.topic_admin.is_busy(name):
            topics.append(_describable(ctx, include_ops, _error_topic(name, ErrorCode.LEADER_NOT_AVAILABLE)))
            continue
        if t is None and allow_auto and not _may_create(ctx, name):
            topics.append(_error_topic(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED))
            continue
        if t is None and allow_auto:
            created = _auto_create(ctx, name, budget)
            if isinstance(created, Topic):
                topics.append(_describable(ctx, include_ops, created))
                continue
            t = created
        if t is None:
            # KafkaApis.getTopicMetadata: a missing topic not auto-created is checked with
            # Topic.validate first, so a name that can never exist is not "unknown".
            try:
                validate_topic_name(name)
                error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            except KafkaError as exc:
                error = exc.error
            topics.append(_describable(ctx, include_ops, _error_topic(name, error)))
        else:
            topics.append(_topic_entry(ctx, encoder, include_ops, t))
    return topics
