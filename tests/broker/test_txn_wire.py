"""Transactions on the partitions, on the wire: transactional produce, WriteTxnMarkers, the
last stable offset and read_committed fetches with ``aborted_transactions``.

No transaction coordinator is involved: producer ids come from InitProducerId (idempotent),
transactional batches are built by hand and sent with a transactional id (the broker's
verifier accepts, as with ``transaction.partition.verification.enable=false``), and the
markers are written with WriteTxnMarkers requests, as a coordinator sends them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.control_records import read_end_txn_marker
from protocol.errors import ErrorCode
from protocol.messages import (
    DescribeProducersRequest,
    FetchRequest,
    ListOffsetsRequest,
    ProduceRequest,
    WriteTxnMarkersRequest,
)
from protocol.records import build_batch, decode_all
from tests.integration.test_idempotent_produce import create_topic, init_producer_id, unique_topic, wire
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

NONE = ErrorCode.NONE.code
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    # No coordinator knows these hand-made transactions: verification is off, as in Kafka
    # with transaction.partition.verification.enable=false.
    b = BrokerProcess(
        tmp_path_factory.mktemp("txn-wire") / "data", {"transaction.partition.verification.enable": "false"}
    )
    b.start()
    yield b
    b.stop()


@pytest.fixture
def topic(broker: BrokerProcess) -> str:
    name = unique_topic("txn")
    create_topic(broker, name, partitions=2)
    return name


class Producer:
    """A producer id sending transactional batches to one partition by hand."""

    def __init__(
        self, broker: BrokerProcess, topic: str, partition: int = 0, txn_id: str | None = "tx"
    ) -> None:
        self.pid, self.epoch = init_producer_id(broker)
        self.topic, self.partition, self.txn_id = topic, partition, txn_id
        self.seq = 0

    def send(self, c: WireClient, n: int = 1, *, transactional: bool = True) -> ProduceRequest:
        records = [(b"k", f"{self.pid}:{self.seq + i}".encode()) for i in range(n)]
        batch = build_batch(
            records,
            producer_id=self.pid,
            producer_epoch=self.epoch,
            base_sequence=self.seq,
            transactional=transactional,
        )
        req = ProduceRequest(
            transactional_id=self.txn_id,
            acks=-1,
            timeout_ms=10_000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name=self.topic,
                    partition_data=[ProduceRequest.PartitionProduceData(index=self.partition, records=batch)],
                )
            ],
        )
        answer = c.request(req, 9).responses[0].partition_responses[0]
        if answer.error_code == NONE:
            self.seq += n
        return answer

    def end(self, c: WireClient, committed: bool, coordinator_epoch: int = 0, partitions=None) -> dict:
        return write_markers(
            c,
            [
                (
                    self.pid,
                    self.epoch,
                    committed,
                    coordinator_epoch,
                    partitions or [(self.topic, self.partition)],
                )
            ],
        )[self.pid]


def write_markers(c: WireClient, markers) -> dict[int, dict[tuple[str, int], int]]:
    req = WriteTxnMarkersRequest(
        markers=[
            WriteTxnMarkersRequest.WritableTxnMarker(
                producer_id=pid,
                producer_epoch=epoch,
                transaction_result=committed,
                coordinator_epoch=coord_epoch,
                topics=[
                    WriteTxnMarkersRequest.WritableTxnMarkerTopic(name=t, partition_indexes=[p])
                    for t, p in partitions
                ],
            )
            for pid, epoch, committed, coord_epoch, partitions in markers
        ]
    )
    resp = c.request(req, 1)
    return {
        m.producer_id: {(t.name, p.partition_index): p.error_code for t in m.topics for p in t.partitions}
        for m in resp.markers
    }


def fetch(c: WireClient, topic: str, offset: int, isolation: int, *, version: int = 12, partition: int = 0):
    req = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=1 << 20,
        isolation_level=isolation,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchPartition(
                        partition=partition, fetch_offset=offset, partition_max_bytes=1 << 20
                    )
                ],
            )
        ],
    )
    p = c.request(req, version).responses[0].partitions[0]
    assert p.error_code == NONE, p
    return p


def offsets_of(p) -> list[int]:
    return [r.offset for _h, records in decode_all(p.records or b"") for r in records]


def aborted_of(p) -> list[tuple[int, int]] | None:
    if p.aborted_transactions is None:
        return None
    return [(a.producer_id, a.first_offset) for a in p.aborted_transactions]


def list_latest(c: WireClient, topic: str, isolation: int) -> int:
    req = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=isolation,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name=topic,
                partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)],
            )
        ],
    )
    p = c.request(req, 8).topics[0].partitions[0]
    assert p.error_code == NONE, p
    return p.offset


def txn_start_offsets(c: WireClient, topic: str) -> dict[int, int]:
    req = DescribeProducersRequest(
        topics=[DescribeProducersRequest.TopicRequest(name=topic, partition_indexes=[0])]
    )
    part = c.request(req, 0).topics[0].partitions[0]
    assert part.error_code == NONE, part
    return {p.producer_id: p.current_txn_start_offset for p in part.active_producers}


def test_read_committed_stops_at_the_lso_and_names_aborted_transactions(broker, topic):
    with wire(broker) as c:
        plain = (
            c.request(
                ProduceRequest(
                    acks=-1,
                    timeout_ms=10_000,
                    topic_data=[
                        ProduceRequest.TopicProduceData(
                            name=topic,
                            partition_data=[
                                ProduceRequest.PartitionProduceData(
                                    index=0, records=build_batch([(b"k", b"plain")])
                                )
                            ],
                        )
                    ],
                ),
                9,
            )
            .responses[0]
            .partition_responses[0]
        )
        assert plain.error_code == NONE and plain.base_offset == 0
        a, b = Producer(broker, topic), Producer(broker, topic)
        assert a.send(c, 2).base_offset == 1  # 1-2
        assert b.send(c, 1).base_offset == 3  # 3
        assert a.end(c, committed=True) == {(topic, 0): NONE}  # commit marker at 4

        unc = fetch(c, topic, 0, READ_UNCOMMITTED)
        assert unc.high_watermark == 5 and unc.last_stable_offset == 3
        assert offsets_of(unc) == [0, 1, 2, 3, 4]
        assert aborted_of(unc) is None
        com = fetch(c, topic, 0, READ_COMMITTED)
        assert com.last_stable_offset == 3
        assert offsets_of(com) == [0, 1, 2]  # nothing at or past the LSO
        assert aborted_of(com) == []
        assert list_latest(c, topic, READ_COMMITTED) == 3
        assert list_latest(c, topic, READ_UNCOMMITTED) == 5
        assert txn_start_offsets(c, topic) == {a.pid: -1, b.pid: 3}

        assert b.send(c, 1).base_offset == 5  # 5, same transaction
        assert b.end(c, committed=False) == {(topic, 0): NONE}  # abort marker at 6
        com = fetch(c, topic, 0, READ_COMMITTED)
        assert com.last_stable_offset == com.high_watermark == 7
        assert offsets_of(com) == [0, 1, 2, 3, 4, 5, 6]
        assert aborted_of(com) == [(b.pid, 3)]
        # The control batches are there for the client to see (it skips them).
        markers = [read_end_txn_marker(c_raw) for c_raw in _control_batches(com.records)]
        assert [m.committed for m in markers] == [True, False]
        assert aborted_of(fetch(c, topic, 6, READ_COMMITTED)) == [(b.pid, 3)]  # the marker itself
        assert aborted_of(fetch(c, topic, 7, READ_COMMITTED)) == []  # nothing read
        assert txn_start_offsets(c, topic)[b.pid] == -1
        assert list_latest(c, topic, READ_COMMITTED) == 7


def _control_batches(records: bytes) -> list[bytes]:
    from protocol.record_batch import iter_batches

    view = memoryview(records)
    return [bytes(view[pos : pos + h.size]) for pos, h in iter_batches(view) if h.is_control]


@pytest.mark.parametrize("version", [4, 5, 7, 11, 12])
def test_every_fetch_version_carries_the_lso_and_aborted_transactions(broker, topic, version):
    with wire(broker) as c:
        p = Producer(broker, topic)
        p.send(c, 1)
        p.end(c, committed=False)
        q = Producer(broker, topic)
        q.send(c, 1)  # open: LSO 2
        com = fetch(c, topic, 0, READ_COMMITTED, version=version)
        assert (com.high_watermark, com.last_stable_offset) == (3, 2)
        assert offsets_of(com) == [0, 1]
        assert aborted_of(com) == [(p.pid, 0)]


def test_aborted_transactions_only_for_the_range_returned(broker, topic):
    with wire(broker) as c:
        pids = []
        for committed in (False, True, False):  # txn i: data at 2i, marker at 2i+1
            p = Producer(broker, topic)
            p.send(c, 1)
            p.end(c, committed=committed)
            pids.append(p.pid)
        assert aborted_of(fetch(c, topic, 0, READ_COMMITTED)) == [(pids[0], 0), (pids[2], 4)]
        assert aborted_of(fetch(c, topic, 2, READ_COMMITTED)) == [(pids[2], 4)]
        assert aborted_of(fetch(c, topic, 1, READ_COMMITTED)) == [(pids[0], 0), (pids[2], 4)]


def test_write_txn_markers_errors_per_partition(broker, topic):
    with wire(broker) as c:
        p = Producer(broker, topic)
        p.send(c, 1)
        answer = write_markers(
            c,
            [(p.pid, p.epoch, True, 5, [(topic, 0), (topic, 1), (topic, 9), ("no-such-topic", 0)])],
        )[p.pid]
        assert answer == {
            (topic, 0): NONE,
            (topic, 1): NONE,  # a marker of a transaction without data here: appended, nothing to end
            (topic, 9): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
            ("no-such-topic", 0): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
        }
        p.send(c, 1)
        # A coordinator with an older epoch is fenced; the newer one is not.
        assert p.end(c, committed=False, coordinator_epoch=4) == {
            (topic, 0): ErrorCode.TRANSACTION_COORDINATOR_FENCED.code
        }
        assert fetch(c, topic, 0, READ_COMMITTED).last_stable_offset == 2
        assert p.end(c, committed=False, coordinator_epoch=5) == {(topic, 0): NONE}
        # A producer epoch below the partition's: INVALID_PRODUCER_EPOCH.
        stale = write_markers(c, [(p.pid, p.epoch - 1 if p.epoch else -1, True, 5, [(topic, 0)])])
        assert stale[p.pid][(topic, 0)] == ErrorCode.INVALID_PRODUCER_EPOCH.code


def test_transactional_produce_needs_a_transactional_id(broker, topic):
    with wire(broker) as c:
        p = Producer(broker, topic, txn_id=None)
        answer = p.send(c, 1)
        assert answer.error_code == ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
        p.txn_id = "tx"
        assert p.send(c, 1).error_code == NONE
        # Inside an open transaction a non-transactional batch of the same producer is refused.
        assert p.send(c, 1, transactional=False).error_code == ErrorCode.INVALID_TXN_STATE.code
