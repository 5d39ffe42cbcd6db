"""AddOffsetsToTxn (key 25), versions 0-4.

Behaviour (Kafka's ``KafkaApis.handleAddOffsetsToTxnRequest``): the group's partition
of ``__consumer_offsets`` is added to the transaction, exactly as AddPartitionsToTxn
adds a partition (same errors: INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
CONCURRENT_TRANSACTIONS, NOT_COORDINATOR, ...), so that the transaction's marker also
lands there and the group's TxnOffsetCommits apply on commit.

Authorization (Kafka's ``handleAddOffsetsToTxnRequest``): Write on the transactional id
(else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then Read on the group (else
GROUP_AUTHORIZATION_FAILED).

Version notes: v2 adds PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before); v3 is
flexible; v4 may answer TRANSACTION_ABORTABLE (never sent here).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, ApiKey


@handler(ApiKey.ADD_OFFSETS_TO_TXN, versions=(0, 4))
async def handle_add_offsets_to_txn(
    ctx: RequestContext, request: AddOffsetsToTxnRequest
) -> AddOffsetsToTxnResponse:
    if not ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return AddOffsetsToTxnResponse(
            throttle_time_ms=0, error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
        )
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return AddOffsetsToTxnResponse(
            throttle_time_ms=0, error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED.code
        )
    groups = ctx.broker.groups
    offsets_partition = (groups.topic_name, groups.partition_for(request.group_id))
    error = await ctx.broker.transactions.add_partitions(
        request.transactional_id, request.producer_id, request.producer_epoch, [offsets_partition]
    )
    if error is ErrorCode.PRODUCER_FENCED and ctx.api_version < 2:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return AddOffsetsToTxnResponse(throttle_time_ms=0, error_code=error.code)
