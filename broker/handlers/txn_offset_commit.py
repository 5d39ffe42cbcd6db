"""TxnOffsetCommit (key 28), versions 0-4.

Behaviour (Kafka's ``KafkaApis.handleTxnOffsetCommitRequest`` with the classic group
coordinator's ``handleTxnCommitOffsets``): the offsets are written to the group's
partition of ``__consumer_offsets`` as a transactional batch of the producer and held
pending; they become the group's committed offsets when the transaction's COMMIT marker
lands there, and are dropped on ABORT. The write waits for the ISR (acks=-1, Kafka's
``offsets.commit.required.acks``) (``coordinator.group_txn_offsets``). The producer
must have added the group with AddOffsetsToTxn first (the client always does): as Kafka
3.6+ (KIP-890 part 1) the write is verified with the transaction coordinator like a
transactional Produce, INVALID_TXN_STATE if the group's partition is not in the producer's
ongoing transaction, INVALID_PRODUCER_EPOCH if the producer was fenced.

Errors: UNKNOWN_TOPIC_OR_PARTITION for partitions that do not exist; group-level errors
for every partition (INVALID_GROUP_ID, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
COORDINATOR_NOT_AVAILABLE, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION);
OFFSET_METADATA_TOO_LARGE per partition; a failed write answers the mapped storage
error.

Authorization (Kafka's ``handleTxnOffsetCommitRequest``): Write on the transactional id
(else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition), Read on the group (else
GROUP_AUTHORIZATION_FAILED for every partition), then Read on each topic (else
TOPIC_AUTHORIZATION_FAILED for its partitions; the others are committed).

Version notes: v2 adds the leader epoch; v3 the member id, group instance id and
generation (v0-2 commit as generation -1); v4 may answer TRANSACTION_ABORTABLE. v5
(transaction version 2) is not served.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from broker.handlers.offset_commit import commit_entries, fill_slots
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, TxnOffsetCommitRequest, TxnOffsetCommitResponse

R = TxnOffsetCommitResponse


@handler(ApiKey.TXN_OFFSET_COMMIT, versions=(0, 4))
async def handle_txn_offset_commit(
    ctx: RequestContext, request: TxnOffsetCommitRequest
) -> TxnOffsetCommitResponse:
    version = ctx.api_version
    refusal = _refusal(ctx, request)
    if refusal is not None:
        return _answer(request, [[refusal] * len(t.partitions) for t in request.topics])
    slots, entries = commit_entries(ctx, request.topics, with_leader_epoch=version >= 2)
    if entries:
        try:
            results = await ctx.broker.groups.commit_txn_offsets(
                request.group_id,
                request.producer_id,
                request.producer_epoch,
                request.member_id if version >= 3 else "",
                request.group_instance_id if version >= 3 else None,
                request.generation_id if version >= 3 else -1,
                entries,
                transactional_id=request.transactional_id,
                api_version=version,
            )
            slots = fill_slots(slots, results)
        except KafkaError as exc:
            # a group-level error is every attempted partition's; refused ones keep theirs
            slots = [[exc.error if e is None else e for e in row] for row in slots]
    return _answer(request, slots)


def _refusal(ctx: RequestContext, request: TxnOffsetCommitRequest) -> ErrorCode | None:
    """The error answered for every partition when the transactional id or group is refused
    (Kafka skips the producer id check: Write on the transactional id implies it)."""
    if not ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return ErrorCode.GROUP_AUTHORIZATION_FAILED
    return None


def _answer(request: TxnOffsetCommitRequest, slots: list[list[ErrorCode | None]]) -> TxnOffsetCommitResponse:
    return R(
        throttle_time_ms=0,
        topics=[
            R.TxnOffsetCommitResponseTopic(
                name=topic.name,
                partitions=[
                    R.TxnOffsetCommitResponsePartition(
                        partition_index=p.partition_index, error_code=e.code if e else 0
                    )
                    for p, e in zip(topic.partitions, row, strict=True)
                ],
            )
            for topic, row in zip(request.topics, slots, strict=True)
        ],
    )
