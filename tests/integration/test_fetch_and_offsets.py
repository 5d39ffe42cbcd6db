"""Fetch, ListOffsets and OffsetForLeaderEpoch on the wire (issue 5, points 1-3).

Batches are written with our own encoder over a raw socket so every test knows
exactly which offsets, timestamps and sizes are in the log; real clients then
check ListOffsets by timestamp the way users call it.
"""

from __future__ import annotations

import threading
import time

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateTopicsRequest,
    FetchRequest,
    ListOffsetsRequest,
    OffsetForLeaderEpochRequest,
    ProduceRequest,
)
from protocol.records import build_batch, decode_all
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

# Recent timestamps: older ones would be (rightly) deleted by the 7-day retention.ms
# while the tests run, since retention follows each segment's largest timestamp.
BASE_TS = int(time.time() * 1000) - 3_600_000


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = BrokerProcess(
        tmp_path_factory.mktemp("fetch") / "data",
        {"log.retention.check.interval.ms": "100", "log.segment.delete.delay.ms": "0"},
    )
    b.start()
    yield b
    b.stop()


def create(c: WireClient, name: str, partitions: int = 1, **configs: str) -> None:
    req = CreateTopicsRequest(
        topics=[
            CreateTopicsRequest.CreatableTopic(
                name=name,
                num_partitions=partitions,
                replication_factor=1,
                configs=[
                    CreateTopicsRequest.CreatableTopicConfig(name=k.replace("_", "."), value=v)
                    for k, v in configs.items()
                ],
            )
        ],
        timeout_ms=10_000,
    )
    assert c.request(req, 7).topics[0].error_code == 0


def produce(c: WireClient, topic: str, batch: bytes, partition: int = 0) -> int:
    req = ProduceRequest(
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[ProduceRequest.PartitionProduceData(index=partition, records=batch)],
            )
        ],
    )
    resp = c.request(req, 9).responses[0].partition_responses[0]
    assert resp.error_code == 0, ErrorCode.for_code(resp.error_code)
    return resp.base_offset


def fetch_request(
    topic: str,
    offset: int,
    *,
    partition: int = 0,
    max_bytes: int = 1 << 20,
    partition_max_bytes: int = 1 << 20,
    max_wait_ms: int = 0,
    min_bytes: int = 0,
    isolation_level: int = 0,
    session_id: int = 0,
    session_epoch: int = -1,
    current_leader_epoch: int = -1,
) -> FetchRequest:
    return FetchRequest(
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        isolation_level=isolation_level,
        session_id=session_id,
        session_epoch=session_epoch,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchPartition(
                        partition=partition,
                        fetch_offset=offset,
                        partition_max_bytes=partition_max_bytes,
                        current_leader_epoch=current_leader_epoch,
                    )
                ],
            )
        ],
    )


def fetch(c: WireClient, topic: str, offset: int, version: int = 12, **kw):
    return c.request(fetch_request(topic, offset, **kw), version).responses[0].partitions[0]


def test_fetch_returns_whole_batches_from_the_one_containing_the_offset(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "whole")
        produce(c, "whole", build_batch([(b"a%d" % i, b"x") for i in range(5)]))  # offsets 0-4
        produce(c, "whole", build_batch([(b"b%d" % i, b"y") for i in range(5)]))  # offsets 5-9
        for version in (4, 7, 11, 12):
            for offset in range(10):
                p = fetch(c, "whole", offset, version=version)
                assert p.error_code == 0 and p.high_watermark == 10
                batches = decode_all(p.records)
                first = batches[0][0]
                assert first.base_offset <= offset <= first.last_offset
                assert [r.offset for _, recs in batches for r in recs][-1] == 9
        assert fetch(c, "whole", 10).records is not None and len(fetch(c, "whole", 10).records) == 0


def test_at_least_one_whole_batch_above_the_limits_kip_74(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "big", partitions=2)
        big = build_batch([(None, b"v" * 5000)] * 4)
        produce(c, "big", big, 0)
        produce(c, "big", big, 1)
        p = fetch(c, "big", 0, partition_max_bytes=100, max_bytes=100)
        assert len(p.records) == len(big)  # whole batch though above both limits
        req = FetchRequest(
            max_wait_ms=0,
            min_bytes=0,
            max_bytes=100,
            topics=[
                FetchRequest.FetchTopic(
                    topic="big",
                    partitions=[
                        FetchRequest.FetchPartition(partition=i, fetch_offset=0, partition_max_bytes=1 << 20)
                        for i in (0, 1)
                    ],
                )
            ],
        )
        parts = c.request(req, 12).responses[0].partitions
        sizes = [len(p.records) for p in parts]
        assert sizes == [len(big), 0]  # the response limit leaves nothing for the second partition


def test_offset_out_of_range_on_both_sides(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "oor", segment_bytes="1000", retention_bytes="1")
        for _ in range(5):
            produce(c, "oor", build_batch([(None, b"z" * 400)]))
        p = fetch(c, "oor", 99)
        assert p.error_code == ErrorCode.OFFSET_OUT_OF_RANGE.code and p.high_watermark == 5
        # retention.bytes=1 deletes every closed segment: the log start moves past 0
        deadline_ok = False
        for _ in range(200):
            p = fetch(c, "oor", 0)
            if p.error_code == ErrorCode.OFFSET_OUT_OF_RANGE.code:
                deadline_ok = True
                break
            threading.Event().wait(0.05)
        assert deadline_ok and p.log_start_offset > 0


def test_long_poll_is_woken_by_an_append(broker):
    with WireClient(broker.host, broker.port) as c, WireClient(broker.host, broker.port) as producer:
        create(c, "poll")
        c.send(fetch_request("poll", 0, max_wait_ms=60_000, min_bytes=1), 12)
        produce(producer, "poll", build_batch([(b"k", b"woken")]))
        c.sock.settimeout(30)  # far below max_wait: only an append can answer this fetch
        _, resp = c.recv(1, 12)
        recs = decode_all(resp.responses[0].partitions[0].records)
        assert [r.value for _, rs in recs for r in rs] == [b"woken"]


def test_long_poll_waits_for_min_bytes(broker):
    with WireClient(broker.host, broker.port) as c, WireClient(broker.host, broker.port) as producer:
        create(c, "minbytes")
        small = build_batch([(None, b"s")])
        c.send(fetch_request("minbytes", 0, max_wait_ms=60_000, min_bytes=3 * len(small) - 1), 12)
        for _ in range(3):
            produce(producer, "minbytes", build_batch([(None, b"s")]))
        c.sock.settimeout(30)
        _, resp = c.recv(1, 12)
        assert len(decode_all(resp.responses[0].partitions[0].records)) == 3


def test_max_wait_answers_with_nothing(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "quiet")
        p = fetch(c, "quiet", 0, max_wait_ms=50, min_bytes=1)
        assert p.error_code == 0 and len(p.records) == 0


def test_isolation_levels_and_aborted_transactions(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "iso")
        produce(c, "iso", build_batch([(None, b"v")]))
        unc = fetch(c, "iso", 0, isolation_level=0)
        com = fetch(c, "iso", 0, isolation_level=1)
        assert unc.aborted_transactions is None and com.aborted_transactions == []
        assert com.last_stable_offset == com.high_watermark == 1


def session_fetch(
    c: WireClient,
    session_id: int,
    epoch: int,
    partitions: dict[tuple[str, int], int],
    forget: dict[str, list[int]] | None = None,
    replica_id: int = -1,
):
    """A v12 fetch naming ``partitions`` ({(topic, partition): fetch offset}) and ``forget``."""
    topics: dict[str, list[FetchRequest.FetchPartition]] = {}
    for (topic, index), offset in partitions.items():
        topics.setdefault(topic, []).append(
            FetchRequest.FetchPartition(partition=index, fetch_offset=offset, partition_max_bytes=1 << 20)
        )
    req = FetchRequest(
        replica_id=replica_id,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=1 << 20,
        session_id=session_id,
        session_epoch=epoch,
        topics=[FetchRequest.FetchTopic(topic=t, partitions=ps) for t, ps in topics.items()],
        forgotten_topics_data=[
            FetchRequest.ForgottenTopic(topic=t, partitions=ps) for t, ps in (forget or {}).items()
        ],
    )
    resp = c.request(req, 12)
    answered = {(t.topic, p.partition_index): p for t in resp.responses for p in t.partitions}
    return resp, answered


def test_incremental_fetch_sessions_answer_only_what_changed(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "sess", partitions=3)
        create(c, "sess2")
        everything = {("sess", 0): 0, ("sess", 1): 0, ("sess", 2): 0, ("sess2", 0): 0}
        full, answered = session_fetch(c, 0, 0, everything)
        sid = full.session_id
        assert full.error_code == 0 and sid > 0 and set(answered) == set(everything)

        # Nothing new: an incremental fetch naming nothing answers no partition.
        resp, answered = session_fetch(c, sid, 1, {})
        assert resp.error_code == 0 and resp.session_id == sid and answered == {}

        # New records on one partition: only it is answered, with them.
        produce(c, "sess", build_batch([(None, b"v1"), (None, b"v2")]), 1)
        resp, answered = session_fetch(c, sid, 2, {})
        assert list(answered) == [("sess", 1)] and answered["sess", 1].high_watermark == 2
        assert [r.value for _, recs in decode_all(answered["sess", 1].records) for r in recs] == [
            b"v1",
            b"v2",
        ]
        # The session still fetches partition 1 from offset 0 until told otherwise; now moved on.
        resp, answered = session_fetch(c, sid, 3, {("sess", 1): 2})
        assert answered == {}

        # Forgotten partitions are no longer fetched, even with new data.
        resp, answered = session_fetch(c, sid, 4, {}, forget={"sess": [2]})
        produce(c, "sess", build_batch([(None, b"w")]), 2)
        produce(c, "sess2", build_batch([(None, b"z")]), 0)
        resp, answered = session_fetch(c, sid, 5, {})
        assert list(answered) == [("sess2", 0)]

        # Session errors: no partitions, session id 0.
        for bad_id, bad_epoch, error in (
            (sid, 9, ErrorCode.INVALID_FETCH_SESSION_EPOCH),
            (sid + 1, 6, ErrorCode.FETCH_SESSION_ID_NOT_FOUND),
            (0, 3, ErrorCode.FETCH_SESSION_ID_NOT_FOUND),
        ):
            resp, answered = session_fetch(c, bad_id, bad_epoch, {})
            assert (resp.error_code, resp.session_id, answered) == (error.code, 0, {})
        # ... and leave the session as it was (partition sess2-0 moves past its record now).
        resp, answered = session_fetch(c, sid, 6, {("sess2", 0): 1})
        assert resp.error_code == 0 and answered == {}

        # A sessionless fetch (epoch -1) answers every partition it names, with session id 0;
        # naming the session closes it.
        resp, answered = session_fetch(c, sid, -1, {("sess", 0): 0, ("sess", 1): 0})
        assert resp.session_id == 0 and len(answered) == 2
        resp, _ = session_fetch(c, sid, 7, {})
        assert resp.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code


def test_leader_epoch_fencing_and_unknown_partitions(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "fence")
        assert fetch(c, "fence", 0, current_leader_epoch=0).error_code == 0
        assert fetch(c, "fence", 0, current_leader_epoch=1).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH.code
        assert fetch(c, "fence", 0, partition=7).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
        assert fetch(c, "no-such-topic", 0).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code


def _list_offsets(c: WireClient, topic: str, timestamp: int, version: int = 8, isolation: int = 0):
    req = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=isolation,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name=topic,
                partitions=[
                    ListOffsetsRequest.ListOffsetsPartition(
                        partition_index=0, timestamp=timestamp, current_leader_epoch=-1
                    )
                ],
            )
        ],
    )
    return c.request(req, version).topics[0].partitions[0]


@pytest.fixture(scope="module")
def timed_topic(broker):
    """40 batches of 5 records across several segments; record timestamps known."""
    with WireClient(broker.host, broker.port) as c:
        create(c, "timed", segment_bytes="2000", index_interval_bytes="100")
        stamps = []
        for b in range(40):
            ts = [BASE_TS + b * 1000 + i * 10 for i in range(5)]
            if b == 17:
                ts[2] = BASE_TS + 999_999  # one out-of-order maximum in the middle
            produce(c, "timed", build_batch([(None, b"r")] * 5, timestamps=ts))
            stamps.extend(ts)
    return stamps


def test_list_offsets_special_timestamps(broker, timed_topic):
    with WireClient(broker.host, broker.port) as c:
        assert _list_offsets(c, "timed", -2).offset == 0
        latest = _list_offsets(c, "timed", -1)
        assert latest.offset == 200 and latest.leader_epoch == 0
        mx = _list_offsets(c, "timed", -3)
        assert (mx.offset, mx.timestamp) == (17 * 5 + 2, BASE_TS + 999_999)
        assert _list_offsets(c, "timed", -4).offset == 0
        assert _list_offsets(c, "timed", -1, version=1).offset == 200


def test_list_offsets_by_timestamp_matches_the_records(broker, timed_topic):
    stamps = timed_topic
    with WireClient(broker.host, broker.port) as c:
        for target in [
            BASE_TS - 5,
            BASE_TS,
            BASE_TS + 15,
            BASE_TS + 5_040,
            BASE_TS + 17_020,
            BASE_TS + 39_040,
        ]:
            expected = next(i for i, t in enumerate(stamps) if t >= target)
            got = _list_offsets(c, "timed", target)
            assert got.error_code == 0 and got.offset == expected, target
            assert got.timestamp == stamps[expected] or got.timestamp >= target
        beyond = _list_offsets(c, "timed", BASE_TS + 10_000_000)
        assert (beyond.offset, beyond.timestamp) == (-1, -1)


def test_offsets_for_times_with_real_clients(broker, timed_topic):
    stamps = timed_topic
    target = BASE_TS + 23_000
    expected = next(i for i, t in enumerate(stamps) if t >= target)

    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "times"})
    got = consumer.offsets_for_times([TopicPartition("timed", 0, target)], timeout=10)
    consumer.close()
    assert got[0].offset == expected

    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTP

    kc = KafkaConsumer(bootstrap_servers=broker.bootstrap)
    tp = KTP("timed", 0)
    result = kc.offsets_for_times({tp: target})
    kc.close()
    assert result[tp].offset == expected and result[tp].timestamp == stamps[expected]


def test_offset_for_leader_epoch(broker):
    with WireClient(broker.host, broker.port) as c:
        create(c, "epochs")
        produce(c, "epochs", build_batch([(None, b"e")] * 3))

        def ask(epoch: int, current: int = -1):
            req = OffsetForLeaderEpochRequest(
                replica_id=-1,
                topics=[
                    OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
                        topic="epochs",
                        partitions=[
                            OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
                                partition=0, current_leader_epoch=current, leader_epoch=epoch
                            )
                        ],
                    )
                ],
            )
            return c.request(req, 4).topics[0].partitions[0]

        now = ask(0)
        assert (now.error_code, now.leader_epoch, now.end_offset) == (0, 0, 3)
        assert (ask(5).leader_epoch, ask(5).end_offset) == (-1, -1)
        assert ask(0, current=2).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH.code

        create(c, "epochs-empty")
        empty = ask_empty = None
        req = OffsetForLeaderEpochRequest(
            replica_id=-1,
            topics=[
                OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
                    topic="epochs-empty",
                    partitions=[
                        OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
                            partition=0, current_leader_epoch=-1, leader_epoch=0
                        )
                    ],
                )
            ],
        )
        empty = c.request(req, 2).topics[0].partitions[0]
        ask_empty = (empty.leader_epoch, empty.end_offset)
        assert ask_empty == (0, 0)


def test_partition_errors_carry_empty_records_never_null(broker):
    # Kafka answers a partition error with MemoryRecords.EMPTY; a null record set makes
    # librdkafka drop the whole response ("invalid MessageSetSize -1").
    with WireClient(broker.host, broker.port) as c:
        create(c, "empty-on-error")
        produce(c, "empty-on-error", build_batch([(None, b"x")]))
        for p in (
            fetch(c, "empty-on-error", 1_000),
            fetch(c, "empty-on-error", 0, current_leader_epoch=5),
            fetch(c, "empty-on-error", 0, partition=3),
            fetch(c, "empty-on-error", 1_000, version=4),
        ):
            assert p.records is not None and len(p.records) == 0, ErrorCode.for_code(p.error_code)
        assert fetch(c, "empty-on-error", 1_000).error_code == ErrorCode.OFFSET_OUT_OF_RANGE.code


def test_offset_out_of_range_resets_a_confluent_kafka_consumer(broker):
    """A consumer assigned far past the end gets OFFSET_OUT_OF_RANGE and auto.offset.reset fires."""
    from confluent_kafka import Consumer, TopicPartition

    with WireClient(broker.host, broker.port) as c:
        create(c, "reset-earliest")
        for i in range(5):
            produce(c, "reset-earliest", build_batch([(None, f"r{i}".encode())]))
    consumer = Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": "reset-earliest",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition("reset-earliest", 0, 1_000)])
        got: list[bytes] = []
        deadline = time.monotonic() + 60
        while len(got) < 5 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            got.append(msg.value())
    finally:
        consumer.close()
    assert got == [f"r{i}".encode() for i in range(5)]
