"""The topic configs Kafka 3.9's LogConfig defines that Moldau stores without acting on them:
the reassignment throttles (``leader/follower.replication.throttled.replicas``), the
deprecated ``message.downconversion.enable``, ``message.format.version`` and
``message.timestamp.difference.max.ms``, and the tiered-storage configs (``remote.storage.enable``,
``local.retention.ms/bytes``, ``remote.log.copy.disable``, ``remote.log.delete.on.disable``).

CreateTopics, AlterConfigs and IncrementalAlterConfigs accept them with Kafka's validators and
refuse what ZooKeeper-mode Kafka 3.9 without tiered storage refuses; DescribeConfigs lists them
with Kafka's defaults, types and sources. Each test names the Kafka class it pins down; the
broker is a lone in-process one (the config handlers and checks are shared with ZooKeeper mode).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from broker.config import BrokerConfig, check_dynamic_configs
from broker.config_description import describe_topic_configs
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
)
from storage.config_def import ConfigError, ConfigSource, ConfigType
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

TOPIC = 2
SET, DELETE, APPEND = 0, 1, 2
E = ErrorCode
LONG_MAX = str(2**63 - 1)

# A valid value of each config (ZooKeeper mode, no tiered storage).
VALID = {
    "leader.replication.throttled.replicas": "*",
    "follower.replication.throttled.replicas": "0:1,1:2",
    "message.downconversion.enable": "false",
    "message.format.version": "3.0-IV1",
    "message.timestamp.difference.max.ms": "60000",
    "remote.storage.enable": "false",
    "local.retention.ms": "-2",
    "local.retention.bytes": "1000",
    "remote.log.copy.disable": "false",
    "remote.log.delete.on.disable": "false",
}

# name -> (default as DescribeConfigs renders it, ConfigType, broker synonym or None). Kafka:
# LogConfig.CONFIG, ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS and
# LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS; the broker defaults are KafkaConfig's
# (ServerLogConfigs, RemoteLogManagerConfig).
DEFAULTS = {
    "leader.replication.throttled.replicas": ("", ConfigType.LIST, None),
    "follower.replication.throttled.replicas": ("", ConfigType.LIST, None),
    "message.downconversion.enable": ("true", ConfigType.BOOLEAN, "log.message.downconversion.enable"),
    "message.format.version": ("3.0-IV1", ConfigType.STRING, "log.message.format.version"),
    "message.timestamp.difference.max.ms": (
        LONG_MAX,
        ConfigType.LONG,
        "log.message.timestamp.difference.max.ms",
    ),
    "remote.storage.enable": ("false", ConfigType.BOOLEAN, None),
    "local.retention.ms": ("-2", ConfigType.LONG, "log.local.retention.ms"),
    "local.retention.bytes": ("-2", ConfigType.LONG, "log.local.retention.bytes"),
    "remote.log.copy.disable": ("false", ConfigType.BOOLEAN, None),
    "remote.log.delete.on.disable": ("false", ConfigType.BOOLEAN, None),
}

THROTTLE_MESSAGE = (
    "Invalid value [{value}] for configuration {name}: {name} must be the literal '*' or a list of"
    " replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."
)


def in_resource(topic: str, message: str) -> str:
    """ZkAdminManager's AlterConfigs answer to a ConfigException of the topic's new configs."""
    return f"Invalid config value for resource ConfigResource(type=TOPIC, name='{topic}'): {message}"


TIERED_DISABLED = (
    "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote"
    " log storage."
)
REMOTE_IN_ZK = (
    "It is invalid to set `remote.log.delete.on.disable` or `remote.log.copy.disable` under Zookeeper's mode."
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(1, base_dir=tmp_path_factory.mktemp("topic-config-parity"))
    c.start()
    try:
        yield c
    finally:
        c.close()


def call(cluster: Cluster, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(0)) as client:
        return client.request(message, version)


def create(cluster: Cluster, name: str, configs: dict[str, str]) -> Any:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)
    topic.configs = [CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in configs.items()]
    (result,) = call(cluster, CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 7).topics
    return result


def describe(cluster: Cluster, name: str, keys: list[str] | None = None) -> Any:
    resource = DescribeConfigsRequest.DescribeConfigsResource(
        resource_type=TOPIC, resource_name=name, configuration_keys=keys
    )
    request = DescribeConfigsRequest(resources=[resource], include_synonyms=True)
    (result,) = call(cluster, request, 4).results
    assert result.error_code == 0, result.error_message
    return {c.name: c for c in result.configs}


def incremental(cluster: Cluster, name: str, ops: list[tuple[str, int, str | None]]) -> tuple[int, str]:
    configs = [
        IncrementalAlterConfigsRequest.AlterableConfig(name=k, config_operation=op, value=v)
        for k, op, v in ops
    ]
    resource = IncrementalAlterConfigsRequest.AlterConfigsResource(
        resource_type=TOPIC, resource_name=name, configs=configs
    )
    (r,) = call(cluster, IncrementalAlterConfigsRequest(resources=[resource]), 1).responses
    return r.error_code, r.error_message


def legacy_alter(cluster: Cluster, name: str, configs: dict[str, str]) -> tuple[int, str]:
    resource = AlterConfigsRequest.AlterConfigsResource(
        resource_type=TOPIC,
        resource_name=name,
        configs=[AlterConfigsRequest.AlterableConfig(name=k, value=v) for k, v in configs.items()],
    )
    (r,) = call(cluster, AlterConfigsRequest(resources=[resource]), 0).responses
    return r.error_code, r.error_message


def values(cluster: Cluster, topic: str, names: list[str]) -> dict[str, str | None]:
    described = describe(cluster, topic, names)
    return {n: described[n].value for n in names}


# ---------------------------------------------------------------- CreateTopics


@pytest.mark.parametrize("name", sorted(VALID))
def test_create_topics_accepts_each_kafka_topic_config(cluster, name):
    """ZkAdminManager.createTopics -> AdminZkClient.validateTopicCreate -> LogConfig.validate:
    every name of LogConfig.CONFIG is a topic config; DescribeConfigs shows the override with
    source TOPIC_CONFIG (ConfigHelper.createTopicConfigEntry)."""
    topic = f"create-{name.replace('.', '-')}"
    result = create(cluster, topic, {name: VALID[name]})
    assert result.error_code == 0, result.error_message
    entry = describe(cluster, topic, [name])[name]
    assert (entry.value, entry.config_source) == (VALID[name], int(ConfigSource.TOPIC_CONFIG))


def test_create_topics_accepts_all_of_them_together(cluster):
    """LogConfig.validate of the whole set (validateTopicLogConfigValues finds nothing to refuse
    with remote.storage.enable false)."""
    assert create(cluster, "create-all-kafka-configs", VALID).error_code == 0
    assert values(cluster, "create-all-kafka-configs", sorted(VALID)) == VALID


def test_create_topics_refuses_remote_storage_without_tiered_storage(cluster):
    """LogConfig.validateRemoteStorageOnlyIfSystemEnabled (remote.log.storage.system.enable is
    false): a ConfigException, which ZkAdminManager.createTopics answers INVALID_CONFIG with its
    message."""
    result = create(cluster, "create-remote-storage", {"remote.storage.enable": "true"})
    assert (result.error_code, result.error_message) == (E.INVALID_CONFIG.code, TIERED_DISABLED)


@pytest.mark.parametrize("name", ["remote.log.copy.disable", "remote.log.delete.on.disable"])
def test_create_topics_refuses_remote_log_switches_in_zookeeper_mode(cluster, name):
    """LogConfig.validateNoInvalidRemoteStorageConfigsInZK (fromZK = true), checked before
    remote.storage.enable: InvalidConfigurationException, INVALID_CONFIG."""
    result = create(
        cluster, f"create-{name.replace('.', '-')}-true", {name: "true", "remote.storage.enable": "true"}
    )
    assert (result.error_code, result.error_message) == (E.INVALID_CONFIG.code, REMOTE_IN_ZK)


@pytest.mark.parametrize("value", ["foo", "*,0:1", "0:1:2", "0-1", "a:1"])
def test_create_topics_refuses_a_bad_throttled_replica_list(cluster, value):
    """ThrottledReplicaListValidator.ensureValid: every entry matches ``([0-9]+:[0-9]+)?`` or
    the entries joined are ``*``; else ConfigException(name, list, ...) (the list printed as
    Java's List.toString)."""
    name = "leader.replication.throttled.replicas"
    result = create(cluster, "create-bad-throttle", {name: value})
    shown = ", ".join(v.strip() for v in value.split(","))
    assert (result.error_code, result.error_message) == (
        E.INVALID_CONFIG.code,
        THROTTLE_MESSAGE.format(value=shown, name=name),
    )


@pytest.mark.parametrize("value", ["*", " * ", "", "0:1", " 0:1 , 12:345 ", "0:1,"])
def test_throttled_replica_list_values_kafka_accepts(cluster, value):
    """ThrottledReplicaListValidator.ensureValid with ConfigDef's LIST parsing (trimmed, split on
    commas with the blanks around them)."""
    name = "follower.replication.throttled.replicas"
    topic = f"create-throttle-{value.encode().hex()}"
    assert create(cluster, topic, {name: value}).error_code == 0


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("3.0-IV1", True),
        ("3.9", True),
        ("3.9-IV0", True),
        ("2.8.2", True),  # fromVersionString keeps "2.8"
        ("0.10.2.1", True),  # "0.10.2"
        ("0.8.0", True),
        ("1.0-IV0", True),
        ("4.0-IV1", True),  # an internal version, though not production in 3.9
        ("4.0", False),  # the release alone names its latest production version: none
        ("3.10", False),
        ("3.0-IV2", False),
        ("0.10", False),
        ("latest", False),
    ],
)
def test_message_format_version_is_a_metadata_version(cluster, value, ok):
    """MetadataVersionValidator -> MetadataVersion.fromVersionString (Kafka 3.9's versions):
    ConfigException "Version <v> is not a valid version", INVALID_CONFIG."""
    topic = f"create-mfv-{value.replace('.', '_')}"
    result = create(cluster, topic, {"message.format.version": value})
    if ok:
        assert result.error_code == 0, result.error_message
    else:
        assert (result.error_code, result.error_message) == (
            E.INVALID_CONFIG.code,
            f"Invalid value {value} for configuration message.format.version: Version {value} is not a valid version",
        )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("local.retention.ms", "-3"),
        ("local.retention.bytes", "-3"),
        ("message.timestamp.difference.max.ms", "-1"),
        ("message.downconversion.enable", "yes"),
        ("remote.storage.enable", "1"),
    ],
)
def test_create_topics_refuses_values_out_of_kafka_ranges(cluster, name, value):
    """LogConfig.CONFIG: local.retention.ms/bytes atLeast(-2), message.timestamp.difference.max.ms
    atLeast(0), the BOOLEAN ones true/false only (ConfigDef.parseType): INVALID_CONFIG."""
    result = create(cluster, "create-out-of-range", {name: value})
    assert result.error_code == E.INVALID_CONFIG.code
    assert name in result.error_message
    assert not result.error_message.startswith("Unknown topic config name")


# ---------------------------------------------------------------- AlterConfigs / IncrementalAlterConfigs


def test_alter_configs_sets_the_throttled_replicas(cluster):
    """ZkAdminManager.alterConfigs -> AdminZkClient.validateTopicConfig -> LogConfig.validate
    (what kafka-reassign-partitions.sh --throttle writes)."""
    topic = "alter-throttle"
    assert create(cluster, topic, {}).error_code == 0
    change = {
        "leader.replication.throttled.replicas": "0:0,0:1",
        "follower.replication.throttled.replicas": "0:2",
    }
    assert legacy_alter(cluster, topic, change) == (0, None)
    assert values(cluster, topic, sorted(change)) == change
    name = "leader.replication.throttled.replicas"
    code, message = legacy_alter(cluster, topic, {name: "0:x"})
    assert (code, message) == (
        E.INVALID_CONFIG.code,
        in_resource(topic, THROTTLE_MESSAGE.format(value="0:x", name=name)),
    )
    assert values(cluster, topic, sorted(change)) == change


def test_incremental_alter_configs_of_the_throttled_replicas(cluster):
    """ZkAdminManager.incrementalAlterConfigs -> ConfigAdminManager.prepareIncrementalConfigs
    (SET, APPEND to a LIST config, DELETE back to the default "") -> LogConfig.validate."""
    topic = "incremental-throttle"
    leader, follower = "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"
    assert create(cluster, topic, {}).error_code == 0
    assert incremental(cluster, topic, [(leader, SET, "*"), (follower, APPEND, "0:1")]) == (0, None)
    assert values(cluster, topic, [follower, leader]) == {leader: "*", follower: "0:1"}
    assert incremental(cluster, topic, [(follower, APPEND, "0:2,0:1")]) == (0, None)
    assert values(cluster, topic, [follower]) == {follower: "0:1,0:2"}
    assert incremental(cluster, topic, [(leader, DELETE, None)]) == (0, None)
    entry = describe(cluster, topic, [leader])[leader]
    assert (entry.value, entry.config_source) == ("", int(ConfigSource.DEFAULT_CONFIG))
    code, message = incremental(cluster, topic, [(follower, APPEND, "*")])
    assert (code, message) == (
        E.INVALID_CONFIG.code,
        in_resource(topic, THROTTLE_MESSAGE.format(value="0:1, 0:2, *", name=follower)),
    )


@pytest.mark.parametrize("name", ["remote.log.copy.disable", "remote.log.delete.on.disable"])
def test_incremental_alter_configs_refuses_remote_log_switches_in_zookeeper_mode(cluster, name):
    """AdminZkClient.validateTopicConfig -> LogConfig.validateNoInvalidRemoteStorageConfigsInZK:
    an InvalidConfigurationException (an ApiException), so ZkAdminManager answers INVALID_CONFIG
    with its own message, nothing stored."""
    topic = f"incremental-{name.replace('.', '-')}"
    assert create(cluster, topic, {}).error_code == 0
    assert incremental(cluster, topic, [(name, SET, "true")]) == (E.INVALID_CONFIG.code, REMOTE_IN_ZK)
    assert legacy_alter(cluster, topic, {name: "true"}) == (E.INVALID_CONFIG.code, REMOTE_IN_ZK)
    entry = describe(cluster, topic, [name])[name]
    assert (entry.value, entry.config_source) == ("false", int(ConfigSource.DEFAULT_CONFIG))


def test_alter_configs_refuses_remote_storage_without_tiered_storage(cluster):
    """LogConfig.validateRemoteStorageOnlyIfSystemEnabled: a ConfigException, INVALID_CONFIG
    (ZkAdminManager prefixes "Invalid config value for resource ...: ", which Moldau does not)."""
    topic = "alter-remote-storage"
    assert create(cluster, topic, {}).error_code == 0
    code, message = incremental(cluster, topic, [("remote.storage.enable", SET, "true")])
    assert code == E.INVALID_CONFIG.code
    assert message.endswith(TIERED_DISABLED)
    assert incremental(cluster, topic, [("remote.storage.enable", SET, "false")]) == (0, None)


# ---------------------------------------------------------------- DescribeConfigs


def test_describe_configs_lists_them_with_kafka_defaults_types_and_sources(cluster):
    """ConfigHelper.describeConfigs (TOPIC: every LogConfig.configNames entry) ->
    createTopicConfigEntry: Kafka's default, ConfigType, source DEFAULT_CONFIG, read-only false,
    and as synonym the first broker synonym (ServerTopicConfigSynonyms) at its KafkaConfig
    default; none for LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS."""
    topic = "describe-defaults"
    assert create(cluster, topic, {}).error_code == 0
    described = describe(cluster, topic)
    for name, (default, ctype, synonym) in DEFAULTS.items():
        entry = described[name]
        got = (entry.value, entry.config_type, entry.config_source, entry.read_only, entry.is_sensitive)
        assert got == (default, int(ctype), int(ConfigSource.DEFAULT_CONFIG), False, False), name
        synonyms = [(s.name, s.value, s.source) for s in entry.synonyms]
        expected = [(synonym, default, int(ConfigSource.DEFAULT_CONFIG))] if synonym else []
        assert synonyms == expected, name


def test_describe_configs_override_then_broker_default_synonym(cluster):
    """ConfigHelper.createTopicConfigEntry: the TOPIC_CONFIG override first, then the broker
    synonym's DEFAULT_CONFIG value (log.local.retention.ms, RemoteLogManagerConfig's -2)."""
    topic = "describe-override"
    assert create(cluster, topic, {"local.retention.ms": "5000"}).error_code == 0
    entry = describe(cluster, topic, ["local.retention.ms"])["local.retention.ms"]
    assert [(s.name, s.value, s.source) for s in entry.synonyms] == [
        ("local.retention.ms", "5000", int(ConfigSource.TOPIC_CONFIG)),
        ("log.local.retention.ms", "-2", int(ConfigSource.DEFAULT_CONFIG)),
    ]


# ---------------------------------------------------------------- their broker synonyms


def test_broker_synonyms_are_dynamic_except_message_format_version():
    """DynamicLogConfig.ReconfigurableConfigs: the first broker synonym of every topic config
    but DynamicLogConfig.NonReconfigrableLogConfigs (message.format.version)."""
    assert check_dynamic_configs(
        {
            "log.message.downconversion.enable": "false",
            "log.message.timestamp.difference.max.ms": "1000",
            "log.local.retention.ms": "-2",
            "log.local.retention.bytes": "-2",
        },
        per_broker=False,
    )
    with pytest.raises(
        ConfigError, match=r"Cannot update these configs dynamically: Set\(log.message.format.version\)"
    ):
        check_dynamic_configs({"log.message.format.version": "3.0"}, per_broker=False)


def test_broker_synonym_supplies_the_topic_default():
    """KafkaConfig.extractLogConfigMap / ConfigHelper.createTopicConfigEntry: a server.properties
    value is the topic default (source STATIC_BROKER_CONFIG); KafkaConfig validates
    log.message.format.version with MetadataVersionValidator."""
    config = BrokerConfig({"log.message.downconversion.enable": "false", "log.message.format.version": "2.8"})
    entries = {e.name: e for e in describe_topic_configs(config, {})}
    assert (
        entries["message.downconversion.enable"].value,
        entries["message.downconversion.enable"].source,
    ) == (
        "false",
        ConfigSource.STATIC_BROKER_CONFIG,
    )
    assert entries["message.format.version"].value == "2.8"
    with pytest.raises(ConfigError, match=r"Version 2\.99 is not a valid version"):
        BrokerConfig({"log.message.format.version": "2.99"})
