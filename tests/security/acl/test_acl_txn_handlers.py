"""The authorization of the transaction, SCRAM-credential and reassignment handlers, called
directly with a real AclAuthorizer (file store) and a stand-in broker that records what reached
the coordinators: Kafka's error codes and response forms for each refusal (``KafkaApis``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from broker.handlers import RequestContext
from broker.handlers.add_offsets_to_txn import handle_add_offsets_to_txn
from broker.handlers.add_partitions_to_txn import handle_add_partitions_to_txn
from broker.handlers.alter_partition_reassignments import handle_alter_partition_reassignments
from broker.handlers.alter_user_scram_credentials import handle_alter_user_scram_credentials
from broker.handlers.describe_transactions import handle_describe_transactions
from broker.handlers.describe_user_scram_credentials import handle_describe_user_scram_credentials
from broker.handlers.end_txn import handle_end_txn
from broker.handlers.list_partition_reassignments import handle_list_partition_reassignments
from broker.handlers.list_transactions import handle_list_transactions
from broker.handlers.txn_offset_commit import handle_txn_offset_commit
from broker.handlers.write_txn_markers import handle_write_txn_markers
from coordinator.acl_authorizer import AclAuthorizer, AllowAll
from coordinator.acl_model import (
    CLUSTER_NAME,
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from coordinator.acl_store import FileAclStore
from coordinator.principal import KafkaPrincipal
from coordinator.transaction_listing import TxnDescription, TxnListing
from protocol.errors import ErrorCode
from protocol.messages import (
    AddOffsetsToTxnRequest,
    AddPartitionsToTxnRequest,
    AlterPartitionReassignmentsRequest,
    AlterUserScramCredentialsRequest,
    DescribeTransactionsRequest,
    DescribeUserScramCredentialsRequest,
    EndTxnRequest,
    ListPartitionReassignmentsRequest,
    ListTransactionsRequest,
    TxnOffsetCommitRequest,
    WriteTxnMarkersRequest,
)

ALICE = KafkaPrincipal("User", "alice")
Op = AclOperation
TXN, TOPIC, GROUP, CLUSTER = (
    ResourceType.TRANSACTIONAL_ID,
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.CLUSTER,
)
E = ErrorCode


def grant(rtype: ResourceType, name: str, op: AclOperation) -> AclBinding:
    return AclBinding(
        ResourcePattern(rtype, name, PatternType.LITERAL),
        AccessControlEntry("User:alice", "*", op, AclPermissionType.ALLOW),
    )


class FakeTransactions:
    """Records what reached the transaction coordinator."""

    def __init__(self) -> None:
        self.added: list[tuple[str, list[tuple[str, int]]]] = []
        self.ended: list[str] = []

    async def add_partitions(self, txn_id: str, _pid: int, _epoch: int, partitions: list) -> ErrorCode:
        self.added.append((txn_id, list(partitions)))
        return E.NONE

    async def end_txn(self, txn_id: str, _pid: int, _epoch: int, _committed: bool) -> ErrorCode:
        self.ended.append(txn_id)
        return E.NONE

    def verify_partitions(self, _txn_id: str, _pid: int, _epoch: int, partitions: list) -> dict:
        return dict.fromkeys(partitions, E.NONE)

    def describe(self, _txn_id: str) -> TxnDescription:
        return TxnDescription(E.NONE, "Ongoing", 60_000, 1, 7, 0, {"seen": [0], "hidden": [1]})

    def list_transactions(self, *_args: Any) -> tuple[ErrorCode, list[str], list[TxnListing]]:
        return E.NONE, [], [TxnListing("tx", 7, "Ongoing"), TxnListing("other", 8, "Empty")]


class FakeGroups:
    topic_name = "__consumer_offsets"

    def __init__(self) -> None:
        self.committed: list[tuple[str, int]] = []

    def partition_for(self, _group: str) -> int:
        return 0

    async def commit_txn_offsets(self, _group: str, *args: Any, **_kw: Any) -> list[ErrorCode]:
        entries = args[-1]
        self.committed.extend((e.topic, e.partition) for e in entries)
        return [E.NONE] * len(entries)


class FakeReplicaManager:
    def __init__(self) -> None:
        self.markers: list[Any] = []

    async def write_txn_markers(self, markers: list) -> list[dict]:
        self.markers.extend(markers)
        return [dict.fromkeys(m.partitions, E.NONE) for m in markers]


def fake_broker(authorizer: Any) -> SimpleNamespace:
    known = {("t", 0), ("t", 1), ("u", 0), ("__consumer_offsets", 0)}
    return SimpleNamespace(
        authorizer=authorizer,
        transactions=FakeTransactions(),
        groups=FakeGroups(),
        replica_manager=FakeReplicaManager(),
        metadata_cache=SimpleNamespace(
            partition_state=lambda t, p: SimpleNamespace(replicas=(1,)) if (t, p) in known else None
        ),
        config={"zookeeper.connect": ""},
        broker_id=1,
        topic_admin=SimpleNamespace(is_controller=True),
    )


@pytest.fixture
def authorizer(tmp_path: Path) -> AclAuthorizer:
    a = AclAuthorizer(FileAclStore(tmp_path / "acls.json"))
    asyncio.run(a.start())
    return a


def ctx(broker: Any, version: int = 3) -> RequestContext:
    return RequestContext(broker, 0, version, 1, "test", "10.0.0.7:4242", 1, "SASL_PLAINTEXT", ALICE)


def allow(authorizer: AclAuthorizer, *bindings: AclBinding) -> None:
    asyncio.run(authorizer.create_acls(list(bindings)))


def add_partitions_v3(topics: dict[str, list[int]]) -> AddPartitionsToTxnRequest:
    R = AddPartitionsToTxnRequest
    return R(
        v3_and_below_transactional_id="tx",
        v3_and_below_producer_id=7,
        v3_and_below_producer_epoch=0,
        v3_and_below_topics=[R.AddPartitionsToTxnTopic(name=t, partitions=ps) for t, ps in topics.items()],
    )


def partition_errors(response: Any) -> dict[tuple[str, int], int]:
    return {
        (t.name, p.partition_index): p.partition_error_code
        for t in response.results_by_topic_v3_and_below
        for p in t.results_by_partition
    }


def test_add_partitions_to_txn_v3(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    request = add_partitions_v3({"t": [0, 1], "u": [0]})
    run = lambda: asyncio.run(handle_add_partitions_to_txn(ctx(broker), request))  # noqa: E731
    # no Write on the transactional id: every partition, nothing added
    assert set(partition_errors(run()).values()) == {E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code}
    allow(authorizer, grant(TXN, "tx", Op.WRITE), grant(TOPIC, "t", Op.WRITE))
    # Write on t only: u refused, t's partitions not attempted
    assert partition_errors(run()) == {
        ("t", 0): E.OPERATION_NOT_ATTEMPTED.code,
        ("t", 1): E.OPERATION_NOT_ATTEMPTED.code,
        ("u", 0): E.TOPIC_AUTHORIZATION_FAILED.code,
    }
    assert broker.transactions.added == []
    # an unknown partition of an allowed topic, and an internal topic (never writable here)
    allow(authorizer, grant(TOPIC, "__consumer_offsets", Op.WRITE))
    mixed = asyncio.run(
        handle_add_partitions_to_txn(ctx(broker), add_partitions_v3({"t": [0, 9], "__consumer_offsets": [0]}))
    )
    assert partition_errors(mixed) == {
        ("t", 0): E.OPERATION_NOT_ATTEMPTED.code,
        ("t", 9): E.UNKNOWN_TOPIC_OR_PARTITION.code,
        ("__consumer_offsets", 0): E.TOPIC_AUTHORIZATION_FAILED.code,
    }
    allow(authorizer, grant(TOPIC, "u", Op.WRITE))
    assert set(partition_errors(run()).values()) == {0}
    assert broker.transactions.added == [("tx", [("t", 0), ("t", 1), ("u", 0)])]


def test_add_partitions_to_txn_v4_needs_cluster_action(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    R = AddPartitionsToTxnRequest
    request = R(
        transactions=[
            R.AddPartitionsToTxnTransaction(
                transactional_id="tx",
                producer_id=7,
                producer_epoch=0,
                verify_only=False,
                topics=[R.AddPartitionsToTxnTopic(name="t", partitions=[0])],
            )
        ]
    )
    refused = asyncio.run(handle_add_partitions_to_txn(ctx(broker, 4), request))
    assert refused.error_code == E.CLUSTER_AUTHORIZATION_FAILED.code
    assert refused.results_by_transaction == []
    # a broker with ClusterAction needs no Write on the id or the topics
    allow(authorizer, grant(CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION))
    served = asyncio.run(handle_add_partitions_to_txn(ctx(broker, 4), request))
    assert served.error_code == 0
    assert [
        p.partition_error_code for p in served.results_by_transaction[0].topic_results[0].results_by_partition
    ] == [0]
    assert broker.transactions.added == [("tx", [("t", 0)])]


def test_add_offsets_and_end_txn(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    add = AddOffsetsToTxnRequest(transactional_id="tx", producer_id=7, producer_epoch=0, group_id="g")
    end = EndTxnRequest(transactional_id="tx", producer_id=7, producer_epoch=0, committed=True)
    c = ctx(broker)
    assert (
        asyncio.run(handle_add_offsets_to_txn(c, add)).error_code
        == E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
    )
    assert asyncio.run(handle_end_txn(c, end)).error_code == E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
    allow(authorizer, grant(TXN, "tx", Op.WRITE))
    assert asyncio.run(handle_add_offsets_to_txn(c, add)).error_code == E.GROUP_AUTHORIZATION_FAILED.code
    assert broker.transactions.added == []
    assert asyncio.run(handle_end_txn(c, end)).error_code == 0
    allow(authorizer, grant(GROUP, "g", Op.READ))
    assert asyncio.run(handle_add_offsets_to_txn(c, add)).error_code == 0
    assert broker.transactions.added == [("tx", [("__consumer_offsets", 0)])]
    assert broker.transactions.ended == ["tx"]


def test_txn_offset_commit(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    R = TxnOffsetCommitRequest
    request = R(
        transactional_id="tx",
        group_id="g",
        producer_id=7,
        producer_epoch=0,
        topics=[
            R.TxnOffsetCommitRequestTopic(
                name=name,
                partitions=[
                    R.TxnOffsetCommitRequestPartition(
                        partition_index=0, committed_offset=5, committed_metadata=""
                    )
                ],
            )
            for name in ("t", "u")
        ],
    )

    def errors() -> dict[str, int]:
        response = asyncio.run(handle_txn_offset_commit(ctx(broker), request))
        return {t.name: p.error_code for t in response.topics for p in t.partitions}

    assert errors() == dict.fromkeys("tu", E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code)
    allow(authorizer, grant(TXN, "tx", Op.WRITE))
    assert errors() == dict.fromkeys("tu", E.GROUP_AUTHORIZATION_FAILED.code)
    allow(authorizer, grant(GROUP, "g", Op.READ), grant(TOPIC, "t", Op.READ))
    assert errors() == {"t": 0, "u": E.TOPIC_AUTHORIZATION_FAILED.code}
    assert broker.groups.committed == [("t", 0)]


def test_describe_and_list_transactions(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    described = handle_describe_transactions(
        ctx(broker), DescribeTransactionsRequest(transactional_ids=["tx"])
    )
    [state] = described.transaction_states
    assert (state.error_code, state.transactional_id, state.topics) == (
        E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code,
        "tx",
        [],
    )
    listed = handle_list_transactions(
        ctx(broker, 0), ListTransactionsRequest(state_filters=[], producer_id_filters=[])
    )
    assert listed.transaction_states == []
    allow(authorizer, grant(TXN, "tx", Op.DESCRIBE), grant(TOPIC, "seen", Op.DESCRIBE))
    [state] = handle_describe_transactions(
        ctx(broker), DescribeTransactionsRequest(transactional_ids=["tx"])
    ).transaction_states
    assert state.error_code == 0 and state.producer_id == 7
    assert [(t.topic, t.partitions) for t in state.topics] == [("seen", [0])]  # "hidden" left out
    listed = handle_list_transactions(
        ctx(broker, 0), ListTransactionsRequest(state_filters=[], producer_id_filters=[])
    )
    assert [t.transactional_id for t in listed.transaction_states] == ["tx"]


def markers_request() -> WriteTxnMarkersRequest:
    R = WriteTxnMarkersRequest
    return R(
        markers=[
            R.WritableTxnMarker(
                producer_id=7,
                producer_epoch=0,
                transaction_result=True,
                coordinator_epoch=0,
                topics=[R.WritableTxnMarkerTopic(name="t", partition_indexes=[0, 1])],
            )
        ]
    )


def test_write_txn_markers_needs_cluster_action(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)

    def errors() -> list[int]:
        response = asyncio.run(handle_write_txn_markers(ctx(broker, 1), markers_request()))
        return [p.error_code for m in response.markers for t in m.topics for p in t.partitions]

    assert errors() == [E.CLUSTER_AUTHORIZATION_FAILED.code] * 2
    assert broker.replica_manager.markers == []
    allow(authorizer, grant(CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION))
    assert errors() == [0, 0]
    assert len(broker.replica_manager.markers) == 1


def test_write_txn_markers_with_cluster_alter(authorizer: AclAuthorizer) -> None:
    """Kafka 3.9 asks Alter on the cluster first, then ClusterAction."""
    broker = fake_broker(authorizer)
    allow(authorizer, grant(CLUSTER, CLUSTER_NAME, Op.ALTER))
    response = asyncio.run(handle_write_txn_markers(ctx(broker, 1), markers_request()))
    assert [p.error_code for m in response.markers for t in m.topics for p in t.partitions] == [0, 0]


def test_scram_credential_apis_need_cluster_describe_and_alter(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    D, A = DescribeUserScramCredentialsRequest, AlterUserScramCredentialsRequest
    describe = D(users=[D.UserName(name="bob"), D.UserName(name="carol")])
    alter = A(
        deletions=[A.ScramCredentialDeletion(name="zed", mechanism=1)],
        upsertions=[
            A.ScramCredentialUpsertion(
                name="bob", mechanism=1, iterations=4096, salt=b"s", salted_password=b"p"
            )
        ],
    )
    described = asyncio.run(handle_describe_user_scram_credentials(ctx(broker, 0), describe))
    refused = E.CLUSTER_AUTHORIZATION_FAILED.code
    assert described.error_code == refused and described.error_message is None
    assert [(r.user, r.error_code, r.credential_infos) for r in described.results] == [("", refused, [])] * 2
    altered = asyncio.run(handle_alter_user_scram_credentials(ctx(broker, 0), alter))
    assert [(r.user, r.error_code, r.error_message) for r in altered.results] == [
        ("bob", refused, None),
        ("zed", refused, None),
    ]
    # with Describe / Alter on the cluster the request reaches the credential store
    allow(authorizer, grant(CLUSTER, CLUSTER_NAME, Op.ALTER))  # Alter implies Describe
    calls: list[str] = []

    async def describe_creds(_security: Any, _request: Any) -> Any:
        calls.append("describe")
        return SimpleNamespace(error_code=0)

    async def alter_creds(_security: Any, _request: Any) -> Any:
        calls.append("alter")
        return SimpleNamespace(results=[])

    import broker.handlers.alter_user_scram_credentials as alter_module
    import broker.handlers.describe_user_scram_credentials as describe_module

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(describe_module, "describe_user_scram_credentials", describe_creds)
        mp.setattr(alter_module, "alter_user_scram_credentials", alter_creds)
        broker.security = object()
        asyncio.run(handle_describe_user_scram_credentials(ctx(broker, 0), describe))
        asyncio.run(handle_alter_user_scram_credentials(ctx(broker, 0), alter))
    assert calls == ["describe", "alter"]


def test_partition_reassignment_apis_need_cluster_alter_and_describe(authorizer: AclAuthorizer) -> None:
    broker = fake_broker(authorizer)
    A = AlterPartitionReassignmentsRequest
    alter = A(
        timeout_ms=1000,
        topics=[
            A.ReassignableTopic(
                name="t", partitions=[A.ReassignablePartition(partition_index=0, replicas=[1])]
            )
        ],
    )
    listing = ListPartitionReassignmentsRequest(timeout_ms=1000, topics=None)
    refused = E.CLUSTER_AUTHORIZATION_FAILED.code
    altered = asyncio.run(handle_alter_partition_reassignments(ctx(broker, 0), alter))
    assert altered.error_code == refused
    assert altered.error_message == "Request AlterPartitionReassignments is not authorized."
    assert [(t.name, p.error_code) for t in altered.responses for p in t.partitions] == [("t", refused)]
    listed = asyncio.run(handle_list_partition_reassignments(ctx(broker, 0), listing))
    assert (listed.error_code, listed.topics) == (refused, [])
    L = ListPartitionReassignmentsRequest
    asked = L(
        timeout_ms=1000, topics=[L.ListPartitionReassignmentsTopics(name="t", partition_indexes=[0, 1])]
    )
    listed = asyncio.run(handle_list_partition_reassignments(ctx(broker, 0), asked))
    assert listed.error_code == refused
    assert [(t.name, p.partition_index, p.replicas) for t in listed.topics for p in t.partitions] == [
        ("t", 0, []),
        ("t", 1, []),
    ]
    allow(authorizer, grant(CLUSTER, CLUSTER_NAME, Op.DESCRIBE))
    assert asyncio.run(handle_list_partition_reassignments(ctx(broker, 0), listing)).error_code == 0
    assert asyncio.run(handle_alter_partition_reassignments(ctx(broker, 0), alter)).error_code == refused
    allow(authorizer, grant(CLUSTER, CLUSTER_NAME, Op.ALTER))
    altered = asyncio.run(handle_alter_partition_reassignments(ctx(broker, 0), alter))
    assert altered.error_code == 0
    assert [(t.name, p.error_code) for t in altered.responses for p in t.partitions] == [("t", 0)]


def test_everything_passes_without_an_authorizer() -> None:
    broker = fake_broker(AllowAll())
    response = asyncio.run(handle_add_partitions_to_txn(ctx(broker), add_partitions_v3({"t": [0], "u": [0]})))
    assert set(partition_errors(response).values()) == {0}
    listed = handle_list_transactions(
        ctx(broker, 0), ListTransactionsRequest(state_filters=[], producer_id_filters=[])
    )
    assert len(listed.transaction_states) == 2
