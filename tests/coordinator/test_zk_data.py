"""Kafka's znode JSON (ZkData of Kafka 3.9), byte for byte against Kafka's own examples."""

import json
import uuid

import pytest

from coordinator import zk_data as zd
from coordinator.cluster_state import BrokerEndpoint
from coordinator.zookeeper import BrokerRegistration


def test_paths():
    assert zd.topic_path("t") == "/brokers/topics/t"
    assert zd.partition_state_path("t", 3) == "/brokers/topics/t/partitions/3/state"
    assert zd.topic_partition_path("t", 3) == "/brokers/topics/t/partitions/3"
    assert zd.topic_partitions_path("t") == "/brokers/topics/t/partitions"
    assert zd.config_entity_path("topics", "t") == "/config/topics/t"
    assert zd.delete_topic_path("t") == "/admin/delete_topics/t"
    assert zd.broker_path(7) == "/brokers/ids/7"
    assert zd.PREFERRED_REPLICA_ELECTION_PATH == "/admin/preferred_replica_election"
    assert zd.CONFIG_CHANGES_PATH + "/" + zd.CONFIG_CHANGE_PREFIX == "/config/changes/config_change_"


def test_controller_znode():
    data = zd.encode_controller(1, 1732417000000)
    assert data == b'{"version":2,"brokerid":1,"timestamp":"1732417000000","kraftControllerEpoch":-1}'
    assert zd.decode_controller(data) == 1
    assert zd.decode_controller(b"not json") is None
    assert zd.encode_controller_epoch(1) == b"1"
    assert zd.decode_controller_epoch(b"12") == 12


def test_kafka_uuid_form():
    u = uuid.UUID("c6d4ba3a-2a5c-4a34-9d5c-1e0e0c6a7f3e")
    text = zd.uuid_to_kafka(u)
    assert len(text) == 22 and "=" not in text and "+" not in text and "/" not in text
    assert zd.uuid_from_kafka(text) == u
    # Kafka's Uuid.toString of (MSB=1, LSB=2) is AAAAAAAAAAEAAAAAAAAAAg
    assert zd.uuid_to_kafka(uuid.UUID(int=(1 << 64) | 2)) == "AAAAAAAAAAEAAAAAAAAAAg"
    with pytest.raises(ValueError):
        zd.uuid_from_kafka("AAAA")


def test_topic_znode():
    tid = uuid.UUID(int=(1 << 64) | 2)
    data = zd.encode_topic({1: [2, 3, 1], 0: [1, 2, 3]}, tid)
    assert data == (
        b'{"partitions":{"0":[1,2,3],"1":[2,3,1]},"removing_replicas":{},'
        b'"topic_id":"AAAAAAAAAAEAAAAAAAAAAg","adding_replicas":{},"version":3}'
    )
    decoded = zd.decode_topic(data)
    assert decoded.partitions == {0: (1, 2, 3), 1: (2, 3, 1)}
    assert decoded.topic_id == tid
    # Kafka's example from the facts (other field order) decodes the same
    kafka = (
        b'{"version":3,"partitions":{"0":[1,2,3],"1":[2,3,1]},"adding_replicas":{},'
        b'"removing_replicas":{},"topic_id":"AAAAAAAAAAEAAAAAAAAAAg"}'
    )
    assert zd.decode_topic(kafka) == decoded
    # reassignment lists: only non-empty ones appear
    data = zd.encode_topic({0: [1, 2]}, None, adding_replicas={0: [2], 1: []}, removing_replicas={0: [3]})
    obj = json.loads(data)
    assert obj == {
        "partitions": {"0": [1, 2]},
        "removing_replicas": {"0": [3]},
        "adding_replicas": {"0": [2]},
        "version": 3,
    }
    assert zd.decode_topic(data).topic_id is None
    # a version-1 znode (no topic id, no reassignment maps)
    old = zd.decode_topic(b'{"version":1,"partitions":{"0":[5]}}')
    assert old.partitions == {0: (5,)} and old.topic_id is None and old.adding_replicas == {}


def test_partition_state_znode():
    state = zd.LeaderIsrAndEpoch(leader=1, leader_epoch=0, isr=(1, 2, 3), controller_epoch=1)
    data = zd.encode_partition_state(state)
    assert data == b'{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}'
    assert zd.decode_partition_state(data, 4) == zd.LeaderIsrAndEpoch(1, 0, (1, 2, 3), 1, 0, 4)
    recovering = zd.LeaderIsrAndEpoch(2, 5, (2,), 3, zd.RECOVERING)
    data = zd.encode_partition_state(recovering)
    assert data == (
        b'{"controller_epoch":3,"leader":2,"version":1,"leader_recovery_state":1,"leader_epoch":5,"isr":[2]}'
    )
    assert zd.decode_partition_state(data, 0).leader_recovery_state == zd.RECOVERING
    bumped = state.new_leader_and_isr(2, [2, 3], 4)
    assert (bumped.leader, bumped.leader_epoch, bumped.isr, bumped.controller_epoch) == (2, 1, (2, 3), 4)


def test_config_and_admin_znodes():
    assert zd.encode_config({"retention.ms": "1000"}) == b'{"version":1,"config":{"retention.ms":"1000"}}'
    assert zd.encode_config({}) == b'{"version":1,"config":{}}'
    assert zd.decode_config(b'{"version":1,"config":{"retention.ms":"1000"}}') == {"retention.ms": "1000"}
    assert zd.decode_config(b"") == {}
    assert zd.decode_config(b'{"version":1,"config":{"segment.ms":5}}') == {"segment.ms": "5"}
    for bad, why in (
        (b"{", "not JSON"),
        (b"[1]", "no config object"),
        (b'{"config":[1]}', "no config object"),
    ):
        with pytest.raises(ValueError, match=f"/config/topics/t: {why}"):
            zd.decode_config(bad, "/config/topics/t")
    assert zd.encode_config_change("topics/t") == b'{"version":2,"entity_path":"topics/t"}'
    assert zd.decode_config_change(b'{"version":2,"entity_path":"topics/t"}') == "topics/t"
    data = zd.encode_partitions_list([("t", 0)])
    assert data == b'{"version":1,"partitions":[{"topic":"t","partition":0}]}'
    assert zd.decode_partitions_list(data) == [("t", 0)]


def test_broker_znode_round_trip():
    reg = BrokerRegistration(
        broker_id=2,
        endpoints=(BrokerEndpoint("PLAINTEXT", "h1", 9092), BrokerEndpoint("INTERNAL", "::1", 9093)),
        rack="r1",
        security_protocols={"INTERNAL": "SASL_SSL"},
    )
    info = zd.decode_broker(2, reg.to_json(1), epoch=77)
    assert info.broker_id == 2 and info.epoch == 77 and info.rack == "r1"
    assert info.endpoints == (
        BrokerEndpoint("PLAINTEXT", "h1", 9092),
        BrokerEndpoint("INTERNAL", "::1", 9093),
    )
    assert info.security_protocol("INTERNAL") == "SASL_SSL"
    assert info.security_protocol("PLAINTEXT") == "PLAINTEXT"
    # Kafka's own v4 example (BrokerIdZNode docs)
    kafka = (
        b'{"version":4,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666",'
        b'"endpoints":["CLIENT://host1:9092", "REPLICATION://host1:9093"],'
        b'"listener_security_protocol_map":{"CLIENT":"SSL", "REPLICATION":"PLAINTEXT"},"rack":"dc1"}'
    )
    info = zd.decode_broker(1, kafka)
    assert [e.name for e in info.endpoints] == ["CLIENT", "REPLICATION"]
    assert info.security_protocol("CLIENT") == "SSL" and info.rack == "dc1"
