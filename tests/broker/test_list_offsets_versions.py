"""ListOffsets answers by request version, as Kafka's ReplicaManager.fetchOffset: OFFSET_NOT_AVAILABLE
becomes LEADER_NOT_AVAILABLE before v5; special timestamps a version does not know are UNSUPPORTED_VERSION."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from broker.handlers import RequestContext
from broker.handlers.list_offsets import handle_list_offsets
from coordinator.acl_authorizer import AllowAll
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ListOffsetsRequest
from storage.log_types import FetchIsolation, TimestampAndOffset


class FakeReplicaManager:
    def __init__(self, answer=None, error: ErrorCode | None = None) -> None:
        self.answer = answer or TimestampAndOffset(1000, 7, 0)
        self.error = error
        self.calls: list[int] = []
        self.isolations: list[tuple[FetchIsolation, bool]] = []

    def fetch_offset_for_timestamp(
        self, topic, partition, timestamp, *, isolation, current_leader_epoch, fetch_only_from_leader=True
    ):
        self.calls.append(timestamp)
        self.isolations.append((isolation, fetch_only_from_leader))
        if self.error is not None:
            raise KafkaError(self.error, "lagging high watermark")
        return self.answer


def ctx(rm, version: int) -> RequestContext:
    broker = SimpleNamespace(authorizer=AllowAll(), replica_manager=rm, config={})
    return RequestContext(broker, 2, version, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]


def request(timestamp: int, replica_id: int = -1, isolation_level: int = 0) -> ListOffsetsRequest:
    return ListOffsetsRequest(
        replica_id=replica_id,
        isolation_level=isolation_level,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name="t",
                partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=timestamp)],
            )
        ],
    )


def only_partition(resp):
    [t] = resp.topics
    [p] = t.partitions
    return p


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_offset_not_available_is_leader_not_available_before_v5(version):
    # Kafka ReplicaManager.fetchOffset: "Only V5 and newer ListOffset calls should get
    # OFFSET_NOT_AVAILABLE"; older versions get LEADER_NOT_AVAILABLE (aiokafka sends v0-3).
    rm = FakeReplicaManager(error=ErrorCode.OFFSET_NOT_AVAILABLE)
    p = only_partition(handle_list_offsets(ctx(rm, version), request(-1)))
    assert p.error_code == ErrorCode.LEADER_NOT_AVAILABLE.code


def test_offset_not_available_is_kept_from_v5():
    rm = FakeReplicaManager(error=ErrorCode.OFFSET_NOT_AVAILABLE)
    p = only_partition(handle_list_offsets(ctx(rm, 5), request(-1)))
    assert p.error_code == ErrorCode.OFFSET_NOT_AVAILABLE.code


@pytest.mark.parametrize(
    ("timestamp", "version"),
    [
        (-3, 6),  # MAX_TIMESTAMP needs v7 (KIP-734)
        (-4, 7),  # EARLIEST_LOCAL_TIMESTAMP needs v8 (KIP-405)
        (-5, 8),  # LATEST_TIERED_TIMESTAMP needs v9 (KIP-1005)
        (-7, 8),  # no such special timestamp
    ],
)
def test_special_timestamp_above_the_request_version_is_unsupported_version(timestamp, version):
    # Kafka ReplicaManager.fetchOffset / isListOffsetsTimestampUnsupported
    # (timestampMinSupportedVersion): UNSUPPORTED_VERSION for that partition, nothing looked up.
    rm = FakeReplicaManager()
    p = only_partition(handle_list_offsets(ctx(rm, version), request(timestamp)))
    assert p.error_code == ErrorCode.UNSUPPORTED_VERSION.code
    assert (p.offset, p.timestamp) == (-1, -1)


@pytest.mark.parametrize(
    ("replica_id", "isolation_level", "expected"),
    [
        (-1, 0, (FetchIsolation.HIGH_WATERMARK, True)),
        (-1, 1, (FetchIsolation.TXN_COMMITTED, True)),
        (3, 1, (FetchIsolation.LOG_END, True)),  # a replica: no isolation level, leader only
        (-2, 1, (FetchIsolation.LOG_END, False)),  # debugging: no isolation, followers too
    ],
)
def test_only_a_consumers_request_has_an_isolation_level(replica_id, isolation_level, expected):
    # KafkaApis.handleListOffsetRequest: isolationLevel only when replicaId is
    # CONSUMER_REPLICA_ID; fetchOnlyFromLeader unless it is DEBUGGING_REPLICA_ID.
    rm = FakeReplicaManager()
    handle_list_offsets(ctx(rm, 5), request(-1, replica_id, isolation_level))
    assert rm.isolations == [expected]
