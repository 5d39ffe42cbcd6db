"""A ZooKeeper-mode cluster of three broker processes: topic admin from any broker, Kafka's znodes.

Every admin client is bootstrapped with a broker that is NOT the controller and must find the
controller itself (CreateTopics answers NOT_CONTROLLER elsewhere, as Kafka 3.9 in ZooKeeper
mode without forwarding). Then the znodes are read with kazoo and compared with what Kafka 3.9
writes (``KafkaZkClient`` / ``ZkData``), and every broker's Metadata must agree with them and
with each other.
"""

from __future__ import annotations

import base64
import json
import time

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin import NewTopic as ConfluentNewTopic
from kafka.admin import KafkaAdminClient
from kafka.admin import NewTopic as KafkaNewTopic

from protocol.errors import ErrorCode
from protocol.messages import CreateTopicsRequest
from tests.cluster.zk_cluster_checks import (
    agreed_metadata,
    controller_epoch,
    controller_id,
    kafka_json,
    metadata,
    read_json,
    start_cluster,
    wait_topic_everywhere,
    wait_until,
    zk_session,
)
from tests.support.java_client import JavaClient, require_java
from tests.support.wire_client import WireClient

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

TOPIC_CONFIGS = {"retention.ms": "3600000", "cleanup.policy": "compact", "max.message.bytes": "200000"}


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory):
    c = start_cluster(zookeeper_shared, "/zk_cluster_topics", tmp_path_factory.mktemp("cluster"))
    try:
        yield c
    finally:
        c.close()


def non_controllers(cluster) -> list[int]:
    controller = controller_id(cluster)
    assert controller in range(cluster.n), controller
    return [i for i in range(cluster.n) if i != controller]


# ---------------------------------------------------------------------- topic admin


def test_create_topics_on_a_non_controller_answers_not_controller(cluster):
    other = non_controllers(cluster)[0]
    host, port = cluster.address(other).rsplit(":", 1)
    request = CreateTopicsRequest(
        topics=[
            CreateTopicsRequest.CreatableTopic(name="wire-refused", num_partitions=1, replication_factor=3)
        ],
        timeout_ms=10_000,
    )
    with WireClient(host, int(port)) as client:
        response = client.request(request, 5)
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("wire-refused", ErrorCode.NOT_CONTROLLER.code)
    ]
    with zk_session(cluster) as zk:
        assert zk.exists("/brokers/topics/wire-refused") is None
    # ... and the controller itself creates it.
    controller = controller_id(cluster)
    host, port = cluster.address(controller).rsplit(":", 1)
    with WireClient(host, int(port)) as client:
        response = client.request(request, 5)
    assert [(t.name, t.error_code) for t in response.topics] == [("wire-refused", 0)]
    wait_topic_everywhere(cluster, "wire-refused", 1)


def test_java_admin_on_a_non_controller_creates_an_rf3_topic(cluster):
    require_java()
    other = non_controllers(cluster)[0]
    result = JavaClient(cluster.address(other)).create_topic("rf3-java", 3, 3, configs=TOPIC_CONFIGS)
    assert result["ok"], result
    check_rf3_topic(cluster, "rf3-java", 3, TOPIC_CONFIGS)
    described = JavaClient(cluster.address(other)).describe_topics("rf3-java")
    assert described and described[0]["ok"], described


def test_confluent_admin_on_a_non_controller_creates_an_rf3_topic(cluster):
    other = non_controllers(cluster)[-1]
    admin = AdminClient({"bootstrap.servers": cluster.address(other)})
    futures = admin.create_topics(
        [ConfluentNewTopic("rf3-confluent", 4, 3, config=TOPIC_CONFIGS)],
        operation_timeout=20,
        request_timeout=30,
    )
    assert futures["rf3-confluent"].result(60) is None
    check_rf3_topic(cluster, "rf3-confluent", 4, TOPIC_CONFIGS)


def test_kafka_python_admin_on_a_non_controller_creates_an_rf3_topic(cluster):
    other = non_controllers(cluster)[0]
    admin = KafkaAdminClient(bootstrap_servers=cluster.address(other), request_timeout_ms=30_000)
    try:
        admin.create_topics([KafkaNewTopic("rf3-kafka-python", 5, 3, topic_configs=TOPIC_CONFIGS)])
    finally:
        admin.close()
    check_rf3_topic(cluster, "rf3-kafka-python", 5, TOPIC_CONFIGS)


def test_auto_create_through_a_producer_on_a_non_controller(cluster):
    other = non_controllers(cluster)[0]
    producer = Producer(
        {
            "bootstrap.servers": cluster.address(other),
            "enable.idempotence": True,
            "acks": "all",
            "message.timeout.ms": 60_000,
        }
    )
    delivered = []

    def on_delivery(err, msg):
        delivered.append(
            (err, msg.partition() if err is None else None, msg.offset() if err is None else None)
        )

    for n in range(20):
        producer.produce("auto-created", key=f"k{n}", value=f"v{n}", on_delivery=on_delivery)
    assert producer.flush(60) == 0
    assert len(delivered) == 20
    assert [e for e, _, _ in delivered if e is not None] == []
    # num.partitions=2, default.replication.factor=3 (the cluster's overrides)
    check_rf3_topic(cluster, "auto-created", 2, {})
    # The offsets each partition acked are consecutive from 0 (one producer, one leader each).
    by_partition: dict[int, list[int]] = {}
    for _, p, o in delivered:
        by_partition.setdefault(p, []).append(o)
    for offsets in by_partition.values():
        assert sorted(offsets) == list(range(len(offsets)))


def check_rf3_topic(cluster, topic: str, partitions: int, configs: dict[str, str]) -> None:
    """Every broker's Metadata leads ``topic`` with 3 replicas each, as its znodes say."""
    view = wait_topic_everywhere(cluster, topic, partitions)
    with zk_session(cluster) as zk:
        assignment, _raw, _ = read_json(zk, f"/brokers/topics/{topic}")
        assert assignment["partitions"] == {
            str(p): list(v.replicas) for p, v in sorted(view.topic(topic).items())
        }
        for p, v in view.topic(topic).items():
            assert sorted(v.replicas) == [0, 1, 2]
            state, _, _ = read_json(zk, f"/brokers/topics/{topic}/partitions/{p}/state")
            assert (state["leader"], state["leader_epoch"], state["isr"]) == (
                v.leader,
                v.leader_epoch,
                list(v.isr),
            )
        assert read_json(zk, f"/config/topics/{topic}")[0] == {"version": 1, "config": configs}


# ---------------------------------------------------------------------- Kafka's znodes


def test_znodes_hold_kafkas_json_and_every_broker_agrees(cluster):
    topic = "znodes"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = admin.create_topics(
        [ConfluentNewTopic(topic, 4, 3, config=TOPIC_CONFIGS)], operation_timeout=20
    )
    assert futures[topic].result(60) is None
    view = wait_topic_everywhere(cluster, topic, 4)
    plain = "znodes-no-overrides"
    assert (
        admin.create_topics([ConfluentNewTopic(plain, 1, 3)], operation_timeout=20)[plain].result(60) is None
    )
    wait_topic_everywhere(cluster, plain, 1)
    now_ms = int(time.time() * 1000)

    with zk_session(cluster) as zk:
        # /brokers/ids/<id>: BrokerIdZNode.encode, version 5; ephemeral; no rack configured.
        assert sorted(zk.get_children("/brokers/ids"), key=int) == ["0", "1", "2"]
        for i in range(cluster.n):
            broker, _, stat = read_json(zk, f"/brokers/ids/{i}")
            assert stat.ephemeralOwner != 0
            host, port = cluster.address(i).rsplit(":", 1)
            assert set(broker) == {
                "listener_security_protocol_map",
                "endpoints",
                "jmx_port",
                "features",
                "host",
                "timestamp",
                "port",
                "version",
            }, broker
            assert broker["version"] == 5
            assert (broker["host"], broker["port"]) == (host, int(port))
            assert broker["endpoints"] == [f"PLAINTEXT://{host}:{port}"]
            assert broker["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT"}
            assert broker["jmx_port"] == -1
            assert isinstance(broker["timestamp"], str) and 0 < now_ms - int(broker["timestamp"]) < 3_600_000
            assert isinstance(broker["features"], dict)
            for name, versions in broker["features"].items():
                assert set(versions) == {"min_version", "max_version"}, (name, versions)

        # /controller: ControllerZNode.encode (version 2, timestamp a string), ephemeral.
        controller, raw, stat = read_json(zk, "/controller")
        assert stat.ephemeralOwner != 0
        assert raw == kafka_json(
            {
                "version": 2,
                "brokerid": controller["brokerid"],
                "timestamp": controller["timestamp"],
                "kraftControllerEpoch": -1,
            }
        )
        assert controller["brokerid"] in range(cluster.n)
        assert (
            isinstance(controller["timestamp"], str) and 0 < now_ms - int(controller["timestamp"]) < 3_600_000
        )
        # /controller_epoch: plain decimal text, persistent, >= 1 once a controller was elected.
        epoch_raw, epoch_stat = zk.get("/controller_epoch")
        assert epoch_raw.decode().isdigit() and int(epoch_raw) >= 1
        assert epoch_stat.ephemeralOwner == 0
        epoch = controller_epoch(zk)

        # /brokers/topics/<t>: TopicZNode.encode, version 3 (the kafka_2.13 build's hash order).
        assignment, raw, _ = read_json(zk, f"/brokers/topics/{topic}")
        assert raw == kafka_json(
            {
                "partitions": assignment["partitions"],
                "removing_replicas": {},
                "topic_id": assignment["topic_id"],
                "adding_replicas": {},
                "version": 3,
            }
        )
        assert sorted(assignment["partitions"], key=int) == ["0", "1", "2", "3"]
        for replicas in assignment["partitions"].values():
            assert sorted(replicas) == [0, 1, 2]
        # AdminUtils.assignReplicasToBrokers (rack-unaware): first replicas round-robin.
        assert sorted(assignment["partitions"][str(p)][0] for p in range(3)) == [0, 1, 2]
        topic_id = assignment["topic_id"]
        assert len(topic_id) == 22 and len(base64.urlsafe_b64decode(topic_id + "==")) == 16
        assert topic_id == view.topic_ids[topic]

        # .../partitions/<p>/state: TopicPartitionStateZNode.encode; a new topic's leader is
        # its first live replica, the ISR every live replica, leader epoch 0.
        assert sorted(zk.get_children(f"/brokers/topics/{topic}/partitions"), key=int) == ["0", "1", "2", "3"]
        for p in range(4):
            raw, stat = zk.get(f"/brokers/topics/{topic}/partitions/{p}/state")
            state = json.loads(raw)
            replicas = assignment["partitions"][str(p)]
            assert state["controller_epoch"] <= epoch
            assert raw == kafka_json(
                {
                    "controller_epoch": state["controller_epoch"],
                    "leader": replicas[0],
                    "version": 1,
                    "leader_epoch": 0,
                    "isr": replicas,
                }
            )
            assert stat.ephemeralOwner == 0
            # Metadata agrees with the znodes.
            v = view.topic(topic)[p]
            assert (v.leader, v.leader_epoch, list(v.replicas), list(v.isr), v.offline) == (
                state["leader"],
                state["leader_epoch"],
                replicas,
                state["isr"],
                (),
            )

        # /config/topics/<t>: ConfigEntityZNode.encode, the overrides as strings; written
        # (empty) for a topic without overrides too.
        config, raw, _ = read_json(zk, f"/config/topics/{topic}")
        assert config == {"version": 1, "config": TOPIC_CONFIGS}
        assert raw.startswith(b'{"version":1,"config":{')
        assert read_json(zk, f"/config/topics/{plain}")[0] == {"version": 1, "config": {}}

    # Every broker's Metadata: the same brokers, controller, leaders, replicas, ISR, epochs.
    agreed = wait_until(lambda: agreed_metadata(cluster), "every broker's Metadata to agree")
    assert agreed.controller == controller["brokerid"]
    assert agreed.brokers == {
        i: (cluster.address(i).rsplit(":", 1)[0], cluster.port(i)) for i in range(cluster.n)
    }
    cluster_ids = {metadata(cluster, i).cluster_id for i in range(cluster.n)}
    with zk_session(cluster) as zk:
        assert cluster_ids == {read_json(zk, "/cluster/id")[0]["id"]}
    assert set(agreed.topic(topic)) == {0, 1, 2, 3} and set(agreed.topic(plain)) == {0}
