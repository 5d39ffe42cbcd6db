"""Issue 16 acceptance (operations): real admin clients change configs live, delete records,
describe log dirs and delete a group's offsets on a broker running as a subprocess.

The Java ``Admin`` (kafka-clients 4.3: IncrementalAlterConfigs only, the legacy AlterConfigs
is gone from it), confluent-kafka's ``AdminClient`` (AlterConfigs and
IncrementalAlterConfigs, DeleteRecords, group offsets listed after deletion) and
kafka-python's ``KafkaAdminClient`` (AlterConfigs / IncrementalAlterConfigs,
DescribeLogDirs, DeleteRecords, OffsetDelete) are each driven through the same scenarios.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from kafka import KafkaConsumer, KafkaProducer, OffsetAndMetadata
from kafka import TopicPartition as KTopicPartition
from kafka.admin import ConfigResource as KConfigResource
from kafka.admin import ConfigResourceType, KafkaAdminClient, NewTopic

from protocol.errors import ErrorCode
from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, require_java

pytestmark = pytest.mark.integration

RETENTION_CHECK_MS = 200
OLD_MS = 2 * 3_600_000  # records produced this far in the past
TIMEOUT_S = 30


@pytest.fixture(scope="module")
def ops_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    b = BrokerProcess(
        tmp_path_factory.mktemp("ops-broker") / "data",
        {"log.retention.check.interval.ms": str(RETENTION_CHECK_MS), "offsets.topic.num.partitions": "1"},
    )
    b.start()
    yield b
    if b.alive():
        b.stop()


@pytest.fixture
def broker(ops_broker: BrokerProcess) -> BrokerProcess:
    if not ops_broker.alive():
        ops_broker.start()
    return ops_broker


def new_topic(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@contextlib.contextmanager
def kafka_python_admin(broker: BrokerProcess) -> Iterator[KafkaAdminClient]:
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        yield admin
    finally:
        admin.close()


def confluent_admin(broker: BrokerProcess):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": broker.bootstrap})


def create_topic(broker: BrokerProcess, topic: str, partitions: int = 1, **configs: str) -> None:
    with kafka_python_admin(broker) as admin:
        admin.create_topics([NewTopic(topic, partitions, 1, topic_configs=configs)])


def produce(broker: BrokerProcess, topic: str, count: int, *, timestamp_ms: int | None = None) -> None:
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, linger_ms=0, batch_size=1)
    try:
        for i in range(count):
            producer.send(topic, value=b"v" * 200 + str(i).encode(), partition=0, timestamp_ms=timestamp_ms)
            producer.flush()  # one batch per record: segments roll at small segment.bytes
    finally:
        producer.close()


def offsets(broker: BrokerProcess, topic: str) -> tuple[int, int]:
    """(log start offset, high watermark) of partition 0."""
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap)
    try:
        tp = KTopicPartition(topic, 0)
        return consumer.beginning_offsets([tp])[tp], consumer.end_offsets([tp])[tp]
    finally:
        consumer.close()


def wait_until(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def retry_while_coordinator_loads(call: Callable[[], object]) -> object:
    """A first group request while ``__consumer_offsets`` is being created gets
    COORDINATOR_NOT_AVAILABLE (as from Kafka); clients retry."""
    from kafka.errors import CoordinatorLoadInProgressError, CoordinatorNotAvailableError

    deadline = time.monotonic() + TIMEOUT_S
    while True:
        try:
            return call()
        except (CoordinatorNotAvailableError, CoordinatorLoadInProgressError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# ---------------------------------------------------------------- altering retention.ms live


def _alter_retention_java(broker: BrokerProcess, topic: str, value: str) -> None:
    result = JavaClient(broker.bootstrap, runtime=require_java()).incremental_alter_configs(
        "topic", topic, set_={"retention.ms": value}
    )
    assert result["ok"], result


def _alter_retention_confluent(broker: BrokerProcess, topic: str, value: str) -> None:
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    admin = confluent_admin(broker)
    resource = ConfigResource(
        "topic",
        topic,
        incremental_configs=[ConfigEntry("retention.ms", value, incremental_operation=AlterConfigOpType.SET)],
    )
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(timeout=TIMEOUT_S)


def _alter_retention_confluent_legacy(broker: BrokerProcess, topic: str, value: str) -> None:
    from confluent_kafka.admin import ConfigResource

    admin = confluent_admin(broker)
    # AlterConfigs replaces the whole set: the other override must be named again.
    resource = ConfigResource("topic", topic, set_config={"retention.ms": value, "segment.bytes": "1024"})
    for future in admin.alter_configs([resource]).values():
        future.result(timeout=TIMEOUT_S)


def _alter_retention_kafka_python(
    broker: BrokerProcess, topic: str, value: str, *, incremental: bool
) -> None:
    with kafka_python_admin(broker) as admin:
        result = admin.alter_configs(
            [KConfigResource(ConfigResourceType.TOPIC, topic, configs={"retention.ms": value})],
            incremental=incremental,
        )
    assert result == {"topic": {topic: "OK"}}, result


ALTERERS = {
    "java-incremental": _alter_retention_java,
    "confluent-incremental": _alter_retention_confluent,
    "confluent-legacy": _alter_retention_confluent_legacy,
    "kafka-python-incremental": lambda b, t, v: _alter_retention_kafka_python(b, t, v, incremental=True),
    "kafka-python-legacy": lambda b, t, v: _alter_retention_kafka_python(b, t, v, incremental=False),
}


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated:DeprecationWarning")
@pytest.mark.parametrize("client", ALTERERS)
def test_altered_retention_deletes_old_segments_without_restart(client: str, broker: BrokerProcess) -> None:
    """Records two hours old survive the 7-day default; once retention.ms is one minute, the
    next retention check deletes their segments (the broker is not restarted)."""
    if client.startswith("java"):
        require_java()
    topic = new_topic("retention")
    create_topic(broker, topic, **{"segment.bytes": "1024"})
    produce(broker, topic, 20, timestamp_ms=int(time.time() * 1000) - OLD_MS)
    assert offsets(broker, topic) == (0, 20)
    time.sleep(3 * RETENTION_CHECK_MS / 1000)  # a few retention checks under the default: nothing goes
    assert offsets(broker, topic)[0] == 0

    ALTERERS[client](broker, topic, "60000")

    wait_until(lambda: offsets(broker, topic)[0] == 20, "the old segments to be deleted")
    with kafka_python_admin(broker) as admin:
        described = admin.describe_configs([KConfigResource(ConfigResourceType.TOPIC, topic)])
    entry = described["topic"][topic]["retention.ms"]
    assert (entry["value"], entry["config_source"]) == ("60000", "DYNAMIC_TOPIC_CONFIG")
    if client == "confluent-legacy":
        assert described["topic"][topic]["segment.bytes"]["value"] == "1024"


def test_alter_configs_errors(broker: BrokerProcess) -> None:
    """Kafka's codes: unknown topic, invalid value, unknown config, static broker config."""
    java = JavaClient(broker.bootstrap, runtime=require_java())
    missing = java.incremental_alter_configs("topic", new_topic("missing"), set_={"retention.ms": "1"})
    assert missing["error_code"] == "UNKNOWN_TOPIC_OR_PARTITION", missing
    topic = new_topic("errors")
    create_topic(broker, topic)
    bad = java.incremental_alter_configs("topic", topic, set_={"retention.ms": "soon"})
    assert bad["error_code"] == "INVALID_CONFIG", bad
    unknown = java.incremental_alter_configs("topic", topic, set_={"no.such.config": "1"})
    assert unknown["error_code"] == "INVALID_CONFIG", unknown
    append = java.incremental_alter_configs("topic", topic, append={"retention.ms": "1"})
    assert append["error_code"] == "INVALID_CONFIG", append
    static = java.incremental_alter_configs("broker", "0", set_={"num.partitions": "3"})
    assert static["error_code"] == "INVALID_REQUEST", static
    assert "Cannot update these configs dynamically: Set(num.partitions)" in static["message"]
    # validate_only changes nothing; APPEND / SUBTRACT work on list configs
    assert java.incremental_alter_configs("topic", topic, set_={"retention.ms": "5"}, validate_only=True)[
        "ok"
    ]
    assert java.incremental_alter_configs("topic", topic, append={"cleanup.policy": "compact"})["ok"]
    configs = {e["name"]: e for e in java.describe_configs("topic", topic)["configs"]}
    assert configs["retention.ms"]["source"] == "DEFAULT_CONFIG"
    assert configs["cleanup.policy"]["value"] == "delete,compact"
    assert java.incremental_alter_configs("topic", topic, subtract={"cleanup.policy": "delete"})["ok"]
    configs = {e["name"]: e for e in java.describe_configs("topic", topic)["configs"]}
    assert configs["cleanup.policy"]["value"] == "compact"


# ---------------------------------------------------------------- dynamic broker configs


def test_dynamic_broker_retention_applies_to_topics_without_override(broker: BrokerProcess) -> None:
    """log.retention.ms set at the cluster default reaches every log without an override
    (old segments deleted live), shows as DYNAMIC_DEFAULT_BROKER_CONFIG, then
    DYNAMIC_BROKER_CONFIG once set for the broker, and survives a restart."""
    java = JavaClient(broker.bootstrap, runtime=require_java())
    plain, kept = new_topic("plain"), new_topic("kept")
    create_topic(broker, plain, **{"segment.bytes": "1024"})
    create_topic(broker, kept, **{"segment.bytes": "1024", "retention.ms": "-1"})
    now = int(time.time() * 1000)
    produce(broker, plain, 10, timestamp_ms=now - OLD_MS)
    produce(broker, kept, 10, timestamp_ms=now - OLD_MS)
    try:
        assert java.incremental_alter_configs("broker", "", set_={"log.retention.ms": "60000"})["ok"]
        wait_until(lambda: offsets(broker, plain)[0] == 10, "the cluster default to delete old segments")
        assert offsets(broker, kept)[0] == 0  # its own override (-1) wins

        entries = {e["name"]: e for e in java.describe_configs("topic", plain)["configs"]}
        assert entries["retention.ms"]["source"] == "DYNAMIC_DEFAULT_BROKER_CONFIG"
        assert entries["retention.ms"]["synonyms"][0] == {
            "name": "log.retention.ms",
            "value": "60000",
            "source": "DYNAMIC_DEFAULT_BROKER_CONFIG",
        }
        default_level = {e["name"]: e for e in java.describe_configs("broker", "")["configs"]}
        assert set(default_level) == {"log.retention.ms"}

        assert java.incremental_alter_configs("broker", "0", set_={"log.retention.ms": "120000"})["ok"]
        broker_level = {e["name"]: e for e in java.describe_configs("broker", "0")["configs"]}
        retention = broker_level["log.retention.ms"]
        assert (retention["value"], retention["source"], retention["read_only"]) == (
            "120000",
            "DYNAMIC_BROKER_CONFIG",
            False,
        )
        assert [s["source"] for s in retention["synonyms"]][:2] == [
            "DYNAMIC_BROKER_CONFIG",
            "DYNAMIC_DEFAULT_BROKER_CONFIG",
        ]
        assert broker_level["num.partitions"]["read_only"] is True

        broker.restart()
        java = JavaClient(broker.bootstrap, runtime=require_java())
        after = {e["name"]: e for e in java.describe_configs("broker", "0")["configs"]}
        assert (after["log.retention.ms"]["value"], after["log.retention.ms"]["source"]) == (
            "120000",
            "DYNAMIC_BROKER_CONFIG",
        )
    finally:
        java.incremental_alter_configs("broker", "0", delete=["log.retention.ms"])
        java.incremental_alter_configs("broker", "", delete=["log.retention.ms"])
    entries = {e["name"]: e for e in java.describe_configs("topic", plain)["configs"]}
    assert entries["retention.ms"]["source"] == "DEFAULT_CONFIG"


# ---------------------------------------------------------------- DeleteRecords


def _delete_records_java(broker: BrokerProcess, topic: str, offset: int) -> tuple[str, int | None]:
    result = JavaClient(broker.bootstrap, runtime=require_java()).delete_records({(topic, 0): offset})
    entry = result["partitions"][f"{topic}:0"]
    return ("NONE", entry["low_watermark"]) if entry["ok"] else (entry["error_code"], None)


def _delete_records_confluent(broker: BrokerProcess, topic: str, offset: int) -> tuple[str, int | None]:
    from confluent_kafka import KafkaException, TopicPartition

    admin = confluent_admin(broker)
    (future,) = admin.delete_records([TopicPartition(topic, 0, offset)]).values()
    try:
        return "NONE", future.result(timeout=TIMEOUT_S).low_watermark
    except KafkaException as exc:
        return exc.args[0].name(), None


def _delete_records_kafka_python(broker: BrokerProcess, topic: str, offset: int) -> tuple[str, int | None]:
    with kafka_python_admin(broker) as admin:
        try:
            result = admin.delete_records({KTopicPartition(topic, 0): offset})
        except Exception as exc:  # kafka-python raises the partition's error
            return ErrorCode.for_code(exc.errno).name, None
    entry = result[KTopicPartition(topic, 0)]
    return ErrorCode.for_code(entry["error_code"]).name, entry["low_watermark"]


DELETERS = {
    "java": _delete_records_java,
    "confluent": _delete_records_confluent,
    "kafka-python": _delete_records_kafka_python,
}


@pytest.mark.parametrize("client", DELETERS)
def test_delete_records(client: str, broker: BrokerProcess) -> None:
    if client == "java":
        require_java()
    delete = DELETERS[client]
    topic = new_topic("delete-records")
    create_topic(broker, topic)
    produce(broker, topic, 10)
    assert delete(broker, topic, 4) == ("NONE", 4)
    assert offsets(broker, topic) == (4, 10)
    assert delete(broker, topic, 11)[0] == "OFFSET_OUT_OF_RANGE"
    assert delete(broker, topic, 2) == ("NONE", 4)  # never moves back
    assert delete(broker, topic, -1) == ("NONE", 10)  # -1: the high watermark
    assert offsets(broker, topic) == (10, 10)


# ---------------------------------------------------------------- DescribeLogDirs


def test_describe_log_dirs_java(broker: BrokerProcess) -> None:
    topic = new_topic("log-dirs")
    create_topic(broker, topic, partitions=2)
    produce(broker, topic, 5)
    result = JavaClient(broker.bootstrap, runtime=require_java()).describe_log_dirs()
    assert result["ok"], result
    (dirs,) = result["brokers"].values()
    ((path, desc),) = dirs.items()
    assert path.endswith("/data")
    assert desc["error"] is None
    assert desc["total_bytes"] > 0 and 0 <= desc["usable_bytes"] <= desc["total_bytes"]
    p0, p1 = desc["replicas"][f"{topic}:0"], desc["replicas"][f"{topic}:1"]
    assert p0["size"] > 5 * 200 and p1["size"] == 0
    assert (p0["offset_lag"], p0["is_future"]) == (0, False)


def test_describe_log_dirs_kafka_python(broker: BrokerProcess) -> None:
    topic = new_topic("log-dirs")
    create_topic(broker, topic)
    produce(broker, topic, 3)
    with kafka_python_admin(broker) as admin:
        (described,) = admin.describe_log_dirs(topic_partitions={topic: [0]})
    (log_dir,) = described["log_dirs"]
    assert log_dir["error_code"] == 0
    # As Kafka: the dir's other topics are listed, without partitions (none was asked for).
    (entry,) = [t for t in log_dir["topics"] if t["partitions"]]
    assert all(t["name"] != topic for t in log_dir["topics"] if t is not entry)
    (partition,) = entry["partitions"]
    assert entry["name"] == topic and partition["partition_size"] > 3 * 200
    assert partition["offset_lag"] == 0


# ---------------------------------------------------------------- OffsetDelete


def test_delete_group_offsets_java_and_confluent(broker: BrokerProcess) -> None:
    """The Java Admin commits and deletes; confluent-kafka lists what is left."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

    java = JavaClient(broker.bootstrap, runtime=require_java())
    topic, group = new_topic("group-offsets"), new_topic("group")
    create_topic(broker, topic, partitions=2)
    assert java.alter_group_offsets(group, {(topic, 0): 3, (topic, 1): 5})["ok"]
    deleted = java.delete_group_offsets(group, (topic, 0))
    assert deleted["ok"] and deleted["partitions"][f"{topic}:0"]["ok"], deleted

    admin = confluent_admin(broker)
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0), TopicPartition(topic, 1)])
    (future,) = admin.list_consumer_group_offsets([request]).values()
    listed = {tp.partition: tp.offset for tp in future.result(timeout=TIMEOUT_S).topic_partitions}
    assert listed == {0: -1001, 1: 5}  # -1001: OFFSET_INVALID, nothing committed

    unknown = java.delete_group_offsets(group, (new_topic("no-topic"), 0))
    assert not unknown["ok"]
    missing = java.delete_group_offsets(new_topic("no-group"), (topic, 1))
    assert missing["error_code"] == "GROUP_ID_NOT_FOUND", missing


def test_delete_group_offsets_kafka_python(broker: BrokerProcess) -> None:
    """An active consumer group keeps the offsets of a topic it subscribes to
    (GROUP_SUBSCRIBED_TO_TOPIC) and loses those of another topic."""
    subscribed, other, group = new_topic("subscribed"), new_topic("other"), new_topic("group")
    create_topic(broker, subscribed)
    create_topic(broker, other)
    produce(broker, subscribed, 2)
    # Committed while the group is empty (a simple commit), before the consumer joins.
    with kafka_python_admin(broker) as admin:
        retry_while_coordinator_loads(
            lambda: admin.alter_group_offsets(
                group, {KTopicPartition(other, 0): OffsetAndMetadata(1, "", -1)}
            )
        )
    consumer = KafkaConsumer(
        subscribed,
        bootstrap_servers=broker.bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    try:
        wait_until(
            lambda: bool(consumer.poll(timeout_ms=200)) or bool(consumer.assignment()), "an assignment"
        )
        consumer.commit({KTopicPartition(subscribed, 0): OffsetAndMetadata(2, "", -1)})
        with kafka_python_admin(broker) as admin:
            result = admin.delete_group_offsets(
                group, [KTopicPartition(subscribed, 0), KTopicPartition(other, 0)]
            )
            errors = {tp.topic: err.errno for tp, err in result.items()}
            assert errors == {
                subscribed: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC.code,
                other: ErrorCode.NONE.code,
            }
            left = admin.list_group_offsets({group: None})
    finally:
        consumer.close()
    remaining = {tp.topic for tp in left[group]}
    assert remaining == {subscribed}
