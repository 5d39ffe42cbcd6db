"""kafka-python's KafkaAdminClient against a 3-process ZooKeeper-mode cluster, bootstrapped
through a broker that is not the controller."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient

from tests.cluster.client_cluster import cluster_fixtures, coordinator, create, leader
from tests.cluster.zk_cluster_checks import controller_index, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


cluster, live = cluster_fixtures("rvadm")


def admin_on_non_controller(cluster) -> KafkaAdminClient:
    ctl = controller_index(cluster)
    other = next(i for i in range(cluster.n) if i != ctl)
    return KafkaAdminClient(bootstrap_servers=cluster.address(other), request_timeout_ms=30_000)


def open_transaction(cluster, topic: str, txn_id: str) -> int:
    """An aiokafka transaction with one record in ``topic``-0, left open (the client goes
    away without ending it); the record's offset."""
    from aiokafka import AIOKafkaProducer

    out: dict[str, int] = {}

    async def go():
        p = AIOKafkaProducer(bootstrap_servers=cluster.bootstrap, transactional_id=txn_id)
        await p.start()
        await p.begin_transaction()
        md = await p.send_and_wait(topic, value=b"open", partition=0)
        out["offset"] = md.offset
        p._sender._sender_task.cancel()
        await p.client.close()

    asyncio.run(go())
    return out["offset"]


def test_describe_producers_on_a_follower(live):
    """kafka-python describe_producers(broker_id=<a follower>) (kafka-transactions.sh
    describe-producers --broker-id): Kafka answers from any replica that holds the log
    (ReplicaManager.activeProducerState -> Partition.activeProducerState: ``log.map(
    _.activeProducers)``, NOT_LEADER_OR_FOLLOWER only without a local log), so a follower
    shows the open transaction's producer with its start offset."""
    cluster = live
    topic = f"kp-dpf-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    offset = open_transaction(cluster, topic, f"tx-{uuid.uuid4().hex[:6]}")
    tp = TopicPartition(topic, 0)
    lead = leader(cluster, topic)
    follower = next(i for i in range(3) if i != lead)
    admin = admin_on_non_controller(cluster)
    try:
        (on_leader,) = admin.describe_producers([tp])[tp].active_producers
        assert on_leader.current_transaction_start_offset == offset
        # the follower has replicated the batch (acks=all): same producer state
        (on_follower,) = admin.describe_producers([tp], broker_id=cluster.broker_id(follower))[
            tp
        ].active_producers
        assert (on_follower.producer_id, on_follower.current_transaction_start_offset) == (
            on_leader.producer_id,
            offset,
        )
    finally:
        admin.close()


def test_transaction_tools_on_an_open_transaction(live):
    """kafka-python's transaction tools (KIP-664) on an open aiokafka transaction:
    list_transactions lists it on its coordinator only, describe_transactions shows it Ongoing
    with its partition, and abort_transaction (WriteTxnMarkers with coordinator epoch -1) ends
    it on the partition (Kafka: TransactionCoordinator.handleListTransactions /
    handleDescribeTransactions, KafkaApis.handleWriteTxnMarkersRequest)."""
    from kafka.admin import AbortTransactionSpec

    cluster = live
    topic = f"kp-tools-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    offset = open_transaction(cluster, topic, txn_id)
    admin = admin_on_non_controller(cluster)
    try:
        coord = coordinator(cluster, txn_id, 1)
        listed = admin.list_transactions()
        where = {b: [t.transactional_id for t in ts] for b, ts in listed.items()}
        assert [b for b, ids in where.items() if txn_id in ids] == [cluster.broker_id(coord)], where
        desc = admin.describe_transactions([txn_id])[txn_id]
        assert str(desc.state).lower().endswith("ongoing"), desc
        assert [(t.topic, t.partition) for t in desc.topic_partitions] == [(topic, 0)], desc
        tp = TopicPartition(topic, 0)
        (prod,) = admin.describe_producers([tp])[tp].active_producers
        assert prod.current_transaction_start_offset == offset
        admin.abort_transaction(
            AbortTransactionSpec(tp, prod.producer_id, prod.producer_epoch, coordinator_epoch=-1)
        )

        def no_open():
            (p,) = admin.describe_producers([tp])[tp].active_producers
            return p.current_transaction_start_offset == -1

        wait_until(no_open, "the aborted transaction gone from the producer state", 20)
    finally:
        admin.close()


def test_group_admin_on_an_active_group_with_static_members(live):
    """kafka-python group admin on a group of two static aiokafka members: alter_group_offsets
    on the active group is refused per partition with UNKNOWN_MEMBER_ID (Kafka:
    GroupMetadata.validateOffsetCommit, admin commits only when Empty), remove_group_members by
    group.instance.id removes one (LeaveGroup v3+, GroupCoordinator.handleLeaveGroup) and an
    unknown instance id answers UNKNOWN_MEMBER_ID for that member; delete_groups then answers
    NON_EMPTY_GROUP; after the last member leaves, alter and delete succeed."""
    from aiokafka import AIOKafkaConsumer
    from kafka.admin import MemberToRemove
    from kafka.structs import OffsetAndMetadata

    cluster = live
    topic = f"kp-static-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    out: dict[str, Any] = {}
    admin = admin_on_non_controller(cluster)
    tp0, _tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)

    async def main():
        cs = [
            AIOKafkaConsumer(
                topic,
                bootstrap_servers=cluster.bootstrap,
                group_id=group,
                group_instance_id=f"inst-{i}",
                session_timeout_ms=30_000,
                heartbeat_interval_ms=500,
            )
            for i in range(2)
        ]
        for c in cs:
            await c.start()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while not all(c.assignment() for c in cs):
            assert loop.time() < deadline, [c.assignment() for c in cs]
            for c in cs:
                await c.getmany(timeout_ms=100)
        out["alter_active"] = await asyncio.to_thread(
            admin.alter_group_offsets, group, {tp0: OffsetAndMetadata(1, "", -1)}
        )
        out["remove"] = await asyncio.to_thread(
            admin.remove_group_members,
            group,
            [MemberToRemove(group_instance_id="inst-1"), MemberToRemove(group_instance_id="nope")],
        )
        out["members_after"] = sorted(
            m["group_instance_id"]
            for m in (await asyncio.to_thread(admin.describe_groups, [group]))[group]["members"]
        )
        out["delete_nonempty"] = await asyncio.to_thread(admin.delete_groups, [group])
        for c in cs:
            await c.stop()

    try:
        asyncio.run(main())
    finally:
        admin.close()
    from kafka import errors as E

    assert out["alter_active"] == {tp0: E.UnknownMemberIdError}, out
    print("OUT", out)
    assert {getattr(m, "group_instance_id", m): e for m, e in out["remove"].items()} == {
        "inst-1": E.NoError,
        "nope": E.UnknownMemberIdError,
    }, out
    assert out["delete_nonempty"] == {group: "NonEmptyGroupError"}, out


def test_open_transaction_listed_once_across_coordinator_moves(live):
    """An open transaction while its transaction coordinator is SIGKILLed, restarted and given
    its __transaction_state partition back by a preferred election: kafka-python
    list_transactions (every broker) lists it exactly once, on the current coordinator, and
    describe_transactions shows it Ongoing (Kafka: TransactionStateManager
    removeTransactionsForTxnTopicPartition on resignation, loadTransactionsForTxnTopicPartition
    on election; TransactionCoordinator.handleListTransactions)."""
    from tests.cluster.zk_cluster_checks import agreed_metadata

    cluster = live
    topic = f"kp-txmove-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    open_transaction(cluster, topic, txn_id)
    first = coordinator(cluster, txn_id, 1)
    cluster.kill(first)
    interim = (
        wait_until(lambda: (c := coordinator(cluster, txn_id, 1)) != first and c + 1, "a new coordinator", 40)
        - 1
    )
    seen: dict[str, Any] = {}

    def listing():
        a = live_admin(cluster)
        try:
            listed = a.list_transactions()
            return sorted(b for b, ts in listed.items() for t in ts if t.transactional_id == txn_id)
        finally:
            a.close()

    wait_until(
        lambda: listing() == [cluster.broker_id(interim)],
        "listed on the interim coordinator",
        30,
        detail=listing,
    )
    cluster.start_broker(first)

    def synced():
        v = agreed_metadata(cluster, ["__transaction_state"])
        return v is not None and len(v.topic("__transaction_state")[0].isr) == 3

    wait_until(synced, "__transaction_state-0 in sync", 40)
    a = live_admin(cluster)
    try:
        seen["elect"] = a.elect_leaders(0, {"__transaction_state": [0]})
    finally:
        a.close()

    # FindCoordinator answers from each broker's metadata cache, which the controller's
    # UpdateMetadata reaches after ElectLeaders has answered: ask again on every poll.
    def listed_once_on_the_coordinator() -> bool:
        seen["now"] = coordinator(cluster, txn_id, 1)
        return listing() == [cluster.broker_id(seen["now"])]

    wait_until(
        listed_once_on_the_coordinator,
        "listed once on the current coordinator",
        30,
        detail=lambda: (listing(), seen),
    )
    a = live_admin(cluster)
    try:
        desc = a.describe_transactions([txn_id])[txn_id]
    finally:
        a.close()
    assert str(desc.state).lower().endswith("ongoing"), desc


def live_admin(cluster) -> KafkaAdminClient:
    live = ",".join(cluster.address(i) for i in range(cluster.n) if cluster.alive(i))
    return KafkaAdminClient(bootstrap_servers=live, request_timeout_ms=20_000)


def test_delete_records_above_a_high_watermark_held_by_min_isr(live):
    """Both followers SIGKILLed: the ISR shrinks to the leader (under min.insync.replicas 2), so
    the high watermark stays while acks=1 records are appended above it. kafka-python
    delete_records to an offset between the high watermark and the log end answers
    OFFSET_OUT_OF_RANGE (Kafka: UnifiedLog.maybeIncrementLogStartOffset refuses an offset above
    the high watermark; Partition.maybeIncrementLeaderHW does not move under min ISR), and
    list_partition_offsets latest answers the high watermark; once the followers are back the
    same delete succeeds."""
    from kafka import KafkaProducer
    from kafka import errors as E
    from kafka.admin import OffsetSpec

    from tests.cluster.zk_cluster_checks import try_metadata

    cluster = live
    topic = f"kp-drhw-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    lead = leader(cluster, topic)
    p = KafkaProducer(bootstrap_servers=cluster.address(lead), acks="all")
    for i in range(5):
        p.send(topic, value=b"a%d" % i, partition=0)
    p.flush()
    p.close()
    for f in (i for i in range(3) if i != lead):
        cluster.kill(f)
    wait_until(
        lambda: (v := try_metadata(cluster, lead, [topic])) is not None and v.topic(topic)[0].isr == (lead,),
        "the ISR shrunk to the leader",
        30,
    )
    p = KafkaProducer(bootstrap_servers=cluster.address(lead), acks=1)
    fs = [p.send(topic, value=b"b%d" % i, partition=0) for i in range(5)]
    offsets = [f.get(20).offset for f in fs]
    p.close()
    assert offsets == [5, 6, 7, 8, 9]
    tp = TopicPartition(topic, 0)
    a = live_admin(cluster)
    try:
        latest = a.list_partition_offsets({tp: OffsetSpec.LATEST})
        with pytest.raises(E.OffsetOutOfRangeError):
            a.delete_records({tp: 7})
    finally:
        a.close()
    assert [v.offset for v in latest.values()] == [5], latest


def test_topic_config_group_and_record_admin_through_a_non_controller(live):
    """kafka-python admin bootstrapped on a broker that is not the controller: CreateTopics /
    CreatePartitions / DeleteTopics reach the controller (Kafka 3.9 ZooKeeper mode answers
    NOT_CONTROLLER elsewhere and the client retries there: ZkAdminManager), with Kafka's
    per-topic errors (TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR, INVALID_PARTITIONS,
    UNKNOWN_TOPIC_OR_PARTITION); configs are altered and described (ZkAdminManager
    alterConfigs, ConfigHelper.describeConfigs); groups are listed, described and deleted
    (GroupCoordinator.handleListGroups / handleDescribeGroup / handleDeleteGroups: Dead for an
    unknown group, GROUP_ID_NOT_FOUND); records are deleted on the leaders
    (ReplicaManager.deleteRecords, OFFSET_OUT_OF_RANGE past the high watermark)."""
    from kafka import KafkaConsumer, KafkaProducer
    from kafka import errors as E
    from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic

    cluster = live
    t = f"kp-adm-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    a = admin_on_non_controller(cluster)
    try:
        a.create_topics([NewTopic(t, 2, 3, topic_configs={"min.insync.replicas": "2"})])
        with pytest.raises(E.TopicAlreadyExistsError):
            a.create_topics([NewTopic(t, 2, 3)])
        with pytest.raises(E.InvalidReplicationFactorError):
            a.create_topics([NewTopic(t + "-x", 1, 4)])
        a.create_partitions({t: NewPartitions(3)})
        with pytest.raises(E.InvalidPartitionsError):
            a.create_partitions({t: NewPartitions(2)})
        wait_until(lambda: len(a.describe_topics([t])[0]["partitions"]) == 3, "3 partitions", 20)
        a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, t, configs={"retention.ms": "100000"})])
        wait_until(
            lambda: (
                a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, t, configs=["retention.ms"])])[
                    "topic"
                ][t]
                .get("retention.ms", {})
                .get("value")
                == "100000"
            ),
            "the altered config described",
            20,
        )
        p = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
        for i in range(10):
            p.send(t, value=b"%d" % i, partition=0)
        p.flush()
        p.close()
        c = KafkaConsumer(
            t, bootstrap_servers=cluster.bootstrap, group_id=group, auto_offset_reset="earliest"
        )
        got = 0
        for _ in range(50):
            got += sum(len(v) for v in c.poll(timeout_ms=200).values())
            if got >= 10:
                break
        c.commit()
        c.close()
        assert group in [g["group_id"] for g in a.list_groups()]
        d = a.describe_groups([group, "no-such-group"])
        assert d[group]["group_state"] == "Empty" and d["no-such-group"]["group_state"] == "Dead", d
        tp = TopicPartition(t, 0)
        assert a.delete_records({tp: 4})[tp]["low_watermark"] == 4
        with pytest.raises(E.OffsetOutOfRangeError):
            a.delete_records({tp: 11})
        assert a.delete_groups([group, "no-such-group"]) == {
            group: "OK",
            "no-such-group": "GroupIdNotFoundError",
        }
        with pytest.raises(E.UnknownTopicOrPartitionError):
            a.delete_topics([t, t + "-none"])
        wait_until(lambda: t not in a.list_topics(), "the topic gone", 30)
    finally:
        a.close()


def test_list_offsets_specs_agree_after_leader_sigkill(live):
    """kafka-python list_partition_offsets (EARLIEST, LATEST, MAX_TIMESTAMP, a timestamp) on an
    RF 3 partition whose records carry out-of-order timestamps, before and after a SIGKILL of
    its leader: the new leader (a former follower) answers the same offsets (Kafka:
    UnifiedLog.fetchOffsetByTimestamp, MAX_TIMESTAMP from the segments' max timestamps, on any
    replica that replicated the batches)."""
    from kafka import KafkaProducer
    from kafka.admin import OffsetSpec
    from kafka.errors import OffsetNotAvailableError

    cluster = live
    topic = f"kp-ts-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    base = 1_700_000_000_000
    stamps = [base + d for d in (10, 50, 20, 90, 30, 40, 60, 5)]
    p = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all", linger_ms=0)
    for i, ts in enumerate(stamps):
        p.send(topic, value=b"%d" % i, partition=0, timestamp_ms=ts).get(20)
    p.close()
    tp = TopicPartition(topic, 0)
    specs = {"earliest": OffsetSpec.EARLIEST, "latest": OffsetSpec.LATEST, "max": OffsetSpec.MAX_TIMESTAMP}

    def look():
        a = live_admin(cluster)
        try:
            out = {n: a.list_partition_offsets({tp: s})[tp].offset for n, s in specs.items()}
            out["ts55"] = a.list_partition_offsets({tp: base + 55})[tp].offset
            return out
        except OffsetNotAvailableError as exc:
            # A new leader answers OFFSET_NOT_AVAILABLE until its high watermark reaches its
            # epoch's start (Kafka's Partition.fetchOffsetForTimestamp): retried.
            return repr(exc)
        finally:
            a.close()

    before = look()
    assert before == {"earliest": 0, "latest": 8, "max": 3, "ts55": 3}, before
    victim = leader(cluster, topic)
    cluster.kill(victim)
    leader(cluster, topic, 0, victim)
    wait_until(lambda: look() == before, "the same offsets from the new leader", 30, 0.5, detail=look)
