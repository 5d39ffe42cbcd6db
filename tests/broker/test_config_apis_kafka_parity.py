"""The config APIs where they once differed from Kafka 3.9: DescribeConfigs (key lists, synonyms,
broker resource names), CreateTopics (null config values, v5+ config sources) and
AlterConfigs / IncrementalAlterConfigs (the default topic resource, broker resource names).

Each test names the Kafka class whose behaviour it pins down; the broker is a lone
in-process one (the handlers are shared with ZooKeeper mode), except for the tests of
``broker.config_description`` alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from broker.config import BrokerConfig, ConfigError
from broker.config_description import describe_broker_configs, describe_topic_configs
from broker.dynamic_config import DYNAMIC_CONFIGS_FILE
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
)
from storage.config_def import ConfigSource, ConfigType
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

TOPIC, BROKER = 2, 4
SET, DELETE = 0, 1
E = ErrorCode
STATIC_RETENTION_HOURS = 24


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(
        1,
        base_dir=tmp_path_factory.mktemp("config-parity"),
        overrides={"log.retention.hours": str(STATIC_RETENTION_HOURS)},
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


def call(cluster: Cluster, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(0)) as client:
        return client.request(message, version)


def create(cluster: Cluster, name: str, configs: dict[str, str | None]) -> Any:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)
    topic.configs = [CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in configs.items()]
    (result,) = call(cluster, CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 7).topics
    return result


def describe(cluster: Cluster, rtype: int, name: str, keys: list[str] | None) -> Any:
    request = DescribeConfigsRequest(
        resources=[
            DescribeConfigsRequest.DescribeConfigsResource(
                resource_type=rtype, resource_name=name, configuration_keys=keys
            )
        ]
    )
    (result,) = call(cluster, request, 4).results
    return result


def incremental(cluster: Cluster, rtype: int, name: str, ops: list[tuple[str, int, str | None]]):
    request = IncrementalAlterConfigsRequest(
        resources=[
            IncrementalAlterConfigsRequest.AlterConfigsResource(
                resource_type=rtype,
                resource_name=name,
                configs=[
                    IncrementalAlterConfigsRequest.AlterableConfig(name=k, config_operation=op, value=v)
                    for k, op, v in ops
                ],
            )
        ]
    )
    (r,) = call(cluster, request, 1).responses
    return r.error_code, r.error_message


def legacy_alter(cluster: Cluster, rtype: int, name: str, configs: dict[str, str]):
    request = AlterConfigsRequest(
        resources=[
            AlterConfigsRequest.AlterConfigsResource(
                resource_type=rtype,
                resource_name=name,
                configs=[AlterConfigsRequest.AlterableConfig(name=k, value=v) for k, v in configs.items()],
            )
        ]
    )
    (r,) = call(cluster, request, 0).responses
    return r.error_code, r.error_message


# ---------------------------------------------------------------- DescribeConfigs key lists


def test_describe_configs_with_an_empty_key_list_returns_every_config(cluster):
    # ConfigHelper.describeConfigs: null or empty configurationKeys = all configs
    assert create(cluster, "empty-keys", {}).error_code == 0
    result = describe(cluster, TOPIC, "empty-keys", [])
    assert result.error_code == 0
    names = {c.name for c in result.configs}
    assert {"retention.ms", "cleanup.policy"} <= names
    assert names == {c.name for c in describe(cluster, TOPIC, "empty-keys", None).configs}


# ---------------------------------------------------------------- synonyms (ConfigHelper.configSynonyms)


def test_cluster_default_broker_resource_lists_only_dynamic_default_synonyms():
    # ConfigHelper.createBrokerConfigEntry(perBrokerConfig = false)
    config = BrokerConfig({"log.retention.ms": "5000"})
    config.set_dynamic({"log.retention.ms": 2000}, {})
    (entry,) = describe_broker_configs(config, per_broker=False)
    assert entry.source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
    assert entry.synonyms == [("log.retention.ms", "2000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)]


def test_replica_selector_class_is_a_string_config_whose_default_is_null():
    """ReplicationConfigs' ``replica.selector.class``: Type.STRING, default null, so
    DescribeConfigs answers a null value of type STRING from DEFAULT_CONFIG with no synonyms;
    once set, the class name from STATIC_BROKER_CONFIG."""
    (entry,) = [e for e in describe_broker_configs(BrokerConfig({})) if e.name == "replica.selector.class"]
    assert (entry.value, entry.type, entry.source, entry.synonyms) == (
        None,
        ConfigType.STRING,
        ConfigSource.DEFAULT_CONFIG,
        [],
    )
    rack_aware = "org.apache.kafka.common.replica.RackAwareReplicaSelector"
    config = BrokerConfig({"replica.selector.class": rack_aware})
    (entry,) = [e for e in describe_broker_configs(config) if e.name == "replica.selector.class"]
    assert (entry.value, entry.type, entry.source) == (
        rack_aware,
        ConfigType.STRING,
        ConfigSource.STATIC_BROKER_CONFIG,
    )


@pytest.mark.parametrize(
    ("name", "ctype"),
    [
        ("log.retention.hours", ConfigType.INT),
        ("log.retention.minutes", ConfigType.INT),
        ("log.roll.hours", ConfigType.INT),
        ("log.roll.jitter.hours", ConfigType.INT),
        ("log.retention.ms", ConfigType.LONG),
        ("log.dirs", ConfigType.STRING),
        ("listeners", ConfigType.STRING),
        ("advertised.listeners", ConfigType.STRING),
    ],
)
def test_broker_configs_are_described_with_kafkas_types(name: str, ctype: ConfigType) -> None:
    """The types of Kafka 3.9's ConfigDefs (LogConfig.SERVER_CONFIG_DEF: the hour and minute
    keys INT, log.dirs STRING; SocketServerConfigs: the listeners STRING), which the Admin
    client's ConfigEntry.type() shows; an hour value past Java's int range is refused."""
    config = BrokerConfig({"log.dirs": "/tmp/a,/tmp/b", "advertised.listeners": "PLAINTEXT://h:1"})
    (entry,) = [e for e in describe_broker_configs(config) if e.name == name]
    assert entry.type is ctype
    with pytest.raises(ConfigError):
        BrokerConfig({"log.retention.hours": str(2**31)})


def test_the_authorizers_keys_are_listed_only_where_set_and_never_with_their_value() -> None:
    """super.users and allow.everyone.if.no.acl.found are AclAuthorizer's keys, not KafkaConfig's:
    ConfigHelper lists such a key only where set, and (KafkaConfig.configType None, so
    maybeSensitive) with a null value, sensitive, of type UNKNOWN, synonyms without values."""
    names = {e.name for e in describe_broker_configs(BrokerConfig({}))}
    assert not names & {"super.users", "allow.everyone.if.no.acl.found"}
    config = BrokerConfig({"super.users": "User:admin;User:ops", "allow.everyone.if.no.acl.found": "true"})
    for entry in describe_broker_configs(config):
        if entry.name in ("super.users", "allow.everyone.if.no.acl.found"):
            assert (entry.value, entry.sensitive, entry.type, entry.source) == (
                None,
                True,
                ConfigType.UNKNOWN,
                ConfigSource.STATIC_BROKER_CONFIG,
            )
            assert [v for _, v, _ in entry.synonyms] == [None]


def topic_entry(config: BrokerConfig, name: str):
    (entry,) = [e for e in describe_topic_configs(config, {}) if e.name == name]
    return entry


def test_topic_config_ignores_less_specific_broker_synonyms_set_statically():
    # configSynonyms(...).dropWhile(_.name != "log.retention.ms"): log.retention.hours does not
    # count as a source of retention.ms, though it supplies its value
    entry = topic_entry(BrokerConfig({"log.retention.hours": "24"}), "retention.ms")
    assert entry.value == str(24 * 3_600_000)
    assert (entry.source, entry.synonyms) == (ConfigSource.DEFAULT_CONFIG, [])


@pytest.mark.parametrize("name", ["retention.ms", "segment.ms", "segment.jitter.ms", "flush.ms"])
def test_topic_config_whose_first_broker_synonym_has_no_default_has_no_synonyms(name):
    # DEFAULT_CONFIG synonyms only for non-null Kafka defaults (log.retention.ms, log.roll.ms,
    # log.roll.jitter.ms and log.flush.interval.ms have none)
    entry = topic_entry(BrokerConfig({}), name)
    assert (entry.source, entry.synonyms) == (ConfigSource.DEFAULT_CONFIG, [])


def test_topic_override_stays_the_first_synonym():
    # createTopicConfigEntry: the override, then configSynonyms("log.flush.interval.ms"), whose
    # group ends with log.flush.scheduler.interval.ms (DynamicBrokerConfig.brokerConfigSynonyms)
    config = BrokerConfig({"log.flush.interval.ms": "700"})
    (entry,) = [e for e in describe_topic_configs(config, {"flush.ms": 9}) if e.name == "flush.ms"]
    assert entry.source == ConfigSource.TOPIC_CONFIG
    assert entry.synonyms == [
        ("flush.ms", "9", ConfigSource.TOPIC_CONFIG),
        ("log.flush.interval.ms", "700", ConfigSource.STATIC_BROKER_CONFIG),
        ("log.flush.scheduler.interval.ms", str(2**63 - 1), ConfigSource.DEFAULT_CONFIG),
    ]


def test_create_topics_config_source_follows_the_first_broker_synonym(cluster):
    # ZkAdminManager.maybePopulateMetadataAndConfigs uses createTopicConfigEntry
    result = create(cluster, "created-sources", {})
    assert result.error_code == 0
    (retention,) = [c for c in result.configs if c.name == "retention.ms"]
    assert retention.value == str(STATIC_RETENTION_HOURS * 3_600_000)
    assert retention.config_source == int(ConfigSource.DEFAULT_CONFIG)


# ---------------------------------------------------------------- CreateTopics null config values


def test_create_topics_null_config_value_is_invalid_config(cluster):
    # ZkAdminManager.createTopics / ReplicationControlManager.computeConfigChanges
    result = create(cluster, "null-config", {"retention.ms": None, "segment.ms": "1000", "flush.ms": None})
    assert (result.error_code, result.error_message) == (
        E.INVALID_CONFIG.code,
        "Null value not supported for topic configs: retention.ms,flush.ms",
    )
    assert describe(cluster, TOPIC, "null-config", None).error_code == E.UNKNOWN_TOPIC_OR_PARTITION.code


def test_create_topics_null_config_value_of_an_existing_topic_is_topic_already_exists(cluster):
    # ZkAdminManager.createTopics checks existence first
    assert create(cluster, "null-config-exists", {}).error_code == 0
    assert (
        create(cluster, "null-config-exists", {"retention.ms": None}).error_code
        == E.TOPIC_ALREADY_EXISTS.code
    )


# ---------------------------------------------------------------- AlterConfigs on the default topic resource


def test_altering_the_default_topic_resource_is_invalid_request(cluster):
    # ZkAdminManager.alterTopicConfigs / incrementalAlterConfigs
    expected = (E.INVALID_REQUEST.code, "Default topic resources are not allowed.")
    assert incremental(cluster, TOPIC, "", [("retention.ms", SET, "1")]) == expected
    assert legacy_alter(cluster, TOPIC, "", {"retention.ms": "1"}) == expected


# ---------------------------------------------------------------- broker resource names (Integer.parseInt)


def test_broker_resource_name_is_read_as_a_node_id(cluster):
    # ConfigAdminManager.validateResourceNameIsCurrentNodeId: "00".toInt == 0, and
    # ZkAdminManager stores the change under the id (changeBrokerConfig(Some(0)))
    assert create(cluster, "zero-zero", {}).error_code == 0
    try:
        assert incremental(cluster, BROKER, "00", [("log.segment.bytes", SET, "8192")]) == (0, None)
        stored = json.loads((cluster.log_dir(0) / DYNAMIC_CONFIGS_FILE).read_text())["brokers"]
        assert "00" not in stored
        assert stored.get("0") == {"log.segment.bytes": "8192"}
        seg = cluster.run(lambda: cluster.broker(0).log_manager.get_log("zero-zero", 0).config.segment_bytes)
        assert seg == 8192
        assert legacy_alter(cluster, BROKER, "+0", {"log.segment.bytes": "16384"}) == (0, None)
        stored = json.loads((cluster.log_dir(0) / DYNAMIC_CONFIGS_FILE).read_text())["brokers"]
        assert set(stored) == {"0"}
    finally:
        incremental(cluster, BROKER, "0", [("log.segment.bytes", DELETE, None)])


def test_describe_configs_reads_the_broker_resource_name_as_a_node_id(cluster):
    # ConfigHelper.resourceNameToBrokerId
    result = describe(cluster, BROKER, "00", ["broker.id"])
    assert result.error_code == 0
    assert [(c.name, c.value) for c in result.configs] == [("broker.id", "0")]
    result = describe(cluster, BROKER, "0_0", None)
    assert (result.error_code, result.error_message) == (
        E.INVALID_REQUEST.code,
        "Broker id must be an integer, but it is: 0_0",
    )


@pytest.mark.parametrize("name", ["0_0", " 0", "0 ", "2147483648"])
def test_broker_resource_name_that_java_cannot_parse_is_invalid_request(cluster, name):
    # Integer.parseInt refuses what Python's int() takes (underscores, spaces) and ints past 32 bits
    code, message = incremental(cluster, BROKER, name, [("log.segment.bytes", SET, "8192")])
    incremental(cluster, BROKER, name, [("log.segment.bytes", DELETE, None)])
    assert (code, message) == (E.INVALID_REQUEST.code, f"Node id must be an integer, but it is: {name}")


# ---------------------------------------------------------------- replication throttles (QuotaConfig)

THROTTLES = (
    "leader.replication.throttled.rate",
    "follower.replication.throttled.rate",
    "replica.alter.log.dirs.io.max.bytes.per.second",
)


def test_broker_replication_throttles_are_dynamic_broker_configs(cluster):
    """QuotaConfig.brokerQuotaConfigs (what kafka-reassign-partitions --throttle sets on each
    broker): IncrementalAlterConfigs SET / DELETE on a broker are accepted
    (DynamicConfig.Broker.validate: LONG, at least 0), DescribeConfigs lists a throttle only
    while it is set (ConfigHelper: not a KafkaConfig key, only in the config's originals)."""
    before = describe(cluster, BROKER, "0", None)
    assert not {e.name for e in before.configs} & set(THROTTLES)
    assert incremental(cluster, BROKER, "0", [(THROTTLES[0], SET, "123"), (THROTTLES[1], SET, "456")])[0] == 0
    entries = {e.name: e for e in describe(cluster, BROKER, "0", None).configs}
    assert (entries[THROTTLES[0]].value, entries[THROTTLES[1]].value) == ("123", "456")
    assert entries[THROTTLES[0]].config_source == ConfigSource.DYNAMIC_BROKER_CONFIG
    assert not entries[THROTTLES[0]].read_only and THROTTLES[2] not in entries
    ops = [(THROTTLES[0], DELETE, None), (THROTTLES[1], SET, "654"), (THROTTLES[2], SET, "987")]
    assert incremental(cluster, BROKER, "0", ops)[0] == 0
    entries = {e.name: e.value for e in describe(cluster, BROKER, "0", None).configs}
    assert THROTTLES[0] not in entries and (entries[THROTTLES[1]], entries[THROTTLES[2]]) == ("654", "987")
    assert incremental(cluster, BROKER, "", [(THROTTLES[0], SET, "1000")])[0] == 0  # the cluster default
    ops = [(THROTTLES[0], DELETE, None)]
    assert incremental(cluster, BROKER, "", ops)[0] == 0
    ops = [(THROTTLES[1], DELETE, None), (THROTTLES[2], DELETE, None)]
    assert incremental(cluster, BROKER, "0", ops)[0] == 0


def test_a_negative_replication_throttle_is_refused(cluster):
    """DynamicConfig.Broker's Range.atLeast(0): a negative rate is refused, nothing stored."""
    code, message = incremental(cluster, BROKER, "0", [(THROTTLES[0], SET, "-1")])
    assert code != 0 and THROTTLES[0] in message
    assert THROTTLES[0] not in {e.name for e in describe(cluster, BROKER, "0", None).configs}


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        (
            "retention.ms",
            "abc",
            "Invalid value abc for configuration retention.ms: Not a number of type LONG",
        ),
        (
            "min.insync.replicas",
            "0",
            "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1",
        ),
        (
            "cleanup.policy",
            "foo",
            "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete",
        ),
        (
            "preallocate",
            "yes",
            "Invalid value yes for configuration preallocate: Expected value to be either true or false",
        ),
    ],
)
def test_a_bad_topic_config_value_is_answered_in_kafkas_words(cluster, key, value, reason):
    """ZkAdminManager.(incremental)AlterConfigs: a ConfigException from ConfigDef.parse answers
    INVALID_CONFIG "Invalid config value for resource ConfigResource(type=TOPIC, name='<t>'):
    <ConfigException's message>", what kafka-configs and the Admin client show; CreateTopics
    answers the ConfigException's message alone."""
    name = f"badval-{key.replace('.', '-')}"
    assert create(cluster, name, {}).error_code == 0
    expected = (
        ErrorCode.INVALID_CONFIG.code,
        f"Invalid config value for resource ConfigResource(type=TOPIC, name='{name}'): {reason}",
    )
    assert incremental(cluster, TOPIC, name, [(key, SET, value)]) == expected
    assert legacy_alter(cluster, TOPIC, name, {key: value}) == expected
    created = create(cluster, f"{name}-2", {key: value})
    assert (created.error_code, created.error_message) == (ErrorCode.INVALID_CONFIG.code, reason)
