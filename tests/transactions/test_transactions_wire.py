"""The transaction coordinator's APIs on the wire, version by version: what ApiVersions
advertises, InitProducerId, AddPartitionsToTxn (v0-3 and the brokers' v4+ batched form with
verify_only), AddOffsetsToTxn, EndTxn, TxnOffsetCommit, DescribeTransactions and
ListTransactions, with Kafka's errors (PRODUCER_FENCED as INVALID_PRODUCER_EPOCH before it
existed, UNKNOWN_TOPIC_OR_PARTITION with OPERATION_NOT_ATTEMPTED, ...)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    AddOffsetsToTxnRequest,
    AddPartitionsToTxnRequest,
    ApiKey,
    ApiVersionsRequest,
    CreateTopicsRequest,
    DescribeTransactionsRequest,
    EndTxnRequest,
    FindCoordinatorRequest,
    InitProducerIdRequest,
    ListTransactionsRequest,
    OffsetFetchRequest,
    TxnOffsetCommitRequest,
)
from tests.support.broker_process import BrokerProcess
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

E = ErrorCode
APT = AddPartitionsToTxnRequest


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory):
    b = BrokerProcess(
        tmp_path_factory.mktemp("txn-wire-coord") / "data",
        {"transaction.state.log.num.partitions": "2", "offsets.topic.num.partitions": "2"},
    )
    b.start()
    yield b
    b.stop()


@pytest.fixture
def client(broker):
    with WireClient(broker.host, broker.port) as c:
        for key_type, key in ((1, "any"), (0, "any")):
            request = FindCoordinatorRequest(key=key, key_type=key_type)
            wait_until(
                lambda request=request: c.request(request, 1).error_code == 0,
                f"a coordinator of key type {key_type}",
            )
        c.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(name="wt", num_partitions=2, replication_factor=1)
                ],
                timeout_ms=10_000,
            ),
            5,
        )
        yield c


def init(c: WireClient, txn_id: str, version: int = 4, **kw):
    return c.request(
        InitProducerIdRequest(transactional_id=txn_id, transaction_timeout_ms=60_000, **kw), version
    )


def add_v3(c: WireClient, txn_id: str, pid: int, epoch: int, parts: dict[str, list[int]], version: int = 3):
    r = c.request(
        APT(
            v3_and_below_transactional_id=txn_id,
            v3_and_below_producer_id=pid,
            v3_and_below_producer_epoch=epoch,
            v3_and_below_topics=[
                APT.AddPartitionsToTxnTopic(name=t, partitions=ps) for t, ps in parts.items()
            ],
        ),
        version,
    )
    return {
        (t.name, p.partition_index): p.partition_error_code
        for t in r.results_by_topic_v3_and_below
        for p in t.results_by_partition
    }


def test_advertised_versions(client):
    keys = {
        k.api_key: (k.min_version, k.max_version) for k in client.request(ApiVersionsRequest(), 2).api_keys
    }
    assert keys[int(ApiKey.ADD_PARTITIONS_TO_TXN)] == (0, 5)
    assert keys[int(ApiKey.ADD_OFFSETS_TO_TXN)] == (0, 4)
    assert keys[int(ApiKey.END_TXN)] == (0, 4)
    assert keys[int(ApiKey.TXN_OFFSET_COMMIT)] == (0, 4)
    assert keys[int(ApiKey.DESCRIBE_TRANSACTIONS)] == (0, 0)
    assert keys[int(ApiKey.LIST_TRANSACTIONS)] == (0, 2)
    assert keys[int(ApiKey.WRITE_TXN_MARKERS)][1] >= 1


def test_full_transaction_on_the_wire(client):
    txn = f"w-{uuid.uuid4().hex[:6]}"
    r = init(client, txn, 0)
    assert r.error_code == 0 and r.producer_epoch == 0
    pid = r.producer_id
    assert add_v3(client, txn, pid, 0, {"wt": [0, 1], "nope": [0]}) == {
        ("wt", 0): E.OPERATION_NOT_ATTEMPTED.code,
        ("wt", 1): E.OPERATION_NOT_ATTEMPTED.code,
        ("nope", 0): E.UNKNOWN_TOPIC_OR_PARTITION.code,
    }
    assert add_v3(client, txn, pid, 0, {"wt": [0, 1]}, 1) == {("wt", 0): 0, ("wt", 1): 0}
    # the brokers' form: verify_only, batched
    r = client.request(
        APT(
            transactions=[
                APT.AddPartitionsToTxnTransaction(
                    transactional_id=txn,
                    producer_id=pid,
                    producer_epoch=0,
                    verify_only=True,
                    topics=[APT.AddPartitionsToTxnTopic(name="wt", partitions=[0, 1])],
                ),
                APT.AddPartitionsToTxnTransaction(
                    transactional_id=txn,
                    producer_id=pid,
                    producer_epoch=7,
                    verify_only=True,
                    topics=[APT.AddPartitionsToTxnTopic(name="wt", partitions=[0])],
                ),
                # KafkaApis checks the partitions of a verify_only transaction too
                APT.AddPartitionsToTxnTransaction(
                    transactional_id=f"{txn}-unknown-partition",
                    producer_id=pid,
                    producer_epoch=0,
                    verify_only=True,
                    topics=[APT.AddPartitionsToTxnTopic(name="wt", partitions=[0, 7])],
                ),
                # handleVerifyPartitionsInTransaction: an empty transactional id
                APT.AddPartitionsToTxnTransaction(
                    transactional_id="",
                    producer_id=pid,
                    producer_epoch=0,
                    verify_only=True,
                    topics=[APT.AddPartitionsToTxnTopic(name="wt", partitions=[1])],
                ),
            ]
        ),
        4,
    )
    answers = [
        {
            (t.name, p.partition_index): p.partition_error_code
            for t in x.topic_results
            for p in t.results_by_partition
        }
        for x in r.results_by_transaction
    ]
    assert answers == [
        {("wt", 0): 0, ("wt", 1): 0},
        {("wt", 0): E.PRODUCER_FENCED.code},
        {("wt", 0): E.OPERATION_NOT_ATTEMPTED.code, ("wt", 7): E.UNKNOWN_TOPIC_OR_PARTITION.code},
        {("wt", 1): E.INVALID_REQUEST.code},
    ]
    group = f"g-{txn}"
    r = client.request(
        AddOffsetsToTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=0, group_id=group), 3
    )
    assert r.error_code == 0
    assert txn_offset_commit(client, txn, group, pid, 0, {"wt": 42, "nope": 1}) == [
        [0],
        [E.UNKNOWN_TOPIC_OR_PARTITION.code],
    ]
    fetch = OffsetFetchRequest(
        group_id=group,
        topics=[OffsetFetchRequest.OffsetFetchRequestTopic(name="wt", partition_indexes=[0])],
        require_stable=True,
    )
    pending = client.request(fetch, 7).topics[0].partitions[0]
    assert pending.error_code == E.UNSTABLE_OFFSET_COMMIT.code
    d = client.request(
        DescribeTransactionsRequest(transactional_ids=[txn, "unknown-id"]), 0
    ).transaction_states
    assert (d[0].error_code, d[0].transaction_state, d[0].producer_id) == (0, "Ongoing", pid)
    topics = {t.topic: sorted(t.partitions) for t in d[0].topics}
    assert topics["wt"] == [0, 1] and len(topics["__consumer_offsets"]) == 1
    assert d[1].error_code == E.TRANSACTIONAL_ID_NOT_FOUND.code
    lst = client.request(ListTransactionsRequest(state_filters=["Ongoing"], producer_id_filters=[pid]), 0)
    assert [t.transactional_id for t in lst.transaction_states] == [txn]
    # a stale epoch: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before
    assert (
        client.request(
            EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=5, committed=True), 1
        ).error_code
        == E.INVALID_PRODUCER_EPOCH.code
    )
    assert (
        client.request(
            EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=5, committed=True), 3
        ).error_code
        == E.PRODUCER_FENCED.code
    )
    assert (
        client.request(
            EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=0, committed=True), 4
        ).error_code
        == 0
    )
    describe = DescribeTransactionsRequest(transactional_ids=[txn])
    wait_until(
        lambda: client.request(describe, 0).transaction_states[0].transaction_state == "CompleteCommit",
        "CompleteCommit",
    )
    committed = client.request(fetch, 7).topics[0].partitions[0]
    assert (committed.error_code, committed.committed_offset) == (0, 42)


def test_init_errors_and_fencing_versions(client):
    txn = f"f-{uuid.uuid4().hex[:6]}"
    assert (
        init(
            client,
            txn,
            2,
        ).error_code
        == 0
    )
    assert (
        client.request(
            InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=900_001), 2
        ).error_code
        == E.INVALID_TRANSACTION_TIMEOUT.code
    )
    r = init(client, txn, 4)
    assert r.producer_epoch == 1
    # KIP-360 with a producer id that is not the id's: fenced, INVALID_PRODUCER_EPOCH before v4
    assert (
        init(client, txn, 3, producer_id=r.producer_id + 1000, producer_epoch=0).error_code
        == E.INVALID_PRODUCER_EPOCH.code
    )
    assert (
        init(client, txn, 4, producer_id=r.producer_id + 1000, producer_epoch=0).error_code
        == E.PRODUCER_FENCED.code
    )
    bumped = init(client, txn, 4, producer_id=r.producer_id, producer_epoch=1)
    assert (bumped.error_code, bumped.producer_id, bumped.producer_epoch) == (0, r.producer_id, 2)


def txn_offset_commit(
    c: WireClient, txn: str, group: str, pid: int, epoch: int, offsets: dict[str, int], version: int = 3
) -> list[list[int]]:
    """TxnOffsetCommit (v3 unless said) of partition 0 of each topic at its offset: the error
    codes by topic."""
    r = c.request(
        TxnOffsetCommitRequest(
            transactional_id=txn,
            group_id=group,
            producer_id=pid,
            producer_epoch=epoch,
            generation_id=-1,
            member_id="",
            topics=[
                TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic(
                    name=topic,
                    partitions=[
                        TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition(
                            partition_index=0, committed_offset=offset
                        )
                    ],
                )
                for topic, offset in offsets.items()
            ],
        ),
        version,
    )
    return [[p.error_code for p in t.partitions] for t in r.topics]


def test_txn_offset_commit_is_verified_against_the_transaction(client):
    """KIP-890 part 1 for TxnOffsetCommit (Kafka 3.6+): the group's ``__consumer_offsets``
    partition must be in the producer's ongoing transaction with that producer id and epoch,
    else INVALID_TXN_STATE (not added) or INVALID_PRODUCER_EPOCH (fenced), and nothing is
    written: a refused commit is never applied, even by a later COMMIT marker."""
    txn = f"v-{uuid.uuid4().hex[:6]}"
    group = f"g-{txn}"
    r = init(client, txn)
    assert r.error_code == 0
    pid, epoch = r.producer_id, r.producer_epoch
    # no AddOffsetsToTxn: the partition is not in the transaction (there is none)
    assert txn_offset_commit(client, txn, group, pid, epoch, {"wt": 7}) == [[E.INVALID_TXN_STATE.code]]
    r = client.request(
        AddOffsetsToTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=epoch, group_id=group), 3
    )
    assert r.error_code == 0
    assert txn_offset_commit(client, txn, group, pid, epoch, {"wt": 42}) == [[0]]
    r = client.request(
        EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=epoch, committed=True), 3
    )
    assert r.error_code == 0
    fetch = OffsetFetchRequest(
        group_id=group,
        topics=[OffsetFetchRequest.OffsetFetchRequestTopic(name="wt", partition_indexes=[0])],
        require_stable=True,
    )

    def stable_committed() -> Any:
        committed = client.request(fetch, 7).topics[0].partitions[0]
        return None if committed.error_code == E.UNSTABLE_OFFSET_COMMIT.code else committed

    committed = wait_until(stable_committed, "a stable committed offset")
    assert (committed.error_code, committed.committed_offset) == (0, 42)

    # a second transaction holding the group: a commit with an epoch the coordinator does
    # not have is fenced, and the transaction's COMMIT marker does not apply it
    add_offsets = AddOffsetsToTxnRequest(
        transactional_id=txn, producer_id=pid, producer_epoch=epoch, group_id=group
    )

    def added() -> Any:  # CONCURRENT_TRANSACTIONS until the first one is CompleteCommit
        r = client.request(add_offsets, 3)
        return None if r.error_code == E.CONCURRENT_TRANSACTIONS.code else r

    assert wait_until(added, "the second transaction begun").error_code == 0
    assert txn_offset_commit(client, txn, group, pid, epoch + 3, {"wt": 8}) == [
        [E.INVALID_PRODUCER_EPOCH.code]
    ]
    r = client.request(
        EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=epoch, committed=True), 3
    )
    assert r.error_code == 0
    committed = wait_until(stable_committed, "a stable committed offset after the fenced commit")
    assert (committed.error_code, committed.committed_offset) == (0, 42)
