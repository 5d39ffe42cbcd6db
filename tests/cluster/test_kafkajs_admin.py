"""The KafkaJS admin client against a ZooKeeper-mode Moldau cluster of three broker processes:
answers compared with what Kafka 3.9's KafkaApis / ZkAdminManager / LogConfig give. KafkaJS
sends requests as its users write them (duplicates included) and retries what it takes for
transient errors, so a wrong error code shows as a call that never ends.

The same configs' every value and error are checked fast, in process, in
tests/broker/test_topic_configs_kafka_parity.py; DeleteTopics' in
tests/broker/test_delete_topics_kafka_parity.py."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.cluster.zk_cluster_checks import start_cluster
from tests.support.kafkajs_client import require_kafkajs
from tests.support.kafkajs_session import run

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

QUICK_RETRY = {"retries": 2, "initialRetryTime": 100, "maxRetryTime": 300}


@pytest.fixture(scope="module")
def cluster(zookeeper_shared: Any, tmp_path_factory: pytest.TempPathFactory):
    require_kafkajs()
    c = start_cluster(
        zookeeper_shared,
        f"/kjsadm_{uuid.uuid4().hex[:8]}",
        tmp_path_factory.mktemp("kjsadm"),
        **{"auto.create.topics.enable": "false"},
    )
    yield c
    c.close()


def ops(cluster, *steps: dict) -> list[dict]:
    d = run(cluster.bootstrap, "admin-ops", timeout=40, ops=list(steps), retry=QUICK_RETRY)
    out = [line for line in d.lines if line.get("event") in ("result", "error")]
    assert len(out) == len(steps), (d.lines, "".join(d.stderr[-20:]))
    return out


# Topic configs Kafka 3.9's LogConfig defines (beyond the ones Moldau acts on), with valid values
# for a ZooKeeper-mode cluster without tiered storage.
KAFKA_TOPIC_CONFIGS = {
    "leader.replication.throttled.replicas": "*",
    "follower.replication.throttled.replicas": "0:1",
    "message.downconversion.enable": "false",
    "message.timestamp.difference.max.ms": "60000",
    "message.format.version": "3.0-IV1",
    "remote.storage.enable": "false",
    "local.retention.ms": "-2",
}


def test_create_topic_with_every_kafka_topic_config(cluster):
    """KafkaJS ``admin.createTopics`` with the topic configs Kafka 3.9 defines beyond the ones
    Moldau acts on: created, and ``describeConfigs`` shows each override (Kafka:
    ZkAdminManager.createTopics -> AdminZkClient.validateTopicCreate -> LogConfig.validate,
    whose CONFIG defines them; ConfigHelper.describeConfigs lists them)."""
    topic = f"kjs-cfg-{uuid.uuid4().hex[:6]}"
    entries = [{"name": n, "value": v} for n, v in sorted(KAFKA_TOPIC_CONFIGS.items())]
    created, described = ops(
        cluster,
        {
            "op": "createTopics",
            "args": {
                "topics": [
                    {"topic": topic, "numPartitions": 1, "replicationFactor": 3, "configEntries": entries}
                ]
            },
        },
        {
            "op": "describeConfigs",
            "args": {"resources": [{"type": 2, "name": topic, "configNames": sorted(KAFKA_TOPIC_CONFIGS)}]},
        },
    )
    assert created == {"event": "result", "i": 0, "op": "createTopics", "result": True}, created
    found = described["result"]["resources"][0]["configEntries"]
    assert {e["configName"]: e["configValue"] for e in found} == KAFKA_TOPIC_CONFIGS


def test_alter_configs_throttled_replicas(cluster):
    """KafkaJS ``admin.alterConfigs`` setting a topic's leader/follower.replication.throttled.replicas
    (what kafka-reassign-partitions.sh --throttle writes): accepted (Kafka: ZkAdminManager.alterConfigs
    -> AdminZkClient.validateTopicConfig -> LogConfig.validate; docs/COMPATIBILITY.md: accepted, without
    throttling)."""
    topic = f"kjs-thr-{uuid.uuid4().hex[:6]}"
    created, altered = ops(
        cluster,
        {
            "op": "createTopics",
            "args": {"topics": [{"topic": topic, "numPartitions": 1, "replicationFactor": 3}]},
        },
        {
            "op": "alterConfigs",
            "args": {
                "resources": [
                    {
                        "type": 2,
                        "name": topic,
                        "configEntries": [
                            {"name": "leader.replication.throttled.replicas", "value": "0:0,0:1"},
                            {"name": "follower.replication.throttled.replicas", "value": "0:2"},
                        ],
                    }
                ]
            },
        },
    )
    assert created["event"] == "result", created
    assert altered["event"] == "result", altered
    assert altered["result"]["resources"][0]["errorCode"] == 0


def test_describe_configs_lists_kafka_topic_configs(cluster):
    """KafkaJS ``admin.describeConfigs`` of a topic with no config names: every topic config of
    Kafka 3.9's LogConfig is listed (Kafka: ConfigHelper.describeConfigs, TOPIC ->
    createResponseConfig(allConfigs(logConfig)), LogConfig.configNames)."""
    topic = f"kjs-dsc-{uuid.uuid4().hex[:6]}"
    created, described = ops(
        cluster,
        {
            "op": "createTopics",
            "args": {"topics": [{"topic": topic, "numPartitions": 1, "replicationFactor": 3}]},
        },
        {"op": "describeConfigs", "args": {"resources": [{"type": 2, "name": topic}]}},
    )
    assert created["event"] == "result", created
    names = {e["configName"] for e in described["result"]["resources"][0]["configEntries"]}
    missing = sorted(set(KAFKA_TOPIC_CONFIGS) - names)
    assert not missing, missing


def test_delete_topics_same_topic_twice(cluster):
    """KafkaJS ``admin.deleteTopics({topics: [t, t]})`` (KafkaJS does not remove duplicates):
    Kafka answers NONE for both entries, so the call succeeds (Kafka: KafkaApis
    .handleDeleteTopicsRequest checks every entry against the metadata cache before
    deleting the set ``toDelete`` once; ZkAdminManager.deleteTopics). Moldau deletes entry by
    entry, the second finds the topic gone and answers UNKNOWN_TOPIC_OR_PARTITION, which KafkaJS
    retries until it gives up, although the topic was deleted."""
    topic = f"kjs-del-{uuid.uuid4().hex[:6]}"
    created, deleted, listed = ops(
        cluster,
        {
            "op": "createTopics",
            "args": {"topics": [{"topic": topic, "numPartitions": 1, "replicationFactor": 3}]},
        },
        {"op": "deleteTopics", "args": {"topics": [topic, topic]}},
        {"op": "listTopics", "argList": []},
    )
    assert created["event"] == "result", created
    assert topic not in listed["result"]
    assert deleted == {"event": "result", "i": 1, "op": "deleteTopics", "result": None}, deleted
