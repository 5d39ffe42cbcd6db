"""The operations APIs on a lone in-process broker, over raw frames: what real clients never send
(duplicates, nulls, odd resource types) and what they cannot see (the logs' configs, files).

AlterConfigs / IncrementalAlterConfigs, DeleteRecords, DescribeLogDirs and OffsetDelete;
the real clients' side is tests/integration/test_operations_admin.py.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from broker.config import BrokerConfig
from broker.config_admin import APPEND, DELETE, SET, SUBTRACT, TOPIC_KEYS, prepare_incremental_configs
from broker.config_description import describe_broker_configs, describe_topic_configs
from broker.dynamic_config import DYNAMIC_CONFIGS_FILE
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    DeleteRecordsRequest,
    DescribeLogDirsRequest,
    IncrementalAlterConfigsRequest,
    OffsetDeleteRequest,
)
from storage.config_def import ConfigError, ConfigSource
from storage.log_manager import TOPIC_OVERRIDES_FILE
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

TOPIC, BROKER, BROKER_LOGGER = 2, 4, 8
E = ErrorCode


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(1, base_dir=tmp_path_factory.mktemp("operations"))
    c.start()
    try:
        yield c
    finally:
        c.close()


def call(cluster: Cluster, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(0)) as client:
        return client.request(message, version)


def create(cluster: Cluster, name: str, **configs: str) -> None:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)
    topic.configs = [CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in configs.items()]
    (result,) = call(cluster, CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 7).topics
    assert result.error_code == 0, result.error_message


def incremental(
    cluster: Cluster, *resources: tuple[int, str, list[tuple[str, int, str | None]]], validate_only=False
):
    request = IncrementalAlterConfigsRequest(
        resources=[
            IncrementalAlterConfigsRequest.AlterConfigsResource(
                resource_type=t,
                resource_name=n,
                configs=[
                    IncrementalAlterConfigsRequest.AlterableConfig(name=k, config_operation=op, value=v)
                    for k, op, v in ops
                ],
            )
            for t, n, ops in resources
        ],
        validate_only=validate_only,
    )
    return [(r.error_code, r.error_message) for r in call(cluster, request, 1).responses]


def log_config(cluster: Cluster, topic: str) -> Any:
    return cluster.run(lambda: cluster.broker(0).log_manager.get_log(topic, 0).config)


# ---------------------------------------------------------------- incremental operations


def test_prepare_incremental_configs_as_kafka():
    current = {"retention.ms": "5"}
    assert prepare_incremental_configs([("segment.bytes", SET, "100")], current, TOPIC_KEYS) == {
        "retention.ms": "5",
        "segment.bytes": "100",
    }
    assert prepare_incremental_configs([("retention.ms", DELETE, None)], current, TOPIC_KEYS) == {}
    # APPEND to an unset list starts from the default (delete); values already there are kept once
    appended = prepare_incremental_configs([("cleanup.policy", APPEND, "compact,delete")], {}, TOPIC_KEYS)
    assert appended == {"cleanup.policy": "delete,compact"}
    subtracted = prepare_incremental_configs([("cleanup.policy", SUBTRACT, "delete")], appended, TOPIC_KEYS)
    assert subtracted == {"cleanup.policy": "compact"}
    with pytest.raises(KafkaError) as err:
        prepare_incremental_configs([("retention.ms", APPEND, "1")], {}, TOPIC_KEYS)
    assert err.value.error is E.INVALID_CONFIG
    assert err.value.message == "Config value append is not allowed for config key: retention.ms"
    with pytest.raises(KafkaError) as err:
        prepare_incremental_configs([("retention.ms", 7, "1")], {}, TOPIC_KEYS)
    assert err.value.error is E.INVALID_REQUEST


def test_request_level_errors(cluster):
    create(cluster, "req-errors")
    twice = incremental(cluster, (TOPIC, "req-errors", []), (TOPIC, "req-errors", []))
    assert twice == [(E.INVALID_REQUEST.code, "Each resource must appear at most once.")] * 2
    dup_keys = incremental(
        cluster, (TOPIC, "req-errors", [("retention.ms", SET, "1"), ("retention.ms", SET, "2")])
    )
    assert dup_keys == [(E.INVALID_REQUEST.code, "Error due to duplicate config keys")]
    null = incremental(
        cluster, (TOPIC, "req-errors", [("retention.ms", SET, None), ("flush.ms", DELETE, None)])
    )
    assert null == [(E.INVALID_REQUEST.code, "Null value not supported for : retention.ms")]
    assert incremental(cluster, (BROKER_LOGGER, "0", []))[0][0] == E.INVALID_REQUEST.code
    assert incremental(cluster, (99, "x", []))[0] == (E.INVALID_REQUEST.code, "Unknown resource type 99")
    assert incremental(cluster, (BROKER, "x", []))[0] == (
        E.INVALID_REQUEST.code,
        "Node id must be an integer, but it is: x",
    )
    assert incremental(cluster, (BROKER, "7", []))[0] == (
        E.INVALID_REQUEST.code,
        "Unexpected broker id, expected 0, but received 7",
    )
    assert incremental(cluster, (TOPIC, "bad/name", []))[0][0] == E.INVALID_TOPIC_EXCEPTION.code
    legacy = AlterConfigsRequest(
        resources=[
            AlterConfigsRequest.AlterConfigsResource(
                resource_type=TOPIC,
                resource_name="req-errors",
                configs=[AlterConfigsRequest.AlterableConfig(name="retention.ms", value=None)],
            ),
            AlterConfigsRequest.AlterConfigsResource(resource_type=BROKER_LOGGER, resource_name="0"),
        ]
    )
    answers = [(r.error_code, r.error_message) for r in call(cluster, legacy, 0).responses]
    assert answers == [
        (E.INVALID_REQUEST.code, "Null value not supported for : retention.ms"),
        (E.INVALID_REQUEST.code, "Unknown resource type 8"),
    ]


def test_topic_changes_reach_the_logs_and_the_overrides_file(cluster):
    create(cluster, "live", **{"segment.bytes": "4096"})
    assert incremental(cluster, (TOPIC, "live", [("retention.ms", SET, "1000")]), validate_only=True) == [
        (0, None)
    ]
    assert log_config(cluster, "live").retention_ms == 7 * 24 * 3_600_000
    assert incremental(cluster, (TOPIC, "live", [("retention.ms", SET, "1000")])) == [(0, None)]
    config = log_config(cluster, "live")
    assert (config.retention_ms, config.segment_bytes) == (1000, 4096)
    overrides = json.loads((cluster.log_dir(0) / TOPIC_OVERRIDES_FILE).read_text())["topics"]["live"]
    assert overrides == {"retention.ms": 1000, "segment.bytes": 4096}
    # The controller's registry, which DescribeConfigs reads, follows.
    assert cluster.run(lambda: dict(cluster.broker(0).controller.topic("live").overrides)) == overrides


def test_dynamic_broker_configs_go_to_the_local_file(cluster):
    create(cluster, "file-dyn")
    try:
        assert incremental(cluster, (BROKER, "", [("log.segment.bytes", SET, "8192")])) == [(0, None)]
        assert log_config(cluster, "file-dyn").segment_bytes == 8192
        stored = json.loads((cluster.log_dir(0) / DYNAMIC_CONFIGS_FILE).read_text())
        assert stored == {"version": 1, "brokers": {"<default>": {"log.segment.bytes": "8192"}}}
        (error,) = incremental(
            cluster, (BROKER, "0", [("log.retention.hours", SET, "1"), ("broker.id", SET, "3")])
        )
        assert error == (
            E.INVALID_REQUEST.code,
            "Cannot update these configs dynamically: Set(broker.id, log.retention.hours)",
        )
        assert (
            incremental(cluster, (BROKER, "0", [("max.connections", SET, "abc")]))[0][0]
            == E.INVALID_REQUEST.code
        )
        zero = incremental(cluster, (BROKER, "0", [("max.connections.per.ip", SET, "0")]))
        assert zero[0][0] == E.INVALID_REQUEST.code  # it would refuse every client
        assert incremental(cluster, (BROKER, "0", [("max.connections", SET, "5000")])) == [(0, None)]
        assert cluster.run(lambda: cluster.broker(0).server.quotas.max_connections) == 5000
    finally:
        incremental(cluster, (BROKER, "", [("log.segment.bytes", DELETE, None)]))
        incremental(cluster, (BROKER, "0", [("max.connections", DELETE, None)]))
    assert log_config(cluster, "file-dyn").segment_bytes == 1_073_741_824
    assert cluster.run(lambda: cluster.broker(0).server.quotas.max_connections) == 2_147_483_647


def test_config_sources_and_synonyms_in_kafkas_order():
    config = BrokerConfig({"log.retention.hours": "24", "log.retention.ms": "5000"})
    config.set_dynamic({"log.retention.ms": 2000}, {"log.retention.ms": 1000})
    (entry,) = [e for e in describe_topic_configs(config, {}) if e.name == "retention.ms"]
    assert (entry.value, entry.source) == ("1000", ConfigSource.DYNAMIC_BROKER_CONFIG)
    assert entry.synonyms == [
        ("log.retention.ms", "1000", ConfigSource.DYNAMIC_BROKER_CONFIG),
        ("log.retention.ms", "2000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
        ("log.retention.ms", "5000", ConfigSource.STATIC_BROKER_CONFIG),
        ("log.retention.hours", "24", ConfigSource.STATIC_BROKER_CONFIG),
        ("log.retention.hours", "168", ConfigSource.DEFAULT_CONFIG),
    ]
    assert config.topic_defaults()["retention.ms"] == 1000
    broker = {e.name: e for e in describe_broker_configs(config)}
    assert broker["log.retention.ms"].source == ConfigSource.DYNAMIC_BROKER_CONFIG
    assert not broker["log.retention.ms"].read_only and broker["broker.id"].read_only
    cluster_level = describe_broker_configs(config, per_broker=False)
    assert [(e.name, e.value, e.source) for e in cluster_level] == [
        ("log.retention.ms", "2000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    ]
    # ConfigHelper.createBrokerConfigEntry(perBrokerConfig = false) keeps only the
    # DYNAMIC_DEFAULT_BROKER_CONFIG synonyms
    assert cluster_level[0].synonyms == [
        ("log.retention.ms", "2000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
    ]


# ---------------------------------------------------------------- DeleteRecords, DescribeLogDirs, OffsetDelete


def delete_records(cluster: Cluster, topic: str, partition: int, offset: int) -> tuple[int, int]:
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsRequest.DeleteRecordsTopic(
                name=topic,
                partitions=[
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=partition, offset=offset)
                ],
            )
        ],
        timeout_ms=1000,
    )
    ((result,),) = [t.partitions for t in call(cluster, request, 2).topics]
    return result.error_code, result.low_watermark


def test_delete_records_errors(cluster):
    create(cluster, "compacted", **{"cleanup.policy": "compact"})
    assert delete_records(cluster, "compacted", 0, 0) == (E.POLICY_VIOLATION.code, -1)
    assert delete_records(cluster, "no-such", 0, 0) == (E.UNKNOWN_TOPIC_OR_PARTITION.code, -1)
    create(cluster, "empty")
    assert delete_records(cluster, "empty", 0, -2) == (E.OFFSET_OUT_OF_RANGE.code, -1)
    assert delete_records(cluster, "empty", 0, -1) == (0, 0)


def test_describe_log_dirs_versions(cluster):
    create(cluster, "dirs")
    v1 = call(cluster, DescribeLogDirsRequest(topics=None), 1)
    (result,) = v1.results
    assert result.log_dir == str(cluster.log_dir(0).absolute())
    assert (result.total_bytes, result.usable_bytes) == (-1, -1)  # v4+
    assert "dirs" in {t.name for t in result.topics}
    v4 = call(
        cluster,
        DescribeLogDirsRequest(
            topics=[DescribeLogDirsRequest.DescribableLogDirTopic(topic="dirs", partitions=[0, 5])]
        ),
        4,
    )
    (result,) = v4.results
    assert result.total_bytes > 0 and 0 <= result.usable_bytes <= result.total_bytes
    # Kafka 3.9 (KAFKA-16807): only topics with an asked partition are listed.
    (dirs,) = result.topics
    assert dirs.name == "dirs"
    assert [
        (p.partition_index, p.partition_size, p.offset_lag, p.is_future_key) for p in dirs.partitions
    ] == [(0, 0, 0, False)]


def test_offset_delete_unknown_partitions_and_groups(cluster):
    create(cluster, "od")

    def offset_delete(group: str, *partitions: tuple[str, int]) -> Any:
        topics: dict[str, list[int]] = {}
        for t, p in partitions:
            topics.setdefault(t, []).append(p)
        request = OffsetDeleteRequest(
            group_id=group,
            topics=[
                OffsetDeleteRequest.OffsetDeleteRequestTopic(
                    name=t,
                    partitions=[
                        OffsetDeleteRequest.OffsetDeleteRequestPartition(partition_index=p) for p in ps
                    ],
                )
                for t, ps in topics.items()
            ],
        )
        deadline = time.monotonic() + 30
        while True:  # the first group request creates __consumer_offsets
            response = call(cluster, request, 0)
            if response.error_code != E.COORDINATOR_NOT_AVAILABLE.code or time.monotonic() > deadline:
                return response
            time.sleep(0.05)

    missing = offset_delete("nobody", ("od", 0))
    assert (missing.error_code, missing.topics) == (E.GROUP_ID_NOT_FOUND.code, [])
    assert offset_delete("", ("od", 0)).error_code == E.INVALID_GROUP_ID.code


def test_api_versions_lists_the_operations_apis(cluster):
    from protocol.messages import ApiVersionsRequest

    served = {
        k.api_key: (k.min_version, k.max_version)
        for k in call(
            cluster, ApiVersionsRequest(client_software_name="moldau-test", client_software_version="1"), 3
        ).api_keys
    }
    assert {key: served.get(key) for key in (21, 33, 35, 44, 47)} == {
        21: (0, 2),  # DeleteRecords
        33: (0, 2),  # AlterConfigs
        35: (1, 4),  # DescribeLogDirs
        44: (0, 1),  # IncrementalAlterConfigs
        47: (0, 0),  # OffsetDelete
    }


def test_a_config_that_cannot_be_stored_answers_unknown_server_error(cluster):
    create(cluster, "unstored")
    path = cluster.log_dir(0) / DYNAMIC_CONFIGS_FILE
    path.unlink(missing_ok=True)
    path.mkdir()  # reading and replacing it fail
    try:
        (answer,) = incremental(cluster, (BROKER, "", [("log.retention.ms", SET, "1000")]))
        assert answer[0] == E.UNKNOWN_SERVER_ERROR.code
        # Nothing applied; the connection and the broker go on.
        assert log_config(cluster, "unstored").retention_ms == 7 * 24 * 3_600_000
        assert incremental(cluster, (BROKER, "0", [("log.retention.ms", SET, "1")]), validate_only=True) == [
            (0, None)
        ]
    finally:
        path.rmdir()


def test_the_dynamic_configs_file_is_checked_at_start():
    from broker.dynamic_config import FileDynamicConfigStore

    with tempfile.TemporaryDirectory() as d:
        store = FileDynamicConfigStore(Path(d) / DYNAMIC_CONFIGS_FILE)
        assert store.read("<default>") == {}
        store.write("<default>", {"log.retention.ms": "5"})
        store.write("0", {"max.connections": "7"})
        store.write("<default>", {})
        assert (store.read("<default>"), store.read("0")) == ({}, {"max.connections": "7"})
        for bad in ("[]", "{", '{"version": 2, "brokers": {}}', '{"version": 1, "brokers": {"0": 5}}'):
            store.path.write_text(bad)
            with pytest.raises(ConfigError, match="restore or delete it"):
                store.read("0")
