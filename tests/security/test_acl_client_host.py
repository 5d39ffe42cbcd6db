"""The client host an ACL's host is compared with: Kafka's authorizer uses
``requestContext.clientAddress.getHostAddress``, Java's text of the address, which writes IPv6
uncompressed (``0:0:0:0:0:0:0:1``, not ``::1``). An ACL stored in that form (by Kafka's tools)
applies to an IPv6 client here too. Built in-process from a peer string, so no IPv6 socket is
needed."""

from __future__ import annotations

import json
import socket

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.handlers import RequestContext, java_host_address
from broker.handlers.join_group import client_host as join_group_client_host
from broker.testing.inprocess import LoopThread
from coordinator.acl_model import AclOperation, ResourceType
from protocol.messages import ApiKey


@pytest.mark.parametrize(
    ("ip", "java"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("::1", "0:0:0:0:0:0:0:1"),
        ("::", "0:0:0:0:0:0:0:0"),
        ("2001:DB8::FF00:42:8329", "2001:db8:0:0:0:ff00:42:8329"),
        ("fe80::1%7", "fe80:0:0:0:0:0:0:1%7"),
        # a dual-stack socket's IPv4 client: an Inet4Address in Java
        ("::ffff:192.0.2.10", "192.0.2.10"),
    ],
)
def test_java_host_address(ip, java):
    assert java_host_address(ip) == java


def test_java_host_address_writes_a_scope_as_its_interface_index():
    """Java's socket addresses carry the scope id (``fe80:...%2``), Python's the interface name."""
    index, name = socket.if_nameindex()[0]
    assert java_host_address(f"fe80::1%{name}") == f"fe80:0:0:0:0:0:0:1%{index}"


def test_join_group_client_host_is_the_java_inet_address_text():
    """KafkaApis.handleJoinGroupRequest: request.context.clientAddress.toString, "/" + the IP."""
    assert join_group_client_host("::1:50000") == "/0:0:0:0:0:0:0:1"
    assert join_group_client_host("127.0.0.1:50000") == "/127.0.0.1"


def _acl(host: str, permission: str) -> dict:
    return {
        "principal": "User:ANONYMOUS",
        "permissionType": permission,
        "operation": "Describe",
        "host": host,
    }


@pytest.fixture
def broker_with_acls(tmp_path):
    """A broker whose ACLs use Kafka's host form: Describe on "t6" allowed from
    0:0:0:0:0:0:0:1 only; Describe on "d6" allowed everywhere but denied from 0:0:0:0:0:0:0:1."""
    log_dir = tmp_path / "data"
    log_dir.mkdir()
    resources = [
        {
            "resourceType": "Topic",
            "patternType": "LITERAL",
            "name": "t6",
            "acls": [_acl("0:0:0:0:0:0:0:1", "Allow")],
        },
        {
            "resourceType": "Topic",
            "patternType": "LITERAL",
            "name": "d6",
            "acls": [_acl("*", "Allow"), _acl("0:0:0:0:0:0:0:1", "Deny")],
        },
    ]
    (log_dir / "acls.json").write_text(json.dumps({"version": 1, "resources": resources}))
    thread = LoopThread("acl-client-host")
    broker = Broker(
        BrokerConfig(
            {
                "log.dirs": str(log_dir),
                "listeners": "PLAINTEXT://127.0.0.1:0",
                "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            }
        )
    )
    thread.call(broker.start())
    yield thread, broker
    thread.call(broker.stop())
    thread.close()


def test_acl_host_in_java_form_applies_to_an_ipv6_client(broker_with_acls):
    thread, broker = broker_with_acls

    async def describe(peer: str, topic: str) -> bool:
        ctx = RequestContext(broker, int(ApiKey.METADATA), 12, 1, "t", peer, 0, "PLAINTEXT")
        return ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, topic)

    # the peer as the connection writes it: "<ip>:<port>", the IPv6 address uncompressed by Python
    assert thread.call(describe("::1:50000", "t6"))
    assert not thread.call(describe("127.0.0.1:50000", "t6"))
    # a Deny for the IPv6 host is not bypassed by Python's "::1"
    assert not thread.call(describe("::1:50000", "d6"))
    assert thread.call(describe("127.0.0.1:50000", "d6"))
