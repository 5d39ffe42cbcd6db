"""aiokafka's transactional producer (consume-transform-produce with
send_offsets_to_transaction) against a 3-process ZooKeeper-mode cluster whose transaction
coordinator is SIGKILLed mid-transaction."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from typing import Any

import pytest
from kafka import KafkaProducer

from tests.cluster.client_cluster import cluster_fixtures, coordinator, create, in_sync, leader, poll_until

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


cluster, live = cluster_fixtures("rvtxn")


def txn_producer(cluster, txn_id: str, **extra: Any):
    """An aiokafka transactional producer (30 s request timeout, 200 ms retry backoff)."""
    from aiokafka import AIOKafkaProducer

    return AIOKafkaProducer(
        bootstrap_servers=cluster.bootstrap,
        transactional_id=txn_id,
        request_timeout_ms=30_000,
        retry_backoff_ms=200,
        **extra,
    )


async def read_committed(cluster, topic: str, expected: int, group: str | None = None) -> list[str]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    c = AIOKafkaConsumer(
        bootstrap_servers=cluster.bootstrap,
        isolation_level="read_committed",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        request_timeout_ms=20_000,
    )
    await c.start()
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        await c.seek_to_beginning(tp)
        end = (await c.end_offsets([tp]))[tp]
        out: list[str] = []

        async def at_end() -> bool:
            return await c.position(tp) >= end

        await poll_until(
            [c], at_end, lambda _, msgs: out.extend(m.value.decode() for m in msgs), timeout=20, poll_ms=500
        )
        return out
    finally:
        await c.stop()


def test_aiokafka_consume_transform_produce_across_txn_coordinator_sigkill(live):
    """aiokafka consume-transform-produce (transactional_id, send_offsets_to_transaction,
    read_committed input) whose transaction coordinator is SIGKILLed inside a transaction:
    a read_committed reader of the output sees every input record exactly once and no record
    of the deliberately aborted transactions; the group's committed offset is the input's end
    (Kafka: TransactionCoordinator.handleEndTransaction after
    TransactionStateManager.loadTransactionsForTxnTopicPartition, GroupCoordinator
    .handleTxnCommitOffsets, Log LSO / aborted-transaction index)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition
    from aiokafka.errors import KafkaError

    cluster = live
    src = f"aio-in-{uuid.uuid4().hex[:6]}"
    dst = f"aio-out-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, src, [[0, 1, 2]])
    create(cluster, dst, [[1, 2, 0]])
    kp = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
    for i in range(120):
        kp.send(src, value=f"i{i:04d}".encode(), partition=0)
    kp.flush()
    kp.close()
    state: dict[str, Any] = {"killed": None, "txns": 0, "aborted": 0, "errors": []}

    async def main():
        producer = txn_producer(cluster, txn_id, enable_idempotence=True)
        consumer = AIOKafkaConsumer(
            src,
            bootstrap_servers=cluster.bootstrap,
            group_id=group,
            isolation_level="read_committed",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            max_poll_records=10,
            request_timeout_ms=20_000,
            retry_backoff_ms=200,
        )
        await producer.start()
        await consumer.start()
        tp = TopicPartition(src, 0)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 45
            while loop.time() < deadline:
                batch = (await consumer.getmany(timeout_ms=500)).get(tp, [])
                if not batch:
                    if await consumer.position(tp) >= 120:
                        break
                    continue
                n = state["txns"]
                state["txns"] += 1
                abort = n % 4 == 3
                try:
                    await producer.begin_transaction()
                    for m in batch:
                        v = m.value.decode()
                        await producer.send(
                            dst, value=(f"ABORTED-{v}" if abort else f"o-{v}").encode(), partition=0
                        )
                    if n == 4:  # kill the coordinator inside the transaction
                        await producer.flush()
                        victim = await asyncio.to_thread(coordinator, cluster, txn_id, 1)
                        cluster.kill(victim)
                        state["killed"] = victim
                    await producer.send_offsets_to_transaction({tp: batch[-1].offset + 1}, group)
                    if abort:
                        await producer.abort_transaction()
                        state["aborted"] += 1
                        consumer.seek(tp, batch[0].offset)
                    else:
                        await producer.commit_transaction()
                except KafkaError as e:
                    state["errors"].append(repr(e))
                    await producer.abort_transaction()
                    committed = await consumer.committed(tp)
                    consumer.seek(tp, committed or 0)
                if n == 6 and state["killed"] is not None:
                    await asyncio.to_thread(cluster.start_broker, state["killed"])
        finally:
            await consumer.stop()
            await producer.stop()

    asyncio.run(main())
    assert state["killed"] is not None
    if not cluster.alive(state["killed"]):
        cluster.start_broker(state["killed"])
    in_sync(cluster, dst, [[1, 2, 0]])
    values = asyncio.run(read_committed(cluster, dst, 120))
    assert not [v for v in values if v.startswith("ABORTED")], [v for v in values if v.startswith("ABORTED")][
        :5
    ]
    counts = Counter(values)
    assert sorted(counts) == [f"o-i{i:04d}" for i in range(120)], (
        sorted(set(f"o-i{i:04d}" for i in range(120)) - set(counts))[:10],
        state,
    )
    assert not [v for v, c in counts.items() if c > 1], ([v for v, c in counts.items() if c > 1][:5], state)
    from kafka.admin import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
    try:
        offsets = admin.list_group_offsets(group)[group]
    finally:
        admin.close()
    assert {tp.partition: om.offset for tp, om in offsets.items()} == {0: 120}
    print("STATE", state)


def test_aiokafka_transactions_across_data_leader_and_coordinator_sigkill_at_commit(live):
    """aiokafka transactional producer: in one transaction the leader of the data partition is
    SIGKILLed between sends; in a later one the transaction coordinator is SIGKILLed while
    commit_transaction is under way (EndTxn / markers in flight). A read_committed reader sees
    each committed transaction's records exactly once and no aborted record (Kafka:
    TransactionCoordinator.handleEndTransaction, TransactionMarkerChannelManager retrying
    markers to the new leader, TransactionStateManager loading PrepareCommit and completing it)."""
    from aiokafka.errors import KafkaError

    cluster = live
    dst = f"aio-out2-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, dst, [[0, 1, 2]])
    committed: list[str] = []
    state: dict[str, Any] = {"errors": [], "killed": []}

    async def main():
        producer = txn_producer(cluster, txn_id)
        await producer.start()
        try:
            for n in range(10):
                values = [f"t{n:02d}-{j}" for j in range(5)]
                abort = n % 3 == 2
                try:
                    await producer.begin_transaction()
                    for j, v in enumerate(values):
                        await producer.send_and_wait(
                            dst, value=(("ABORTED-" if abort else "") + v).encode(), partition=0
                        )
                        if n == 1 and j == 2:
                            victim = await asyncio.to_thread(leader, cluster, dst)
                            cluster.kill(victim)
                            state["killed"].append(("leader", victim))
                    if abort:
                        await producer.abort_transaction()
                        continue
                    if n == 4:
                        victim = await asyncio.to_thread(coordinator, cluster, txn_id, 1)
                        task = asyncio.ensure_future(producer.commit_transaction())
                        await asyncio.sleep(0.01)
                        cluster.kill(victim)
                        state["killed"].append(("coordinator", victim))
                        await task
                    else:
                        await producer.commit_transaction()
                    committed.extend(values)
                except KafkaError as e:
                    state["errors"].append((n, repr(e)))
                    await producer.abort_transaction()
                if n in (3, 6):
                    for _, v in state["killed"]:
                        if not cluster.alive(v):
                            await asyncio.to_thread(cluster.start_broker, v)
        finally:
            await producer.stop()

    asyncio.run(main())
    for _, v in state["killed"]:
        if not cluster.alive(v):
            cluster.start_broker(v)
    in_sync(cluster, dst, [[0, 1, 2]])
    values = asyncio.run(read_committed(cluster, dst, 0))
    assert not [v for v in values if v.startswith("ABORTED")], (values, state)
    assert values == committed, (values, committed, state)


def test_open_transaction_survives_data_leader_sigkill_for_read_committed(live):
    """An aiokafka transaction left open while the data partition's leader is SIGKILLed: on the
    new leader a read_committed consumer's end offset is the open transaction's first offset
    (the LSO rebuilt from the replicated producer state), it reads no record of it, and after
    the producer aborts it and commits another one the reader sees exactly the committed records
    (Kafka: ProducerStateManager on followers via appendAsFollower, UnifiedLog.firstUnstableOffset,
    Partition.fetchOffsetForTimestamp READ_COMMITTED)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    cluster = live
    dst = f"aio-lso-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, dst, [[0, 1, 2]])
    kp = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
    for i in range(3):
        kp.send(dst, value=f"plain-{i}".encode(), partition=0)
    kp.flush()
    kp.close()
    out: dict[str, Any] = {}

    async def main():
        tp = TopicPartition(dst, 0)
        producer = txn_producer(cluster, txn_id)
        await producer.start()
        try:
            await producer.begin_transaction()
            for j in range(4):
                await producer.send_and_wait(dst, value=f"ABORTED-{j}".encode(), partition=0)
            victim = await asyncio.to_thread(leader, cluster, dst)
            # wait until every replica has the open transaction's records (acks=all did)
            cluster.kill(victim)
            await asyncio.to_thread(leader, cluster, dst, 0, victim)
            out["victim"] = victim
            c = AIOKafkaConsumer(
                bootstrap_servers=cluster.bootstrap,
                isolation_level="read_committed",
                request_timeout_ms=20_000,
            )
            await c.start()
            try:
                c.assign([tp])
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 20
                while True:
                    try:
                        out["lso_during"] = (await c.end_offsets([tp]))[tp]
                        break
                    except Exception as e:
                        if loop.time() > deadline:
                            raise
                        out.setdefault("end_offsets_errors", []).append(repr(e))
                        await asyncio.sleep(0.3)
            finally:
                await c.stop()
            await producer.abort_transaction()
            await producer.begin_transaction()
            for j in range(2):
                await producer.send_and_wait(dst, value=f"ok-{j}".encode(), partition=0)
            await producer.commit_transaction()
        finally:
            await producer.stop()

    asyncio.run(main())
    cluster.start_broker(out["victim"])
    in_sync(cluster, dst, [[0, 1, 2]])
    assert out["lso_during"] == 3, out
    values = asyncio.run(read_committed(cluster, dst, 0))
    assert values == ["plain-0", "plain-1", "plain-2", "ok-0", "ok-1"], (values, out)


def test_txn_offsets_survive_group_coordinator_sigkill_before_commit(live):
    """aiokafka consume-transform-produce: after send_offsets_to_transaction (TxnOffsetCommit
    written to __consumer_offsets, pending) the group coordinator is SIGKILLed, then the
    transaction commits: the new group coordinator (which loaded the pending transactional
    offsets) materializes them on the COMMIT marker, so OffsetFetch answers the transaction's
    offset; a later aborted transaction's offsets are never visible (Kafka:
    GroupMetadataManager.loadGroupsAndOffsets pendingTransactionalOffsets,
    handleTxnCompletion)."""
    from aiokafka import TopicPartition
    from kafka.admin import KafkaAdminClient

    cluster = live
    src = f"aio-gin-{uuid.uuid4().hex[:6]}"
    dst = f"aio-gout-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, src, [[0, 1, 2]])
    create(cluster, dst, [[1, 2, 0]])
    info: dict[str, Any] = {}

    def fetch_committed():
        admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
        try:
            return {tp.partition: om.offset for tp, om in admin.list_group_offsets(group)[group].items()}
        except Exception as e:
            return repr(e)
        finally:
            admin.close()

    async def main():
        tp = TopicPartition(src, 0)
        producer = txn_producer(cluster, txn_id)
        await producer.start()
        try:
            await producer.begin_transaction()
            await producer.send_and_wait(dst, value=b"first", partition=0)
            await producer.send_offsets_to_transaction({tp: 17}, group)
            await producer.commit_transaction()
            await producer.begin_transaction()
            await producer.send_and_wait(dst, value=b"second", partition=0)
            await producer.send_offsets_to_transaction({tp: 42}, group)
            g = await asyncio.to_thread(coordinator, cluster, group, 0)
            info["group_coordinator"] = g
            info["txn_coordinator"] = await asyncio.to_thread(coordinator, cluster, txn_id, 1)
            cluster.kill(g)
            await producer.commit_transaction()
            await producer.begin_transaction()
            await producer.send_and_wait(dst, value=b"ABORTED", partition=0)
            await producer.send_offsets_to_transaction({tp: 99}, group)
            await producer.abort_transaction()
        finally:
            await producer.stop()

    try:
        asyncio.run(main())
    finally:
        if "group_coordinator" in info and not cluster.alive(info["group_coordinator"]):
            cluster.start_broker(info["group_coordinator"])
    from tests.cluster.zk_cluster_checks import wait_until

    wait_until(
        lambda: fetch_committed() == {0: 42},
        "the committed transaction's offset",
        30,
        step=0.5,
        detail=lambda: (fetch_committed(), info),
    )
    values = asyncio.run(read_committed(cluster, dst, 0))
    assert values == ["first", "second"], (values, info)


def test_new_producer_fences_open_transaction_across_coordinator_sigkill(live):
    """An aiokafka transactional producer goes away with its transaction open; a second one with
    the same transactional_id starts (InitProducerId aborts the open transaction: PrepareAbort,
    markers) and the transaction coordinator is SIGKILLed right then: the new coordinator
    completes the abort, the second producer gets its id and commits, and a read_committed
    reader sees only its records (Kafka: TransactionCoordinator.handleInitProducerId ->
    prepareAbortOrCommit, TransactionStateManager loading PrepareAbort and
    TransactionMarkerChannelManager completing it on the new coordinator)."""
    from aiokafka import AIOKafkaProducer

    cluster = live
    dst = f"aio-fence-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, dst, [[0, 1, 2]])
    info: dict[str, Any] = {}

    async def main():
        a = AIOKafkaProducer(bootstrap_servers=cluster.bootstrap, transactional_id=txn_id)
        await a.start()
        await a.begin_transaction()
        for j in range(3):
            await a.send_and_wait(dst, value=f"ABORTED-{j}".encode(), partition=0)
        a._sender._sender_task.cancel()
        await a.client.close()
        coord = await asyncio.to_thread(coordinator, cluster, txn_id, 1)
        info["coord"] = coord
        b = txn_producer(cluster, txn_id)
        start = asyncio.ensure_future(b.start())
        await asyncio.sleep(0.05)
        cluster.kill(coord)
        await asyncio.wait_for(start, 50)
        try:
            await b.begin_transaction()
            await b.send_and_wait(dst, value=b"ok", partition=0)
            await b.commit_transaction()
        finally:
            await b.stop()

    try:
        asyncio.run(main())
    finally:
        if "coord" in info and not cluster.alive(info["coord"]):
            cluster.start_broker(info["coord"])
    in_sync(cluster, dst, [[0, 1, 2]])
    values = asyncio.run(read_committed(cluster, dst, 0))
    assert values == ["ok"], (values, info)


def test_read_committed_kafka_python_waits_for_pending_txn_offsets(live):
    """A kafka-python read_committed consumer (OffsetFetch require_stable) of a group whose
    offsets an open aiokafka transaction has sent (TxnOffsetCommit pending): it gets
    UNSTABLE_OFFSET_COMMIT and retries, and once the transaction commits it starts at the
    transaction's offset, not the older committed one (Kafka: GroupCoordinator.handleFetchOffsets
    requireStable, GroupMetadata.hasPendingOffsetCommitsForTopicPartition)."""
    import threading

    from aiokafka import AIOKafkaProducer
    from aiokafka import TopicPartition as ATP
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    cluster = live
    src = f"kp-stable-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, src, [[0, 1, 2]])
    kp = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
    for i in range(50):
        kp.send(src, value=f"r{i}".encode(), partition=0)
    kp.flush()
    kp.close()
    k0 = KafkaConsumer(bootstrap_servers=cluster.bootstrap, group_id=group, enable_auto_commit=False)
    k0.commit({TopicPartition(src, 0): OffsetAndMetadata(10, "", -1)})
    k0.close(autocommit=False)
    release = threading.Event()
    pending = threading.Event()
    errors: list[BaseException] = []

    async def txn():
        p = AIOKafkaProducer(
            bootstrap_servers=cluster.bootstrap, transactional_id=f"tx-{uuid.uuid4().hex[:6]}"
        )
        await p.start()
        try:
            await p.begin_transaction()
            await p.send_offsets_to_transaction({ATP(src, 0): 42}, group)
            pending.set()
            while not release.is_set():
                await asyncio.sleep(0.05)
            await p.commit_transaction()
        finally:
            await p.stop()

    def run_txn():
        try:
            asyncio.run(txn())
        except BaseException as e:
            errors.append(e)
            pending.set()

    t = threading.Thread(target=run_txn, daemon=True)
    t.start()
    assert pending.wait(30) and not errors, errors
    c = KafkaConsumer(
        bootstrap_servers=cluster.bootstrap,
        group_id=group,
        enable_auto_commit=False,
        isolation_level="read_committed",
        auto_offset_reset="earliest",
    )
    try:
        c.assign([TopicPartition(src, 0)])
        threading.Timer(2.0, release.set).start()
        first = None
        for _ in range(100):
            for msgs in c.poll(timeout_ms=200).values():
                if msgs and first is None:
                    first = msgs[0].offset
            if first is not None:
                break
    finally:
        release.set()
        c.close(autocommit=False)
        t.join(30)
    assert not errors, errors
    assert first == 42, first
