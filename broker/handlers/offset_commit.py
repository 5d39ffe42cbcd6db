"""OffsetCommit (key 8), versions 2-9.

Behaviour: Kafka's ``KafkaApis.handleOffsetCommitRequest`` and the classic
group's commit rules (``coordinator.groups``):
- A partition that does not exist: UNKNOWN_TOPIC_OR_PARTITION (only those;
  if no partition exists the group is not even looked at, as Kafka).
- Group-level errors go to every partition that reached the coordinator (unknown and
  unauthorized ones keep their own error, as Kafka merges the answers): INVALID_GROUP_ID
  (a null id; "" is a valid group), COORDINATOR_NOT_AVAILABLE,
  COORDINATOR_LOAD_IN_PROGRESS, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
  FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS (group completing a rebalance),
  and for an unknown group with a generation >= 0: ILLEGAL_GENERATION in every version
  (the classic ``GroupCoordinator``; not Kafka 4's GROUP_ID_NOT_FOUND from v9).
- Members commit with their generation; generation -1 with an empty member id
  commits to a group without members (admin client, manual assignment), and
  creates a "simple" group if there is none.
- A metadata string longer than ``offset.metadata.max.bytes``:
  OFFSET_METADATA_TOO_LARGE for that partition only.
- The offsets are written to ``__consumer_offsets`` (one batch, Kafka's
  OffsetCommitKey/OffsetCommitValue records) before the answer, so they
  survive a restart; with ``offsets.commit.required.acks=-1`` (the default)
  the answer waits until every in-sync replica has them (up to
  ``offsets.commit.timeout.ms``); a failed write answers the mapped storage
  error (Kafka 3.9's ``maybeConvertOffsetCommitError``: COORDINATOR_NOT_AVAILABLE
  for NOT_ENOUGH_REPLICAS(_AFTER_APPEND), NOT_COORDINATOR,
  INVALID_COMMIT_OFFSET_SIZE; a timeout stays REQUEST_TIMED_OUT).
- While its write waits for the in-sync replicas, the commit is staged
  (``GroupMetadata.prepareOffsetCommit``): its partitions do not expire, its
  group is not removed, OffsetFetch require_stable answers
  UNSTABLE_OFFSET_COMMIT, and OffsetDelete or a topic deletion meanwhile keeps
  it out of the cache.

Version notes: v2-4 carry a retention time (-1: the broker's
``offsets.retention.minutes``; else the offset expires that long after the
commit, OffsetCommitValue v1); v3 adds throttle time; v5 drops the retention
time; v6 adds the leader epoch (stored and returned by OffsetFetch); v7 adds
group.instance.id; v8 is flexible; v9 is the KIP-848 version (classic groups
only here).

Not implemented: v0-1 (removed in Kafka 4), v10 (topic ids); KIP-848 member
epochs.

Authorization: Read on the group (else every partition is GROUP_AUTHORIZATION_FAILED) and
Read on each topic (else its partitions are TOPIC_AUTHORIZATION_FAILED), as KafkaApis.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Protocol

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.groups import OffsetCommitEntry
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, OffsetCommitRequest, OffsetCommitResponse


@handler(ApiKey.OFFSET_COMMIT, versions=(2, 9))
def handle_offset_commit(
    ctx: RequestContext, request: OffsetCommitRequest
) -> OffsetCommitResponse | Awaitable[OffsetCommitResponse]:
    version = ctx.api_version
    slots, entries = commit_entries(ctx, request.topics, with_leader_epoch=version >= 6)
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        slots, entries = [[ErrorCode.GROUP_AUTHORIZATION_FAILED] * len(row) for row in slots], []
    if not entries:
        return _response(request, slots)
    group_error: ErrorCode | None = None
    try:
        results = ctx.broker.groups.commit_offsets(
            request.group_id,
            request.member_id,
            request.group_instance_id,
            request.generation_id_or_member_epoch,
            entries,
            retention_ms=request.retention_time_ms if version <= 4 else -1,
        )
    except KafkaError as exc:
        group_error = exc.error
    if group_error is not None:
        # Only the partitions that went to the coordinator take its error: unknown or
        # unauthorized ones keep their own (KafkaApis.handleOffsetCommitRequest merges them).
        return _response(request, [[group_error if e is None else e for e in row] for row in slots])
    if isinstance(results, list):
        return _response(request, fill_slots(slots, results))
    return _respond_when_stored(request, slots, results)


async def _respond_when_stored(
    request: OffsetCommitRequest, slots: list[list[ErrorCode | None]], pending: Awaitable[list[ErrorCode]]
) -> OffsetCommitResponse:
    return _response(request, fill_slots(slots, await pending))


class _CommittedPartition(Protocol):
    partition_index: int
    committed_offset: int
    committed_leader_epoch: int
    committed_metadata: str | None


class _CommittedTopic(Protocol):
    name: str

    @property
    def partitions(self) -> Sequence[_CommittedPartition]: ...


def commit_entries(
    ctx: RequestContext, topics: Sequence[_CommittedTopic], *, with_leader_epoch: bool
) -> tuple[list[list[ErrorCode | None]], list[OffsetCommitEntry]]:
    """The checks OffsetCommit and TxnOffsetCommit make per partition: one slot per requested
    partition, in request order (TOPIC_AUTHORIZATION_FAILED without Read on the topic,
    UNKNOWN_TOPIC_OR_PARTITION when the metadata cache does not know it, as KafkaApis'
    ``metadataCache.contains``; None: it goes to the coordinator), and the entries to commit
    (leader epoch -1 when the version has none)."""
    cache = ctx.broker.metadata_cache
    readable = ctx.authorized(AclOperation.READ, ResourceType.TOPIC, (t.name for t in topics))
    slots: list[list[ErrorCode | None]] = []
    entries: list[OffsetCommitEntry] = []
    for topic in topics:
        row: list[ErrorCode | None] = []
        for p in topic.partitions:
            if topic.name not in readable:
                row.append(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                continue
            if cache.partition_state(topic.name, p.partition_index) is None:
                row.append(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                continue
            row.append(None)
            entries.append(
                OffsetCommitEntry(
                    topic.name,
                    p.partition_index,
                    p.committed_offset,
                    p.committed_leader_epoch if with_leader_epoch else -1,
                    p.committed_metadata,
                )
            )
        slots.append(row)
    return slots, entries


def fill_slots(slots: list[list[ErrorCode | None]], results: list[ErrorCode]) -> list[list[ErrorCode | None]]:
    """``slots`` with each None replaced by the coordinator's result, in order."""
    it = iter(results)
    return [[next(it) if e is None else e for e in row] for row in slots]


def _response(request: OffsetCommitRequest, slots: list[list[ErrorCode | None]]) -> OffsetCommitResponse:
    return OffsetCommitResponse(
        topics=[
            OffsetCommitResponse.OffsetCommitResponseTopic(
                name=topic.name,
                partitions=[
                    OffsetCommitResponse.OffsetCommitResponsePartition(
                        partition_index=p.partition_index, error_code=error.code if error else 0
                    )
                    for p, error in zip(topic.partitions, row, strict=True)
                ],
            )
            for topic, row in zip(request.topics, slots, strict=True)
        ]
    )
