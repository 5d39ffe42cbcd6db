"""Produce and Fetch handlers over a fake ReplicaManager: what they ask it, how they answer."""

from __future__ import annotations

import asyncio
import inspect
from types import SimpleNamespace

import pytest

from broker.fetch_params import FetchPartitionData
from broker.fetch_session import FetchManager, FetchSessionCache
from broker.handlers import CloseConnection, RequestContext
from broker.handlers.fetch import handle_fetch
from broker.handlers.produce import handle_produce
from broker.replica_manager import FetchIsolation, PartitionAppendResult
from coordinator.acl_authorizer import AllowAll
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import FetchRequest, ProduceRequest
from storage.log_types import LogAppendInfo
from storage.producer_state import AppendOrigin
from storage.record_scan import RecordValidationError


class FakeReplicaManager:
    def __init__(self, answer) -> None:
        self.answer = answer
        self.calls: list[tuple] = []

    def append_records(self, entries, **kw):
        self.calls.append((list(entries), kw))
        return self.answer

    def fetch_messages(self, params, infos):
        self.calls.append((params, list(infos)))
        return self.answer

    def get_log_config(self, topic, partition):  # Fetch v4-v9 ask for compression.type
        return None


def ctx(rm: FakeReplicaManager, version: int, **config) -> RequestContext:
    broker = SimpleNamespace(
        authorizer=AllowAll(),
        replica_manager=rm,
        config={"fetch.max.bytes": 1000, **config},
        fetch_manager=FetchManager(FetchSessionCache(10, lambda: 0)),
    )
    return RequestContext(broker, 0, version, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]


def produce_request(acks: int = -1) -> ProduceRequest:
    return ProduceRequest(
        acks=acks,
        timeout_ms=1234,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name="t",
                partition_data=[
                    ProduceRequest.PartitionProduceData(index=1, records=b"one"),
                    ProduceRequest.PartitionProduceData(index=0, records=b"two"),
                ],
            )
        ],
    )


OK = PartitionAppendResult(LogAppendInfo(40, 42, -1, 5, 3, 100))
BAD = PartitionAppendResult(
    None, RecordValidationError(ErrorCode.INVALID_TIMESTAMP, "bad stamp", [(1, "record 1 is late")])
)


def test_produce_hands_every_partition_to_the_replica_manager_and_answers_in_order():
    rm = FakeReplicaManager({("t", 1): OK, ("t", 0): BAD})
    resp = handle_produce(ctx(rm, 9), produce_request())
    [(entries, kw)] = rm.calls
    assert entries == [(("t", 1), b"one"), (("t", 0), b"two")]
    assert kw == {
        "required_acks": -1,
        "origin": AppendOrigin.CLIENT,
        "timeout_ms": 1234,
        "produce_version": 9,
        "transactional_id": None,
    }
    ok, bad = resp.responses[0].partition_responses
    assert (ok.index, ok.error_code, ok.base_offset, ok.log_append_time_ms, ok.log_start_offset) == (
        1,
        0,
        40,
        -1,
        5,
    )
    assert (bad.index, bad.error_code, bad.base_offset) == (0, ErrorCode.INVALID_TIMESTAMP.code, -1)
    assert bad.error_message == "bad stamp"
    assert [(e.batch_index, e.batch_index_error_message) for e in bad.record_errors] == [
        (1, "record 1 is late")
    ]


def test_produce_acks_zero_answers_nothing_or_closes_on_failure():
    assert (
        handle_produce(ctx(FakeReplicaManager({("t", 1): OK, ("t", 0): OK}), 9), produce_request(0)) is None
    )
    with pytest.raises(CloseConnection, match="INVALID_TIMESTAMP"):
        handle_produce(ctx(FakeReplicaManager({("t", 1): OK, ("t", 0): BAD}), 9), produce_request(0))


def test_produce_answers_later_when_the_replica_manager_must_wait():
    async def scenario():
        later: asyncio.Future = asyncio.get_running_loop().create_future()
        out = handle_produce(ctx(FakeReplicaManager(later), 9), produce_request())
        assert inspect.isawaitable(out)
        task = asyncio.ensure_future(out)
        await asyncio.sleep(0)
        assert not task.done()
        later.set_result(
            {("t", 1): OK, ("t", 0): PartitionAppendResult(None, KafkaError(ErrorCode.REQUEST_TIMED_OUT))}
        )
        resp = await task
        assert [p.error_code for p in resp.responses[0].partition_responses] == [
            0,
            ErrorCode.REQUEST_TIMED_OUT.code,
        ]

    asyncio.run(scenario())


def fetch_request(isolation: int = 0, max_bytes: int = 5000) -> FetchRequest:
    return FetchRequest(
        max_wait_ms=500,
        min_bytes=7,
        max_bytes=max_bytes,
        isolation_level=isolation,
        session_id=0,
        session_epoch=-1,
        topics=[
            FetchRequest.FetchTopic(
                topic="t",
                partitions=[
                    FetchRequest.FetchPartition(
                        partition=0,
                        fetch_offset=10,
                        partition_max_bytes=300,
                        current_leader_epoch=4,
                        last_fetched_epoch=3,
                    ),
                    FetchRequest.FetchPartition(partition=1, fetch_offset=99, partition_max_bytes=200),
                ],
            )
        ],
    )


FETCHED = [
    FetchPartitionData(ErrorCode.NONE, 20, 20, 0, b"batches", (2, 8)),
    FetchPartitionData(ErrorCode.OFFSET_OUT_OF_RANGE, 20, 20, 0),
]


def test_fetch_asks_the_replica_manager_with_the_request_settings():
    rm = FakeReplicaManager(FETCHED)
    handle_fetch(ctx(rm, 12), fetch_request(isolation=1))
    [(params, infos)] = rm.calls
    assert (params.max_wait_ms, params.min_bytes, params.max_bytes) == (500, 7, 1000)  # fetch.max.bytes caps
    assert params.isolation is FetchIsolation.TXN_COMMITTED
    assert [
        (k, i.fetch_offset, i.max_bytes, i.current_leader_epoch, i.last_fetched_epoch) for k, i in infos
    ] == [
        (("t", 0), 10, 300, 4, 3),
        (("t", 1), 99, 200, -1, -1),
    ]
    rm = FakeReplicaManager(FETCHED)
    handle_fetch(ctx(rm, 8), fetch_request(isolation=0, max_bytes=600))
    [(params, infos)] = rm.calls
    assert params.isolation is FetchIsolation.HIGH_WATERMARK and params.max_bytes == 600
    assert infos[0][1].current_leader_epoch == -1 and infos[0][1].last_fetched_epoch == -1  # below v9 / v12
    # FetchRequest.optionalEpoch: a negative current leader epoch is "not given" in a Fetch (the
    # partition does not fence it), unlike OffsetForLeaderEpoch and ListOffsets
    request = fetch_request()
    request.topics[0].partitions[0].current_leader_epoch = -2
    rm = FakeReplicaManager(FETCHED)
    handle_fetch(ctx(rm, 12), request)
    assert rm.calls[0][1][0][1].current_leader_epoch == -1


def test_fetch_errors_carry_empty_records_and_data_carries_its_offsets():
    resp = handle_fetch(ctx(FakeReplicaManager(FETCHED), 12), fetch_request(isolation=1))
    data, error = resp.responses[0].partitions
    assert (data.error_code, data.high_watermark, bytes(data.records)) == (0, 20, b"batches")
    assert data.aborted_transactions == []  # read_committed: a (still empty) list
    assert (data.diverging_epoch.epoch, data.diverging_epoch.end_offset) == (2, 8)
    assert error.error_code == ErrorCode.OFFSET_OUT_OF_RANGE.code
    assert error.records is not None and len(error.records) == 0
    assert error.high_watermark == 20
    unc = handle_fetch(ctx(FakeReplicaManager(FETCHED), 12), fetch_request(isolation=0))
    assert unc.responses[0].partitions[0].aborted_transactions is None  # read_uncommitted: null, as Kafka
    # the response encodes (an empty record set is length 0, not -1)
    assert bytes(resp.encode(12))


def test_fetch_answers_later_and_sessions_are_refused_before_any_read():
    async def scenario():
        later: asyncio.Future = asyncio.get_running_loop().create_future()
        out = handle_fetch(ctx(FakeReplicaManager(later), 12), fetch_request())
        assert inspect.isawaitable(out)
        later.set_result(FETCHED)
        resp = await out
        assert [p.partition_index for p in resp.responses[0].partitions] == [0, 1]

    asyncio.run(scenario())
    rm = FakeReplicaManager(FETCHED)
    req = fetch_request()
    req.session_id = 5
    req.session_epoch = 1
    assert handle_fetch(ctx(rm, 12), req).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code
    assert rm.calls == []
