"""OffsetFetch (key 9), versions 1-8.

Behaviour: Kafka's ``KafkaApis.handleOffsetFetchRequest`` with the classic
group's rules (``coordinator.groups``): the committed offset, leader epoch and
metadata of each requested partition, whatever the group's state (a group
may only store offsets). A partition without a committed offset, or of an
unknown group, answers offset -1, epoch -1, metadata "" and no error. A null
topic list (v2+) fetches every offset the group has.
Group-level errors: INVALID_GROUP_ID (a null id; "" is valid),
COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS.

Version notes: v1 has no top-level error: a group error is put on each
requested partition (``OffsetFetchRequest.getErrorResponse``); v2 adds the
top-level error and null topics; v3 adds throttle time; v5 the leader epoch;
v6 is flexible; v7 adds require_stable (a partition with a plain commit still
being written, or a transactional commit awaiting its marker, answers
UNSTABLE_OFFSET_COMMIT, retried by the client: Kafka's
``GroupMetadata.hasPendingOffsetCommitsForTopicPartition``); v8 fetches several
groups, each with its own error.

Not implemented: v0 (ZooKeeper offsets, removed in Kafka 4), v9-10 (KIP-848
member epochs, topic ids).

Authorization: Describe on the group (else GROUP_AUTHORIZATION_FAILED: the group's error, or
every requested partition's before v2) and on each topic: named partitions of other topics
answer TOPIC_AUTHORIZATION_FAILED, and fetching all of a group's offsets leaves them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.group_offsets import INVALID_OFFSET, NO_LEADER_EPOCH, NO_METADATA
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, OffsetFetchRequest, OffsetFetchResponse

# (topic, [(partition, offset, leader epoch, metadata, error)]) in request order
TopicOffsets = list[tuple[str, list[tuple[int, int, int, str, ErrorCode]]]]


def _fetch(
    ctx: RequestContext, group_id: str, topics: Sequence[Any] | None, require_stable: bool
) -> tuple[ErrorCode, TopicOffsets]:
    groups = ctx.broker.groups
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED, []
    named = [] if topics is None else [t.name for t in topics]
    describable = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, named)
    wanted = None
    if topics is not None:
        wanted = [(t.name, p) for t in topics if t.name in describable for p in t.partition_indexes]
    try:
        found = groups.fetch_offsets(group_id, wanted, require_stable=require_stable)
    except KafkaError as exc:
        return exc.error, []
    if topics is None:  # all the group's offsets: only those of topics it may describe
        found = [f for f in found if ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, f[0])]
    by_topic: dict[str, list[tuple[int, int, int, str, ErrorCode]]] = {}
    for t in topics or ():  # KafkaApis' UNAUTHORIZED_PARTITION
        if t.name not in describable:
            by_topic[t.name] = [
                (p, INVALID_OFFSET, NO_LEADER_EPOCH, NO_METADATA, ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                for p in t.partition_indexes
            ]
    for topic, partition, om in found:
        row = by_topic.setdefault(topic, [])
        if require_stable and groups.has_pending_offset_commit(group_id, topic, partition):
            # A commit of it is being written or awaits its marker: the stored offset may be
            # about to change (GroupMetadataManager.getOffsets' UNSTABLE_OFFSET_COMMIT).
            row.append(
                (partition, INVALID_OFFSET, NO_LEADER_EPOCH, NO_METADATA, ErrorCode.UNSTABLE_OFFSET_COMMIT)
            )
        elif om is None:
            row.append((partition, INVALID_OFFSET, NO_LEADER_EPOCH, NO_METADATA, ErrorCode.NONE))
        else:
            row.append((partition, om.committed_offset, om.leader_epoch, om.metadata, ErrorCode.NONE))
    return ErrorCode.NONE, list(by_topic.items())


@handler(ApiKey.OFFSET_FETCH, versions=(1, 8))
def handle_offset_fetch(ctx: RequestContext, request: OffsetFetchRequest) -> OffsetFetchResponse:
    version = ctx.api_version
    if version >= 8:
        out = []
        for g in request.groups:
            error, topics = _fetch(ctx, g.group_id, g.topics, request.require_stable)
            out.append(
                OffsetFetchResponse.OffsetFetchResponseGroup(
                    group_id=g.group_id,
                    error_code=error.code,
                    topics=[
                        OffsetFetchResponse.OffsetFetchResponseTopics(
                            name=name,
                            partitions=[
                                OffsetFetchResponse.OffsetFetchResponsePartitions(
                                    partition_index=p,
                                    committed_offset=off,
                                    committed_leader_epoch=epoch,
                                    metadata=md,
                                    error_code=e.code,
                                )
                                for p, off, epoch, md, e in rows
                            ],
                        )
                        for name, rows in topics
                    ],
                )
            )
        return OffsetFetchResponse(groups=out)
    error, topics = _fetch(ctx, request.group_id, request.topics, version >= 7 and request.require_stable)
    if error is not ErrorCode.NONE and version < 2 and request.topics is not None:
        # No top-level error before v2: every requested partition carries it.
        topics = [
            (t.name, [(p, INVALID_OFFSET, NO_LEADER_EPOCH, NO_METADATA, error) for p in t.partition_indexes])
            for t in request.topics
        ]
    return OffsetFetchResponse(
        error_code=error.code,
        topics=[
            OffsetFetchResponse.OffsetFetchResponseTopic(
                name=name,
                partitions=[
                    OffsetFetchResponse.OffsetFetchResponsePartition(
                        partition_index=p,
                        committed_offset=off,
                        committed_leader_epoch=epoch,
                        metadata=md,
                        error_code=e.code,
                    )
                    for p, off, epoch, md, e in rows
                ],
            )
            for name, rows in topics
        ],
    )
