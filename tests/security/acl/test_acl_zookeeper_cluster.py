"""ACLs in ZooKeeper, seen by every broker of a 3-broker cluster (Kafka's AclAuthorizer store).

ACLs written into ZooKeeper in Kafka's format before the brokers start (as Kafka's tooling
leaves them) are loaded by every broker; an ACL created through one broker is written to
``/kafka-acl/<Type>/<name>`` (``/kafka-acl-extended/prefixed/...`` for a prefix) with a change
notification, and the other brokers' caches follow: DescribeAcls lists it and their
authorization applies it. On PLAINTEXT every client is ``User:ANONYMOUS``, so the principals
are told apart by host: 127.0.0.1 (the brokers themselves and the test's admin requests) holds
ACLs for everything, 127.0.0.2 only what the test grants.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import CreateAclsRequest, DeleteAclsRequest, DescribeAclsRequest, MetadataRequest
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

CHROOT = "/acl_cluster"
TOPIC, GROUP, CLUSTER = 2, 3, 4
ANY, LITERAL, PREFIXED = 1, 3, 4
DESCRIBE, ALLOW = 8, 3
LOCAL = "127.0.0.1"
OUTSIDER = "127.0.0.2"  # another source address on the loopback: another ACL host


def all_from_local() -> bytes:
    return json.dumps(
        {
            "version": 1,
            "acls": [
                {"principal": "User:ANONYMOUS", "permissionType": "Allow", "operation": "All", "host": LOCAL}
            ],
        }
    ).encode()


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    zk = KazooClient(hosts=zookeeper_shared.connect())
    zk.start(timeout=30)
    try:
        for path in ("kafka-acl/Cluster/kafka-cluster", "kafka-acl/Topic/*", "kafka-acl/Group/*"):
            zk.create(f"{CHROOT}/{path}", all_from_local(), makepath=True)
    finally:
        zk.stop()
        zk.close()
    c = Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=CHROOT,
        base_dir=tmp_path_factory.mktemp("acl-cluster"),
        overrides={
            "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "offsets.topic.num.partitions": "1",
        },
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def kazoo(zookeeper_shared) -> Iterator[KazooClient]:
    zk = KazooClient(hosts=zookeeper_shared.connect(CHROOT))
    zk.start(timeout=30)
    try:
        yield zk
    finally:
        zk.stop()
        zk.close()


def request(cluster: Cluster, i: int, message: Any, version: int, *, source: str = LOCAL) -> Any:
    with WireClient(LOCAL, cluster.port(i)) as client:
        client.sock.close()
        client.sock = socket.create_connection(
            (LOCAL, cluster.port(i)), timeout=10, source_address=(source, 0)
        )
        return client.request(message, version)


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def metadata_error(cluster: Cluster, i: int, topic: str) -> int:
    answer = request(
        cluster,
        i,
        MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
        ),
        9,
        source=OUTSIDER,
    )
    return answer.topics[0].error_code


def described(cluster: Cluster, i: int, principal: str) -> list[tuple[int, str, int, str, int]]:
    answer = request(
        cluster,
        i,
        DescribeAclsRequest(
            resource_type_filter=ANY,
            resource_name_filter=None,
            pattern_type_filter=ANY,
            principal_filter=principal,
            host_filter=None,
            operation=ANY,
            permission_type=ANY,
        ),
        3,
    )
    assert answer.error_code == 0
    return [
        (r.resource_type, r.resource_name, r.pattern_type, a.host, a.operation)
        for r in answer.resources
        for a in r.acls
    ]


def test_acls_in_zookeeper_reach_every_broker(cluster: Cluster, kazoo: KazooClient) -> None:
    # the ACLs written before the start: every broker serves the local host, no one else
    for i in range(3):
        assert "kafka-cluster" in str(described(cluster, i, "User:ANONYMOUS"))
        assert metadata_error(cluster, i, "orders-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code

    creation = CreateAclsRequest.AclCreation(
        resource_type=TOPIC,
        resource_name="orders-",
        resource_pattern_type=PREFIXED,
        principal="User:ANONYMOUS",
        host=OUTSIDER,
        operation=DESCRIBE,
        permission_type=ALLOW,
    )
    created = request(cluster, 0, CreateAclsRequest(creations=[creation]), 3)
    assert [r.error_code for r in created.results] == [0]

    # Kafka's znode and its change notification
    data, _ = kazoo.get("/kafka-acl-extended/prefixed/Topic/orders-")
    assert json.loads(data) == {
        "version": 1,
        "acls": [
            {
                "principal": "User:ANONYMOUS",
                "permissionType": "Allow",
                "operation": "Describe",
                "host": OUTSIDER,
            }
        ],
    }
    notes = kazoo.get_children("/kafka-acl-extended-changes")
    assert any(n.startswith("acl_changes_") for n in notes)
    payloads = [json.loads(kazoo.get(f"/kafka-acl-extended-changes/{n}")[0]) for n in notes]
    assert {"version": 1, "resourceType": "TOPIC", "name": "orders-", "patternType": "PREFIXED"} in payloads

    expected = (TOPIC, "orders-", PREFIXED, OUTSIDER, DESCRIBE)
    for i in (1, 2):
        wait_until(lambda i=i: expected in described(cluster, i, "User:ANONYMOUS"), f"the ACL on broker {i}")
        # Describe granted from 127.0.0.2: the topic's existence is no longer hidden
        assert metadata_error(cluster, i, "orders-1") == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
        assert metadata_error(cluster, i, "payments") == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code

    deletion = DeleteAclsRequest.DeleteAclsFilter(
        resource_type_filter=TOPIC,
        resource_name_filter="orders-",
        pattern_type_filter=PREFIXED,
        principal_filter=None,
        host_filter=None,
        operation=ANY,
        permission_type=ANY,
    )
    deleted = request(cluster, 1, DeleteAclsRequest(filters=[deletion]), 3)
    assert [len(r.matching_acls) for r in deleted.filter_results] == [1]
    assert kazoo.exists("/kafka-acl-extended/prefixed/Topic/orders-") is None
    for i in (0, 2):
        wait_until(
            lambda i=i: metadata_error(cluster, i, "orders-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
            f"the deletion on broker {i}",
        )


def test_literal_acl_written_by_another_tool_is_picked_up(cluster: Cluster, kazoo: KazooClient) -> None:
    """A literal ACL and its ``TOPIC:<name>`` notification written straight into ZooKeeper (as
    Kafka's AclAuthorizer of another broker would) reach every broker."""
    acls = {
        "version": 1,
        "acls": [
            {"principal": "User:ANONYMOUS", "permissionType": "Allow", "operation": "Read", "host": OUTSIDER}
        ],
    }
    kazoo.create("/kafka-acl/Topic/ledger", json.dumps(acls).encode(), makepath=True)
    kazoo.create("/kafka-acl-changes/acl_changes_", b"TOPIC:ledger", sequence=True)
    for i in range(3):
        wait_until(
            lambda i=i: metadata_error(cluster, i, "ledger") == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
            f"the ACL written in ZooKeeper on broker {i}",
        )
