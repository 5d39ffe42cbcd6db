"""Issue 2 acceptance: real clients manage topics on a broker running as a subprocess.

Each admin client (Java kafka-clients 4.3 ``Admin``, confluent-kafka ``AdminClient``,
kafka-python ``KafkaAdminClient``, aiokafka ``AIOKafkaAdminClient``) creates topics, lists them
with their partition counts, describes configs and the cluster and deletes topics, before and
after a broker restart; and gets Kafka's error codes for the mistakes users make. Debian's
``kcat -L`` (librdkafka 2.0.2) lists the topics and partition counts across a restart too.

The clients differ in how they show the same answer, so each is wrapped in a small adapter
that turns its results into Kafka's error codes and config source ids; the tests themselves
are shared and parametrized by client.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from protocol.errors import ErrorCode
from tests.integration.conftest import MODULE_BROKER_OVERRIDES
from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, require_java
from tests.support.kcat import Kcat, require_kcat

pytestmark = pytest.mark.integration

# DescribeConfigs config sources as on the wire (Kafka's DescribeConfigsResponse.ConfigSource).
TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5
# The Java client's and the Python clients' names for those ids.
SOURCE_IDS = {
    "UNKNOWN": 0,
    "UNKNOWN_CONFIG": 0,
    "TOPIC_CONFIG": 1,
    "DYNAMIC_TOPIC_CONFIG": 1,
    "DYNAMIC_BROKER_CONFIG": 2,
    "DYNAMIC_DEFAULT_BROKER_CONFIG": 3,
    "STATIC_BROKER_CONFIG": 4,
    "DEFAULT_CONFIG": 5,
    "DYNAMIC_BROKER_LOGGER_CONFIG": 6,
}

TIMEOUT_S = 20


@dataclass
class ConfigEntry:
    value: str | None
    source: int
    synonyms: list[tuple[str, str | None, int]] = field(default_factory=list)


@dataclass
class DescribedConfigs:
    error: ErrorCode
    entries: dict[str, ConfigEntry]


@dataclass
class Cluster:
    cluster_id: str
    controller_id: int
    node_ids: list[int]


class AdminAdapter:
    """One client's admin calls, answered in Kafka's terms."""

    name: str
    # kafka-python 3 drops the per-resource error of DescribeConfigs (it returns no entries).
    surfaces_describe_configs_errors = True
    # confluent-kafka keys synonyms by name, so of log.retention.hours=24 (static) and =168
    # (default), both synonyms Kafka lists, it keeps only the last.
    keeps_duplicate_synonyms = True

    def create(
        self,
        topic: str,
        partitions: int,
        replication: int = 1,
        configs: Mapping[str, str] | None = None,
        *,
        validate_only: bool = False,
    ) -> ErrorCode:
        raise NotImplementedError

    def partition_counts(self) -> dict[str, int]:
        """Every topic the client lists, with its number of partitions."""
        raise NotImplementedError

    def describe_configs(self, kind: str, name: str) -> DescribedConfigs:
        raise NotImplementedError

    def delete(self, topic: str) -> ErrorCode:
        raise NotImplementedError

    def describe_cluster(self) -> Cluster:
        raise NotImplementedError

    def close(self) -> None:
        pass


class JavaAdmin(AdminAdapter):
    name = "java"

    def __init__(self, bootstrap: str) -> None:
        # One JVM for all of this adapter's calls (the driver's batch mode).
        self._exit = contextlib.ExitStack()
        self.client = self._exit.enter_context(JavaClient(bootstrap, runtime=require_java()).session())

    def close(self):
        self._exit.close()

    @staticmethod
    def _error(line: Mapping[str, Any]) -> ErrorCode:
        return ErrorCode.NONE if line["ok"] else ErrorCode[line["error_code"]]

    def create(self, topic, partitions, replication=1, configs=None, *, validate_only=False):
        line = self.client.create_topic(
            topic, partitions, replication, configs=configs, validate_only=validate_only
        )
        return self._error(line)

    def partition_counts(self):
        names = sorted(self.client.topic_names())
        if not names:
            return {}
        return {d["topic"]: len(d["partitions"]) for d in self.client.describe_topics(*names) if d["ok"]}

    def describe_configs(self, kind, name):
        line = self.client.describe_configs(kind, name)
        entries = {
            e["name"]: ConfigEntry(
                e["value"],
                SOURCE_IDS[e["source"]],
                [(s["name"], s["value"], SOURCE_IDS[s["source"]]) for s in e["synonyms"]],
            )
            for e in line.get("configs", [])
        }
        return DescribedConfigs(self._error(line), entries)

    def delete(self, topic):
        return self._error(self.client.delete_topics(topic)[0])

    def describe_cluster(self):
        line = self.client.describe_cluster()
        assert line["ok"], line
        return Cluster(line["cluster_id"], line["controller"]["id"], [n["id"] for n in line["nodes"]])


class ConfluentAdmin(AdminAdapter):
    name = "confluent"
    keeps_duplicate_synonyms = False

    def __init__(self, bootstrap: str) -> None:
        from confluent_kafka.admin import AdminClient

        self.admin = AdminClient({"bootstrap.servers": bootstrap})

    @staticmethod
    def _result(future: Any) -> tuple[ErrorCode, Any]:
        from confluent_kafka import KafkaException

        try:
            return ErrorCode.NONE, future.result(timeout=TIMEOUT_S)
        except KafkaException as e:
            return _error_code(e.args[0].code()), None

    def create(self, topic, partitions, replication=1, configs=None, *, validate_only=False):
        from confluent_kafka.admin import NewTopic

        futures = self.admin.create_topics(
            [NewTopic(topic, partitions, replication, config=dict(configs or {}))],
            operation_timeout=TIMEOUT_S,
            validate_only=validate_only,
        )
        return self._result(futures[topic])[0]

    def partition_counts(self):
        metadata = self.admin.list_topics(timeout=TIMEOUT_S)
        return {name: len(t.partitions) for name, t in metadata.topics.items() if t.error is None}

    def describe_configs(self, kind, name):
        from confluent_kafka.admin import ConfigResource, ResourceType

        resource = ConfigResource(ResourceType.TOPIC if kind == "topic" else ResourceType.BROKER, name)
        error, configs = self._result(
            self.admin.describe_configs([resource], request_timeout=TIMEOUT_S)[resource]
        )
        entries = {
            n: ConfigEntry(
                e.value, int(e.source), [(s.name, s.value, int(s.source)) for s in e.synonyms.values()]
            )
            for n, e in (configs or {}).items()
        }
        return DescribedConfigs(error, entries)

    def delete(self, topic):
        return self._result(self.admin.delete_topics([topic], operation_timeout=TIMEOUT_S)[topic])[0]

    def describe_cluster(self):
        result = self.admin.describe_cluster(request_timeout=TIMEOUT_S).result(timeout=TIMEOUT_S)
        return Cluster(result.cluster_id, result.controller.id, [n.id for n in result.nodes])


class KafkaPythonAdmin(AdminAdapter):
    name = "kafka-python"
    surfaces_describe_configs_errors = False

    def __init__(self, bootstrap: str) -> None:
        from kafka.admin import KafkaAdminClient

        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000)

    def create(self, topic, partitions, replication=1, configs=None, *, validate_only=False):
        from kafka.errors import KafkaError

        spec = {
            "num_partitions": partitions,
            "replication_factor": replication,
            "configs": dict(configs or {}),
        }
        try:
            self.admin.create_topics({topic: spec}, validate_only=validate_only)
        except KafkaError as e:
            return _error_code(e.errno)
        return ErrorCode.NONE

    def partition_counts(self):
        names = self.admin.list_topics()
        if not names:
            return {}
        return {
            t["name"]: len(t["partitions"]) for t in self.admin.describe_topics(names) if t["error_code"] == 0
        }

    def describe_configs(self, kind, name):
        from kafka.admin import ConfigResource, ConfigResourceType

        resource = ConfigResource(
            ConfigResourceType.TOPIC if kind == "topic" else ConfigResourceType.BROKER, name
        )
        result = self.admin.describe_configs([resource], include_synonyms=True, config_filter="all")
        configs = result.get(kind, {}).get(name, {})
        entries = {
            n: ConfigEntry(
                c["value"],
                SOURCE_IDS[c["config_source"]],
                [(s["name"], s["value"], SOURCE_IDS[s["source"]]) for s in c.get("synonyms", [])],
            )
            for n, c in configs.items()
        }
        return DescribedConfigs(ErrorCode.NONE, entries)

    def delete(self, topic):
        from kafka.errors import KafkaError

        try:
            self.admin.delete_topics([topic])
        except KafkaError as e:
            return _error_code(e.errno)
        return ErrorCode.NONE

    def describe_cluster(self):
        c = self.admin.describe_cluster()
        return Cluster(c["cluster_id"], c["controller_id"], [b["broker_id"] for b in c["brokers"]])

    def close(self):
        self.admin.close()


class AiokafkaAdmin(AdminAdapter):
    """aiokafka is asyncio-only: the adapter runs its coroutines on a private loop."""

    name = "aiokafka"

    def __init__(self, bootstrap: str) -> None:
        from aiokafka.admin import AIOKafkaAdminClient

        self.loop = asyncio.new_event_loop()

        async def start() -> AIOKafkaAdminClient:
            # aiokafka binds its client to the running loop at construction.
            admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
            await admin.start()
            return admin

        self.admin = self._run(start())

    def _run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, TIMEOUT_S * 2))

    def create(self, topic, partitions, replication=1, configs=None, *, validate_only=False):
        from aiokafka.admin import NewTopic

        response = self._run(
            self.admin.create_topics(
                [NewTopic(topic, partitions, replication, topic_configs=dict(configs or {}))],
                validate_only=validate_only,
            )
        )
        ((name, code, *_),) = response.topic_errors
        assert name == topic
        return _error_code(code)

    def partition_counts(self):
        names = self._run(self.admin.list_topics())
        if not names:
            return {}
        return {
            t["topic"]: len(t["partitions"])
            for t in self._run(self.admin.describe_topics(names))
            if t["error_code"] == 0
        }

    def describe_configs(self, kind, name):
        from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

        resource = ConfigResource(
            ConfigResourceType.TOPIC if kind == "topic" else ConfigResourceType.BROKER, name
        )
        (response,) = self._run(self.admin.describe_configs([resource], include_synonyms=True))
        ((code, _message, _type, resource_name, config_entries),) = response.resources
        assert resource_name == name
        entries = {e[0]: ConfigEntry(e[1], e[3], [(s[0], s[1], s[2]) for s in e[5]]) for e in config_entries}
        return DescribedConfigs(_error_code(code), entries)

    def delete(self, topic):
        response = self._run(self.admin.delete_topics([topic]))
        ((name, code),) = response.topic_error_codes
        assert name == topic
        return _error_code(code)

    def describe_cluster(self):
        c = self._run(self.admin.describe_cluster())
        return Cluster(c["cluster_id"], c["controller_id"], [b["node_id"] for b in c["brokers"]])

    def close(self):
        with contextlib.suppress(Exception):
            self._run(self.admin.close())
        self.loop.close()


def _error_code(code: int) -> ErrorCode:
    for e in ErrorCode:
        if e.code == code:
            return e
    raise AssertionError(f"unknown Kafka error code {code}")


ADAPTERS: dict[str, type[AdminAdapter]] = {
    "java": JavaAdmin,
    "confluent": ConfluentAdmin,
    "kafka-python": KafkaPythonAdmin,
    "aiokafka": AiokafkaAdmin,
}
CLIENTS = [
    pytest.param(name, marks=[pytest.mark.java] if name == "java" else [], id=name) for name in ADAPTERS
]


@contextlib.contextmanager
def connect(client: str, broker: BrokerProcess) -> Iterator[AdminAdapter]:
    adapter = ADAPTERS[client](broker.bootstrap)
    try:
        yield adapter
    finally:
        adapter.close()


def topic_name(client: str, suffix: str) -> str:
    return f"{client}-{suffix}"


def assert_no_broker_errors(broker: BrokerProcess) -> None:
    """Nothing these clients send should make the broker log a warning or an error.

    A closed connection (a request that does not decode) or a handler crash is logged so; a
    real client must never cause either.
    """
    errors = [
        line for line in broker.lines if any(m in line for m in ("level=ERROR", "level=WARNING", "Traceback"))
    ]
    assert not errors, "broker logged errors:\n" + "\n".join(errors[:10])


def restart(broker: BrokerProcess) -> None:
    assert_no_broker_errors(broker)  # its log starts afresh with the new process
    broker.restart()


@pytest.fixture(autouse=True)
def _broker_log_clean(live_broker: BrokerProcess) -> Iterator[None]:
    yield
    assert_no_broker_errors(live_broker)


# ---------------------------------------------------------------- topics across a restart


@pytest.mark.parametrize("client", CLIENTS)
def test_topics_survive_restart(client: str, live_broker: BrokerProcess) -> None:
    three, one = topic_name(client, "three"), topic_name(client, "one")
    with connect(client, live_broker) as admin:
        cluster = admin.describe_cluster()
        assert admin.create(three, 3) == ErrorCode.NONE
        assert admin.create(one, 1, configs={"retention.ms": "3600000"}) == ErrorCode.NONE
        counts = admin.partition_counts()
        assert counts[three] == 3 and counts[one] == 1

    restart(live_broker)
    with connect(client, live_broker) as admin:
        counts = admin.partition_counts()
        assert counts[three] == 3 and counts[one] == 1
        # The override given at creation survives the restart too.
        override = admin.describe_configs("topic", one).entries["retention.ms"]
        assert (override.value, override.source) == ("3600000", TOPIC_CONFIG)
        after = admin.describe_cluster()
        assert after.cluster_id == cluster.cluster_id
        assert after.node_ids == [after.controller_id] == cluster.node_ids

        assert admin.delete(three) == ErrorCode.NONE
        assert three not in admin.partition_counts()

    restart(live_broker)
    with connect(client, live_broker) as admin:
        counts = admin.partition_counts()
        assert three not in counts
        assert counts[one] == 1
        assert admin.delete(one) == ErrorCode.NONE
        assert one not in admin.partition_counts()


# ---------------------------------------------------------------- mistakes users make


@pytest.mark.parametrize("client", CLIENTS)
def test_admin_errors(client: str, live_broker: BrokerProcess) -> None:
    existing = topic_name(client, "exists")
    failed = {
        "bad name!": (1, 1, None, ErrorCode.INVALID_TOPIC_EXCEPTION),
        "x" * 250: (1, 1, None, ErrorCode.INVALID_TOPIC_EXCEPTION),
        topic_name(client, "replicas"): (1, 3, None, ErrorCode.INVALID_REPLICATION_FACTOR),
        topic_name(client, "partitions"): (0, 1, None, ErrorCode.INVALID_PARTITIONS),
        topic_name(client, "badvalue"): (1, 1, {"retention.ms": "soon"}, ErrorCode.INVALID_CONFIG),
        topic_name(client, "badkey"): (1, 1, {"no.such.config": "1"}, ErrorCode.INVALID_CONFIG),
    }
    with connect(client, live_broker) as admin:
        assert admin.create(existing, 2) == ErrorCode.NONE
        assert admin.create(existing, 2) == ErrorCode.TOPIC_ALREADY_EXISTS
        for name, (partitions, replication, configs, expected) in failed.items():
            assert admin.create(name, partitions, replication, configs) == expected, name
        counts = admin.partition_counts()
        assert counts[existing] == 2  # unchanged by the second create
        assert not set(failed) & set(counts), "a refused topic was created anyway"

        missing = topic_name(client, "missing")
        described = admin.describe_configs("topic", missing)
        if admin.surfaces_describe_configs_errors:
            assert described.error == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        assert described.entries == {}
        assert admin.delete(missing) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        assert admin.delete(existing) == ErrorCode.NONE


@pytest.mark.parametrize("client", CLIENTS)
def test_validate_only_creates_nothing(client: str, live_broker: BrokerProcess) -> None:
    """CreateTopics with validate_only answers as a real create would, and creates nothing."""
    topic, existing = topic_name(client, "validated"), topic_name(client, "validate-existing")
    with connect(client, live_broker) as admin:
        assert admin.create(existing, 1) == ErrorCode.NONE
        assert admin.create(topic, 3, validate_only=True) == ErrorCode.NONE
        assert admin.create(existing, 1, validate_only=True) == ErrorCode.TOPIC_ALREADY_EXISTS
        bad = admin.create(topic, 1, configs={"retention.ms": "soon"}, validate_only=True)
        assert bad == ErrorCode.INVALID_CONFIG
        assert topic not in admin.partition_counts()
        assert admin.create(topic, 3) == ErrorCode.NONE  # the name was never taken
        assert admin.partition_counts()[topic] == 3
        for name in (topic, existing):
            assert admin.delete(name) == ErrorCode.NONE


# ---------------------------------------------------------------- describe configs


@pytest.mark.parametrize("client", CLIENTS)
def test_describe_configs_sources(client: str, live_broker: BrokerProcess) -> None:
    """Defaults, static broker settings and topic overrides each show with their source."""
    topic = topic_name(client, "configs")
    retention_ms = str(int(MODULE_BROKER_OVERRIDES["log.retention.hours"]) * 3_600_000)
    with connect(client, live_broker) as admin:
        assert admin.create(topic, 1, configs={"segment.bytes": "1048576"}) == ErrorCode.NONE
        described = admin.describe_configs("topic", topic)
        assert described.error == ErrorCode.NONE
        entries = described.entries

        # Synonyms come in order of precedence, the one in effect first (Kafka's ConfigHelper).
        segment = entries["segment.bytes"]
        assert (segment.value, segment.source) == ("1048576", TOPIC_CONFIG)
        assert segment.synonyms == [
            ("segment.bytes", "1048576", TOPIC_CONFIG),
            ("log.segment.bytes", "1073741824", DEFAULT_CONFIG),
        ]

        # log.retention.hours=24 on the broker's command line is where retention.ms's value comes
        # from, but Kafka's ConfigHelper.configSynonyms drops the synonyms before the first
        # log.retention.ms (set nowhere): no synonyms, so the source is DEFAULT_CONFIG.
        retention = entries["retention.ms"]
        assert (retention.value, retention.source) == (retention_ms, DEFAULT_CONFIG)
        assert retention.synonyms == []

        cleanup = entries["cleanup.policy"]
        assert (cleanup.value, cleanup.source) == ("delete", DEFAULT_CONFIG)

        broker_id = admin.describe_cluster().controller_id
        broker = admin.describe_configs("broker", str(broker_id))
        assert broker.error == ErrorCode.NONE
        hours = broker.entries["log.retention.hours"]
        assert (hours.value, hours.source) == ("24", STATIC_BROKER_CONFIG)
        if admin.keeps_duplicate_synonyms:
            assert hours.synonyms == [
                ("log.retention.hours", "24", STATIC_BROKER_CONFIG),
                ("log.retention.hours", "168", DEFAULT_CONFIG),
            ]
        partitions = broker.entries["num.partitions"]
        assert (partitions.value, partitions.source) == ("2", STATIC_BROKER_CONFIG)
        segment_bytes = broker.entries["log.segment.bytes"]
        assert (segment_bytes.value, segment_bytes.source) == ("1073741824", DEFAULT_CONFIG)

        assert admin.delete(topic) == ErrorCode.NONE


# ---------------------------------------------------------------- broker defaults at creation


@pytest.mark.parametrize("client", [c for c in CLIENTS if c.id != "aiokafka"])
def test_create_with_broker_defaults(client: str, live_broker: BrokerProcess) -> None:
    """-1 partitions and replicas take num.partitions and default.replication.factor (KIP-464).

    aiokafka sends CreateTopics v3, which cannot ask for broker defaults (its NewTopic refuses -1).
    """
    topic = topic_name(client, "defaults")
    with connect(client, live_broker) as admin:
        assert admin.create(topic, -1, -1) == ErrorCode.NONE
        assert admin.partition_counts()[topic] == int(MODULE_BROKER_OVERRIDES["num.partitions"])
        assert admin.delete(topic) == ErrorCode.NONE


# ---------------------------------------------------------------- the Java client's negotiated versions


@pytest.mark.java
def test_java_negotiates_every_advertised_api(live_broker: BrokerProcess) -> None:
    """Every API the broker advertises overlaps kafka-clients 4.3's own range."""
    result = JavaClient(live_broker.bootstrap, runtime=require_java()).api_versions()
    assert result["ok"], result
    apis = {a["api"]: a for node in result["nodes"].values() for a in node}
    assert {"API_VERSIONS", "METADATA", "CREATE_TOPICS", "DELETE_TOPICS", "DESCRIBE_CONFIGS"} <= set(apis)
    assert apis["API_VERSIONS"]["usable"] == 4
    unusable = [name for name, a in apis.items() if a["usable"] is None]
    assert not unusable, f"advertised ranges the Java client cannot use: {unusable}"


# ---------------------------------------------------------------- kcat -L


def test_kcat_lists_topics_across_restart(live_broker: BrokerProcess) -> None:
    """Debian's kcat (librdkafka 2.0.2) lists topics and partition counts, also after a restart."""
    require_kcat()
    kcat = Kcat(live_broker.bootstrap)
    topics = {"kcat-one": 1, "kcat-four": 4}
    with connect("kafka-python", live_broker) as admin:
        for name, partitions in topics.items():
            assert admin.create(name, partitions) == ErrorCode.NONE

    metadata = kcat.metadata()
    assert [b["id"] for b in metadata["brokers"]] == [metadata["controllerid"]]
    assert {n: c for n, c in kcat.partition_counts().items() if n in topics} == topics
    for topic in metadata["topics"]:
        if topic["topic"] in topics:
            assert all(p["leader"] == metadata["controllerid"] for p in topic["partitions"])

    restart(live_broker)
    assert {n: c for n, c in kcat.partition_counts().items() if n in topics} == topics
    single = kcat.metadata("kcat-four")
    assert [(t["topic"], len(t["partitions"])) for t in single["topics"]] == [("kcat-four", 4)]
