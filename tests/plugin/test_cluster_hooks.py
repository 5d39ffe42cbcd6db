"""The fault hooks of ``moldau_cluster`` (``broker/testing/cluster.py``) used as a user's test
would: through the plugin's fixture, with a real client producing and raw requests probing
each broker, so a hook that did nothing fails here.

- ``isolate`` / ``rejoin`` / ``heal_all``: an isolated follower gets no answer to a client's
  request and, its fetches lost, leaves the ISR of an acks=all partition; back, it is
  answered and rejoins the ISR.
- ``drop_requests`` / ``delay_responses`` at one named broker or at any: exactly the next
  requests of that API are lost (or held), the other broker's untouched.
"""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

from broker.testing.cluster import InProcessCluster
from broker.testing.embedded import request_once
from protocol.messages import ApiKey, MetadataRequest
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

NO_ANSWER_S = 0.5  # how long a probe waits to see that an answer does not come
ANSWER_S = 30.0  # how long a probe that must be answered may take on a loaded machine
METADATA = MetadataRequest(topics=[], allow_auto_topic_creation=False)


def _answered(cluster: InProcessCluster, broker: int, wait_s: float = ANSWER_S) -> bool:
    """A Metadata request to ``broker`` on a connection of its own: answered within ``wait_s``?"""
    try:
        request_once(cluster.port(broker), METADATA, 12, wait_s)
    except (TimeoutError, ConnectionError):
        return False
    return True


def _lost(cluster: InProcessCluster, broker: int) -> bool:
    """No answer within NO_ANSWER_S (the request was dropped; a late answer would fail it too)."""
    return not _answered(cluster, broker, NO_ANSWER_S)


def _produce(cluster: InProcessCluster, topic: str, values: list[bytes]) -> None:
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all"})
    for v in values:
        producer.produce(topic, value=v)
    assert producer.flush(30) == 0


# A follower's fetch lost while isolated is given up after replica.socket.timeout.ms (+ the
# fetch wait): short, so that it fetches again soon after it rejoins.
@pytest.mark.moldau_cluster(
    brokers=3, overrides={"replica.lag.time.max.ms": 1000, "replica.socket.timeout.ms": 1500}
)
def test_an_isolated_follower_loses_its_clients_and_the_isr_until_it_rejoins(moldau_cluster):
    c = moldau_cluster
    c.create_topic("iso", replication_factor=3)
    c.wait_in_sync("iso")
    leader, controller = c.leader("iso"), c.controller()
    # As in Kafka, the leader must reach the controller to shrink the ISR: isolate another broker.
    victim = next(b for b in c.partition("iso").replicas if b not in (leader, controller))
    assert _answered(c, victim)

    c.isolate(victim)
    assert _lost(c, victim)  # a client's request is lost
    assert _answered(c, leader)
    _produce(c, "iso", [b"while-isolated"])  # acks=all: answered once the ISR left the victim out
    wait_until(lambda: victim not in c.partition("iso", broker=leader).isr, "the ISR without the victim")

    c.rejoin(victim)
    assert _answered(c, victim)
    c.wait_in_sync("iso")  # it fetched again and caught up

    # heal_all undoes an isolation and the cuts together.
    c.isolate(victim)
    c.cut_link(leader, victim)
    assert _lost(c, victim)
    c.heal_all()
    assert _answered(c, victim)
    _produce(c, "iso", [b"after-heal"])
    c.wait_in_sync("iso")


@pytest.mark.moldau_cluster(brokers=2)
def test_request_hooks_act_at_the_named_broker_or_at_any(moldau_cluster):
    c = moldau_cluster
    lost = c.drop_requests("Metadata", broker=1)
    assert _answered(c, 0)  # the other broker's requests pass
    assert _lost(c, 1)
    assert _answered(c, 1)  # only the next one
    assert lost.handled == 1 and not lost.active

    anywhere = c.drop_requests(ApiKey.METADATA, count=2)
    assert _lost(c, 0) and _lost(c, 1)
    assert _answered(c, 0) and _answered(c, 1)
    assert anywhere.handled == 2 and not anywhere.active

    held = c.delay_responses("Metadata", seconds=2.0, broker=0)
    assert _answered(c, 1)
    with WireClient("127.0.0.1", c.port(0)) as probe:
        corr = probe.send(METADATA, 12)
        probe.sock.settimeout(NO_ANSWER_S)
        with pytest.raises(TimeoutError):  # handled, its answer held
            probe.recv(ApiKey.METADATA, 12)
        probe.sock.settimeout(10)
        got, response = probe.recv(ApiKey.METADATA, 12)  # then it comes
        assert got == corr and {b.node_id for b in response.brokers} == {0, 1}
    assert held.handled == 1
