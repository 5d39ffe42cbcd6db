"""Fetch as Kafka 3.9 answers it: ``min_bytes`` and a full response, Fetch below v10 of a zstd
topic, and what completes a parked fetch (Kafka's ``DelayedFetch.tryComplete`` counts
``endOffset.positionDiff(fetchOffset)``, endOffset the high watermark or the last stable offset).

The wire tests ask a 30 s wait of a client that gives up after 5 s, so a fetch parked where
Kafka answers at once fails the test (socket timeout) instead of the test measuring time.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid

from broker.fetch_params import ClientMetadata, FetchParams, FetchPartitionInfo
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from coordinator.transaction_seams import TxnMarker
from protocol import compression
from protocol.errors import ErrorCode
from protocol.messages import FetchRequest, ProduceRequest
from protocol.records import build_batch, decode_all
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.support.wire_client import WireClient

ME, OTHER = 0, 1
PID = 4000

# ---------------------------------------------------------------------------- over the wire


def _client(broker) -> WireClient:
    return WireClient("127.0.0.1", broker.port, timeout=5.0)


def _produce(c: WireClient, topic: str, batch: bytes) -> None:
    req = ProduceRequest(
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)]
            )
        ],
    )
    resp = c.request(req, 9).responses[0].partition_responses[0]
    assert resp.error_code == 0, ErrorCode.for_code(resp.error_code)


def _fetch(c: WireClient, topic: str, *, version: int = 12, max_wait_ms: int = 0, min_bytes: int = 0, **kw):
    partition = FetchRequest.FetchPartition(
        partition=0, fetch_offset=0, partition_max_bytes=kw.pop("partition_max_bytes", 1 << 20)
    )
    req = FetchRequest(
        replica_id=-1,
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=kw.pop("max_bytes", 1 << 20),
        topics=[FetchRequest.FetchTopic(topic=topic, partitions=[partition])],
    )
    return c.request(req, version).responses[0].partitions[0]


def _values(part) -> list[bytes]:
    return [r.value for _, recs in decode_all(bytes(part.records)) for r in recs]


def test_min_bytes_above_max_bytes_answers_at_once_with_an_oversized_first_batch(moldau_broker_session):
    """KafkaApis.handleFetchRequest caps min_bytes at max_bytes (fetchMinBytes =
    min(minBytes, fetchMaxBytes)); ReplicaManager.fetchMessages then answers at once
    (bytesReadable >= fetchMinBytes): KIP-74's first batch alone exceeds it."""
    moldau_broker_session.create_topic("minb-big")
    with _client(moldau_broker_session) as c:
        _produce(c, "minb-big", build_batch([(None, b"x" * 5000)]))
        part = _fetch(c, "minb-big", max_bytes=3000, min_bytes=1_000_000, max_wait_ms=30_000)
        assert part.error_code == 0
        assert _values(part) == [b"x" * 5000]


def test_min_bytes_above_max_bytes_answers_at_once_when_the_response_is_full(moldau_broker_session):
    """With more readable than max_bytes, Kafka's read fills the response with a partial last
    batch (bytesReadable == max_bytes >= fetchMinBytes) and answers without waiting; Moldau's
    whole batches stop short of max_bytes, and the batch that did not fit counts it full."""
    moldau_broker_session.create_topic("minb-full")
    with _client(moldau_broker_session) as c:
        for i in range(4):
            _produce(c, "minb-full", build_batch([(None, bytes([65 + i]) * 1000)]))
        part = _fetch(c, "minb-full", max_bytes=2500, min_bytes=1_000_000, max_wait_ms=30_000)
        assert part.error_code == 0
        assert _values(part) == [b"A" * 1000, b"B" * 1000]


def test_fetch_below_v10_of_a_zstd_topic_is_unsupported_compression_type(moldau_broker_session):
    """KafkaApis.handleFetchRequest.maybeConvertFetchedData: the topic's compression.type is
    ZSTD and versionId < 10 -> FetchResponse.partitionResponse(tp, UNSUPPORTED_COMPRESSION_TYPE)
    (offsets -1, no records). Kafka asks the topic config, not the batches: a topic left at
    compression.type=producer is served to v9 whatever its batches hold."""
    zstd_batch = build_batch([(None, b"v" * 100)], compression_type=compression.ZSTD)
    moldau_broker_session.create_topic("zstd-topic", config={"compression.type": "zstd"})
    moldau_broker_session.create_topic("zstd-batches")
    with _client(moldau_broker_session) as c:
        _produce(c, "zstd-topic", zstd_batch)
        _produce(c, "zstd-batches", zstd_batch)
        new = _fetch(c, "zstd-topic", version=10)
        assert new.error_code == 0 and new.high_watermark == 1 and len(new.records) > 0
        for version in (4, 9):
            old = _fetch(c, "zstd-topic", version=version, max_wait_ms=30_000, min_bytes=1)
            assert old.error_code == ErrorCode.UNSUPPORTED_COMPRESSION_TYPE.code
            assert (old.high_watermark, old.last_stable_offset, old.log_start_offset) == (-1, -1, -1)
            assert old.records is not None and len(old.records) == 0
        served = _fetch(c, "zstd-batches", version=9)
        assert served.error_code == 0 and _values(served) == [b"v" * 100]


# ---------------------------------------------------------------------------- the replica manager


async def _until_done(waiting: asyncio.Future, seconds: float = 5.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not waiting.done() and loop.time() < deadline:
        await asyncio.sleep(0.01)
    return waiting.done()


def _consumer_fetch(rm: ReplicaManager, infos, *, min_bytes: int = 1, from_follower: bool = False, **kw):
    params = FetchParams(
        max_wait_ms=60_000,
        min_bytes=min_bytes,
        max_bytes=kw.pop("max_bytes", 1 << 20),
        isolation=kw.pop("isolation", FetchIsolation.HIGH_WATERMARK),
        # a consumer's Fetch v11+ may be served by a follower (KIP-392)
        client_metadata=ClientMetadata("", "PLAINTEXT") if from_follower else None,
    )
    return rm.fetch_messages(params, infos)


def _append(rm: ReplicaManager, key, batch) -> None:
    result = rm.append_records(
        [(key, memoryview(bytearray(batch)))], required_acks=1, origin=AppendOrigin.CLIENT
    )
    assert result[key].error is None


def test_a_partition_read_to_its_max_bytes_counts_them_towards_min_bytes(log_manager):
    """ReplicaManager.readFromLocalLog reads min(partition max bytes, what is left of the
    response's) bytes, ending with a partial batch: a partition with more readable than its
    max_bytes counts max_bytes in bytesReadable, so min_bytes <= max_bytes answers at once."""

    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        rm.lead_local_logs()
        batch = make_batch(1, value_size=1000, timestamp=BASE_TS)
        for _ in range(4):
            _append(rm, ("t", 0), batch)
        info = FetchPartitionInfo(fetch_offset=0, max_bytes=int(2.5 * len(batch)))
        answer = _consumer_fetch(rm, [(("t", 0), info)], min_bytes=info.max_bytes)
        assert isinstance(answer, list), "parked although the partition's max_bytes are readable"
        [data] = answer
        assert len(data.records) == 2 * len(batch)

    asyncio.run(scenario())


def test_a_parked_fetch_counts_a_partition_at_most_up_to_its_max_bytes(log_manager):
    """DelayedFetch.tryComplete (case G): each partition adds min(positionDiff, maxBytes), the
    bytes first read included: one already read to its max_bytes adds nothing when it grows,
    and the fetch completes once the other partition makes min_bytes readable."""

    async def scenario():
        log_manager.create_topic("t", 2, uuid.uuid4(), {})
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        rm.lead_local_logs()
        batch = make_batch(1, value_size=1000, timestamp=BASE_TS)
        for _ in range(4):
            _append(rm, ("t", 0), batch)
        limit = int(2.5 * len(batch))
        infos = [
            (("t", 0), FetchPartitionInfo(fetch_offset=0, max_bytes=limit)),
            (("t", 1), FetchPartitionInfo(fetch_offset=0, max_bytes=limit)),
        ]
        pending = _consumer_fetch(rm, infos, min_bytes=limit + len(batch))
        assert inspect.isawaitable(pending)  # partition 0 counts its max_bytes: not enough
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)
        for _ in range(2):  # partition 0 is already counted in full
            _append(rm, ("t", 0), batch)
        await asyncio.sleep(0.05)
        assert not waiting.done(), "growth beyond a partition's max_bytes counted towards min_bytes"
        _append(rm, ("t", 1), batch)
        assert await _until_done(waiting)
        first, second = waiting.result()
        assert len(first.records) == 2 * len(batch) and len(second.records) == len(batch)

    asyncio.run(scenario())


class AcceptAll:
    async def verify(self, transactional_id, producer_id, producer_epoch, partitions):
        return dict.fromkeys(partitions, ErrorCode.NONE)


def test_read_committed_fetch_parked_on_an_open_txn_wakes_when_the_commit_moves_the_lso(log_manager):
    """DelayedFetch.tryComplete with FetchIsolation.TXN_COMMITTED (endOffset =
    offsetSnapshot.lastStableOffset): the COMMIT marker moves the LSO from 0 to 11 over ~10 KB of
    records already below the high watermark, more than min_bytes: the parked fetch completes."""

    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS, transaction_verifier=AcceptAll())
        rm.lead_local_logs()
        for seq in range(10):
            batch = build_batch(
                [(b"k", b"v" * 1000)],
                producer_id=PID,
                producer_epoch=0,
                base_sequence=seq,
                transactional=True,
                timestamp=BASE_TS,
            )
            result = rm.append_records(
                [(("t", 0), memoryview(bytearray(batch)))],
                required_acks=-1,
                origin=AppendOrigin.CLIENT,
                produce_version=9,
                transactional_id="tx",
            )
            if not isinstance(result, dict):
                result = await result
            assert result[("t", 0)].error is None
        plog = rm.get_partition("t", 0).log
        assert plog.high_watermark == 10 and plog.last_stable_offset == 0  # an open transaction

        info = FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 20)
        pending = _consumer_fetch(
            rm, [(("t", 0), info)], min_bytes=2000, isolation=FetchIsolation.TXN_COMMITTED
        )
        assert inspect.isawaitable(pending)  # nothing below the LSO: parked
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)

        assert await rm.write_txn_markers([TxnMarker(PID, 0, True, 0, (("t", 0),))]) == [
            {("t", 0): ErrorCode.NONE}
        ]
        assert plog.last_stable_offset == 11
        done = await _until_done(waiting)
        waiting.cancel()
        assert done, "the parked read_committed fetch was not completed by the LSO moving over 10 KB"
        [data] = waiting.result()
        assert data.last_stable_offset == 11 and len(data.records) > 10_000

    asyncio.run(scenario())


def _log_with_an_uncommitted_tail(log_manager):
    """Three batches above a high watermark of 0, as after a restart whose high-watermark
    checkpoint lagged the log end."""
    log_manager.create_topic("t", 1, uuid.uuid4(), {})
    plog = log_manager.get_log("t", 0)
    for _ in range(3):
        plog.append_as_leader(memoryview(make_batch(2, timestamp=BASE_TS)), 0, now_ms=BASE_TS)
    assert plog.log_end_offset == 6 and plog.high_watermark == 0
    return plog


def test_parked_consumer_fetch_wakes_when_the_hw_commits_a_tail_appended_before_leading(log_manager):
    """DelayedFetch.tryComplete (case G, endOffset the high watermark): the follower's fetch that
    moves the high watermark over records the leader held before it led completes the parked
    consumer fetch at once."""

    async def scenario():
        plog = _log_with_an_uncommitted_tail(log_manager)
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        rm.on_topics_changed({}, [PartitionState("t", 0, ME, 1, (ME, OTHER), (ME, OTHER))])
        assert rm.get_partition("t", 0).is_leader and plog.high_watermark == 0  # the follower is unknown

        info = FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 20)
        pending = _consumer_fetch(rm, [(("t", 0), info)])
        assert inspect.isawaitable(pending)  # nothing committed: parked
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)

        follower = FetchParams(
            max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation=FetchIsolation.LOG_END, replica_id=OTHER
        )
        at_end = FetchPartitionInfo(fetch_offset=6, max_bytes=1 << 20, current_leader_epoch=1)
        [answer] = rm.fetch_messages(follower, [(("t", 0), at_end)])
        assert answer.error is ErrorCode.NONE and plog.high_watermark == 6

        done = await _until_done(waiting)
        waiting.cancel()
        assert done, "the parked consumer fetch was not completed by the high-watermark move"
        [data] = waiting.result()
        assert data.high_watermark == 6 and len(data.records) > 0

    asyncio.run(scenario())


def test_consumer_fetch_parked_on_a_follower_wakes_when_its_hw_commits_the_tail_it_held(log_manager):
    """KIP-392: a follower serves a consumer's Fetch v11+ up to its own high watermark; the leader's
    high watermark in a fetch response commits records the follower held before it was hosted
    (Kafka: positionDiff from the fetch offset), and the replica fetcher's
    completeDelayedFetchRequests completes the parked fetch."""

    async def scenario():
        plog = _log_with_an_uncommitted_tail(log_manager)
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        rm.on_topics_changed({}, [PartitionState("t", 0, OTHER, 1, (OTHER, ME), (OTHER, ME))])
        partition = rm.get_partition("t", 0)
        assert not partition.is_leader

        info = FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 20)
        pending = _consumer_fetch(rm, [(("t", 0), info)], from_follower=True)
        assert inspect.isawaitable(pending)
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)

        # A fetch response from the leader: its high watermark is 6 (ReplicaFetcherThread)
        assert partition.update_follower_high_watermark(6, 0) and plog.high_watermark == 6
        rm.complete_delayed_fetch_requests([("t", 0)])

        done = await _until_done(waiting)
        waiting.cancel()
        assert done, "the consumer fetch parked on the follower was not completed by its high watermark"
        [data] = waiting.result()
        assert data.error is ErrorCode.NONE and data.high_watermark == 6 and len(data.records) > 0

    asyncio.run(scenario())
