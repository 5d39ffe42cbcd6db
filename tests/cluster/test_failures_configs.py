"""Jepsen-style: min.insync.replicas changed dynamically (topic override, then the cluster-wide
broker default) while a replica is out of the ISR; acks=all must follow the value in force."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from tests.cluster.failure_scenarios import (
    BASE_OVERRIDES,
    chroot,
    controller_of,
    create_topic,
    formed,
    produce_acked,
    produce_raw,
    pview,
    replica_records,
    wait_until,
)
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

NOT_ENOUGH_REPLICAS = 19


@pytest.fixture
def cluster(zookeeper_shared: Any, tmp_path):
    with Cluster(
        3, zookeeper=zookeeper_shared, zk_chroot=chroot("cfg"), base_dir=tmp_path, overrides=BASE_OVERRIDES
    ) as c:
        wait_until(lambda: formed(c), "the cluster formed")
        yield c


def _alter(cluster: Cluster, resource: ConfigResource) -> None:
    if resource.restype == ResourceType.BROKER:  # the cluster default: a raw request (name "")
        from protocol.messages import IncrementalAlterConfigsRequest
        from tests.support.wire_client import WireClient

        (entry,) = resource.incremental_configs
        request = IncrementalAlterConfigsRequest(
            resources=[
                IncrementalAlterConfigsRequest.AlterConfigsResource(
                    resource_type=4,
                    resource_name="",
                    configs=[
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name=entry.name, config_operation=0, value=entry.value
                        )
                    ],
                )
            ]
        )
        with WireClient("127.0.0.1", cluster.port(0)) as client:
            (result,) = client.request(request, 1).responses
        assert result.error_code == 0, result.error_message
        return
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    for f in admin.incremental_alter_configs([resource]).values():
        f.result(30)


def _min_isr_on(cluster: Cluster, i: int, topic: str) -> int:
    return cluster.run(
        lambda: cluster.broker(i).replica_manager.get_partition(topic, 0).log.config.min_insync_replicas
    )


@pytest.mark.parametrize("level", ["topic", "broker-default"])
def test_min_insync_replicas_changed_dynamically_governs_acks_all(cluster: Cluster, level: str) -> None:
    """Partition.appendRecordsToLeader reads the log's current min.insync.replicas on every
    acks=-1 append (LogConfig updated by TopicConfigHandler / DynamicLogConfig): with two
    replicas in sync, raising it to 3 refuses acks=all with NOT_ENOUGH_REPLICAS and appends
    nothing; lowering it back to 2 lets acks=all through again."""
    topic = f"minisr-{level}"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    config = {"min.insync.replicas": "2"} if level == "topic" else {}
    create_topic(cluster, topic, [[c, a, b]], config)
    if level != "topic":
        _alter(
            cluster,
            ConfigResource(
                ResourceType.BROKER,
                "x",
                incremental_configs=[
                    ConfigEntry("min.insync.replicas", "2", incremental_operation=AlterConfigOpType.SET)
                ],
            ),
        )
        wait_until(
            lambda: all(_min_isr_on(cluster, i, topic) == 2 for i in range(3)), "min.insync 2 everywhere"
        )
    first = produce_acked(cluster, topic, [b"a-%d" % i for i in range(20)])
    cluster.cut_link(c, b)
    produce_acked(cluster, topic, [b"lag"], acks="1", **{"enable.idempotence": False})
    wait_until(lambda: pview(cluster, c, topic)[2] == tuple(sorted((c, a))), "b out of the ISR")
    assert produce_raw(cluster, c, topic, b"ok-with-2", acks=-1, timeout_ms=10000)[0] == 0

    def set_min_isr(value: str) -> None:
        if level == "topic":
            resource = ConfigResource(
                ResourceType.TOPIC,
                topic,
                incremental_configs=[
                    ConfigEntry("min.insync.replicas", value, incremental_operation=AlterConfigOpType.SET)
                ],
            )
        else:
            resource = ConfigResource(
                ResourceType.BROKER,
                "x",
                incremental_configs=[
                    ConfigEntry("min.insync.replicas", value, incremental_operation=AlterConfigOpType.SET)
                ],
            )
        _alter(cluster, resource)
        wait_until(lambda: _min_isr_on(cluster, c, topic) == int(value), f"min.insync {value} on the leader")

    set_min_isr("3")
    end = pview(cluster, c, topic)[3]
    error, _ = produce_raw(cluster, c, topic, b"refused", acks=-1, timeout_ms=10000)
    assert error == NOT_ENOUGH_REPLICAS
    assert pview(cluster, c, topic)[3] == end
    set_min_isr("2")
    error, offset = produce_raw(cluster, c, topic, b"ok-again", acks=-1, timeout_ms=10000)
    assert error == 0
    cluster.heal_link(c, b)
    wait_until(lambda: pview(cluster, c, topic)[2] == (0, 1, 2), "b back in the ISR")
    records = {v: o for o, _, v in replica_records(cluster.log_dir(a), topic, 0)}
    for value, off in first.items():
        assert records[value] == off
    assert records[b"ok-again"] == offset and b"refused" not in records
