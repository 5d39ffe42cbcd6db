"""The controller: the registry of topics and the partition states it publishes.

Kafka's ZooKeeper-mode ``KafkaController`` owns every topic's metadata and every partition's
leadership and tells the brokers (LeaderAndIsr, UpdateMetadata). This controller keeps the
same roles for a cluster it controls alone (embedded mode, no ZooKeeper):

- The topic registry is its own: loaded once at start from the logs on disk
  (``load_from_logs``: topic ids from ``partition.metadata``, overrides from the overrides
  file) and from then on changed only here. The logs on disk are what this broker hosts.
- Every change is published to the registered ``ClusterMetadataListener``s (the broker's
  MetadataCache, ReplicaManager, group coordinator), in registration order, with the
  partitions' ``PartitionState``: here leader = this broker, leader epoch 0,
  ISR = replicas = [this broker]. ``startup`` publishes every topic once, before the
  broker serves; ``update_live_brokers`` the brokers (this one, as soon as its ports are bound).
- Validation follows Kafka's ``Topic.validate`` and ``ReplicationControlManager``.
- Creation, growth and deletion do their file work (directories, ``partition.metadata``,
  fsyncs, segment files, renames) off the event loop (``run_file_work``, the default
  executor), so a 2,000-partition topic stalls no other client; every change of the registry
  and every publication happens on the loop. While a name is being created or deleted it is
  *busy*: a second creation gets TOPIC_ALREADY_EXISTS, Metadata answers LEADER_NOT_AVAILABLE
  (as Kafka while its controller elects leaders), a deletion waits for the creation to end.
- Limits (KIP-578's ``max.partitions``, and Moldau's ``max.partitions.per.request``): the
  broker's partition total, created or being created, is kept here.
- Internal topics (``__consumer_offsets``, ``__transaction_state``) are the broker's:
  clients cannot create them; the group coordinator creates ``__consumer_offsets`` through
  ``ControllerTopicStore`` with the broker's ``offsets.topic.*`` configuration.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from coordinator.cluster_state import (
    INTERNAL_TOPICS,
    ClusterMetadataListener,
    LiveBroker,
    PartitionState,
    TopicMetadata,
)
from protocol.errors import ErrorCode, KafkaError
from storage.config_def import ConfigError
from storage.log_config import check_topic_values, parse_topic_overrides
from storage.log_creation import build_logs, discard_logs, rename_for_deletion, split_plan

if TYPE_CHECKING:
    from storage.log_creation import LogCreationPlan
    from storage.log_manager import LogManager
    from storage.partition_log import PartitionLog

T = TypeVar("T")
FileWorkRunner = Callable[[Callable[[], T]], Awaitable[T]]

__all__ = [
    "INTERNAL_TOPICS",
    "Controller",
    "ControllerTopicStore",
    "TopicMetadata",
    "unify_collision_chars",
    "validate_new_topic",
    "validate_topic_name",
]

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 249  # Topic.MAX_NAME_LENGTH
BUILD_PART = 100  # partitions one executor job creates
BUILD_THREADS = 2  # executor jobs of one creation at once
LEADER_EPOCH = 0  # embedded mode: this broker leads every partition, from epoch 0
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")


def quoted_name(name: str, limit: int = 1024) -> str:
    """A client's name as an error message quotes it: cut (with "...") past ``limit``
    characters, so the message always fits a Kafka string (a name may be 32767 bytes)."""
    return name if len(name) <= limit else name[:limit] + "..."


def validate_topic_name(name: str | None) -> None:
    """Kafka's ``Topic.validate``: raises INVALID_TOPIC_EXCEPTION."""
    if not name:
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name cannot be "." or ".."')
    if len(name) > MAX_NAME_LENGTH:
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, topic name: {quoted_name(name)}",
        )
    if not _LEGAL.match(name):
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'",
        )


def unify_collision_chars(name: str) -> str:
    """'.' and '_' collide in metric names (Topic.unifyCollisionChars)."""
    return name.replace(".", "_")


def check_no_collision(
    name: str, existing_topics: Collection[str], collides_with: Callable[[str], str | None] | None = None
) -> None:
    """INVALID_TOPIC_EXCEPTION if another topic's name equals ``name`` once '.' and '_' are
    unified (Kafka's ``Topic.hasCollision``); ``collides_with`` (the existing topic with a given
    unified name) replaces the scan of ``existing_topics`` where the caller keeps an index."""
    unified = unify_collision_chars(name)
    if collides_with is not None:
        other = collides_with(unified)
    else:
        other = next((t for t in existing_topics if t != name and unify_collision_chars(t) == unified), None)
    if other is not None and other != name:
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION, f"Topic '{name}' collides with existing topic: {other}"
        )


def _too_many_replicas(replication: int, brokers: int) -> str:
    return (
        f"Unable to replicate the partition {replication} time(s): "
        f"The target replication factor of {replication} cannot be reached because only "
        f"{brokers} broker(s) are registered."
    )


def validate_new_topic(
    name: str,
    num_partitions: int,
    replication_factor: int,
    configs: Mapping[str, str | None],
    *,
    existing_topics: Collection[str],
    broker_ids: Collection[int],
    default_partitions: int,
    default_replication: int,
    assignments: Sequence[tuple[int, Sequence[int]]] = (),
    allow_internal: bool = False,
    too_many_replicas: Callable[[int, int], str] = _too_many_replicas,
    check_free: Callable[[str], None] | None = None,
    collides_with: Callable[[str], str | None] | None = None,
    assignment_brokers_registered: bool = True,
) -> tuple[int, int, dict[str, Any]]:
    """Validate a new topic (CreateTopics entry, auto-creation); returns (partitions,
    replication, parsed overrides). Shared by the embedded controller and ZooKeeper mode's
    AdminZkClient. ``existing_topics`` includes topics being deleted (Kafka's
    ``validateTopicCreate`` refuses those as existing). ``check_free`` (raises when the name
    is taken) and ``collides_with`` (the existing topic whose '.'/'_'-unified name is the
    given one) replace the scans of ``existing_topics`` where the caller keeps indexes.
    ``assignment_brokers_registered=False`` (ZooKeeper mode) lets a manual assignment name
    brokers that are not registered, and more of them than are: ZkAdminManager.createTopics
    does not check them ("this follows the existing logic in TopicCommand"); the controller
    elects among the live ones."""
    if name in INTERNAL_TOPICS and not allow_internal:
        # The broker creates its internal topics itself, with its own configuration
        # (ControllerApis.createTopics refuses __cluster_metadata the same way).
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Creation of internal topic {name} is prohibited.")
    validate_topic_name(name)
    if check_free is not None:
        check_free(name)
    elif name in existing_topics:
        raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
    check_no_collision(name, existing_topics, collides_with)
    if assignments:
        partitions, replication = _check_assignments(
            num_partitions,
            replication_factor,
            assignments,
            broker_ids if assignment_brokers_registered else None,
        )
    else:
        partitions = default_partitions if num_partitions == -1 else num_partitions
        replication = default_replication if replication_factor == -1 else replication_factor
    if partitions <= 0:
        raise KafkaError(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
    if replication <= 0:
        raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.")
    if replication > len(broker_ids) and (assignment_brokers_registered or not assignments):
        raise KafkaError(
            ErrorCode.INVALID_REPLICATION_FACTOR, too_many_replicas(replication, len(broker_ids))
        )
    try:
        overrides = parse_topic_overrides(configs)
        check_topic_values(overrides)
    except ConfigError as exc:
        raise KafkaError(ErrorCode.INVALID_CONFIG, str(exc)) from None
    return partitions, replication, overrides


def _check_assignments(
    num_partitions: int,
    replication_factor: int,
    assignments: Sequence[tuple[int, Sequence[int]]],
    broker_ids: Collection[int] | None,
) -> tuple[int, int]:
    """(partitions, replication) of a manual assignment; ``broker_ids`` None: any broker id."""
    # ReplicationControlManager.createTopic: explicit assignments exclude counts.
    if num_partitions != -1 or replication_factor != -1:
        raise KafkaError(
            ErrorCode.INVALID_REQUEST,
            "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.",
        )
    indexes = sorted(p for p, _ in assignments)
    if indexes != list(range(len(indexes))):
        raise KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            "Partitions should be a consecutive 0-based integer sequence",
        )
    sizes = {len(replicas) for _, replicas in assignments}
    if len(sizes) != 1 or 0 in sizes:
        raise KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT, "All partitions should have the same number of replicas"
        )
    for p, replicas in assignments:
        if len(set(replicas)) != len(replicas):
            raise KafkaError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Duplicate brokers in the assignment of partition {p}",
            )
        for b in replicas:
            if broker_ids is not None and b not in broker_ids:
                raise KafkaError(
                    ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                    f"The manual partition assignment includes broker {b}, but no such broker is registered.",
                )
    return len(indexes), sizes.pop()


async def run_in_default_executor(work: Callable[[], T]) -> T:
    """The controller's file work: in the loop's default executor."""
    return await asyncio.get_running_loop().run_in_executor(None, work)


class Controller:
    """Topic administration and partition leadership for the cluster this broker controls."""

    def __init__(
        self,
        log_manager: LogManager,
        broker_id: int,
        *,
        time_ms: Callable[[], int],
        run_file_work: FileWorkRunner = run_in_default_executor,
    ) -> None:
        self.log_manager = log_manager
        self.broker_id = broker_id
        self.time_ms = time_ms
        # How file work leaves the loop (tests slow it down to observe a creation under way).
        self.run_file_work = run_file_work
        self._topics: dict[str, TopicMetadata] = {}
        # Names being created ("create") or deleted ("delete"), with the task doing it.
        self._busy: dict[str, tuple[str, asyncio.Future[Any]]] = {}
        # unify_collision_chars(name) -> name, for the registry and the names being created:
        # O(1) collision checks (a Metadata request may auto-create 100,000 names).
        self._unified: dict[str, str] = {}
        self._partition_total = 0  # in the registry and being created (max.partitions)
        self._topics_by_id: dict[uuid.UUID, TopicMetadata] = {}
        self._states: dict[tuple[str, int], PartitionState] = {}
        self._brokers: dict[int, LiveBroker] = {}
        self._listeners: list[ClusterMetadataListener] = []

    # ------------------------------------------------------------------ lifecycle

    def load_from_logs(self) -> None:
        """Embedded mode: the registry is what the log dirs hold (read once, at start)."""
        for name, info in self.log_manager.topics().items():
            # Logs whose partition.metadata a crash lost take the topic's id (a sibling
            # partition's, else a new one): embedded mode has no controller to ask.
            topic_id = info.topic_id or uuid.uuid4()
            self.log_manager.assign_missing_topic_ids(name, topic_id)
            topic = TopicMetadata(name, topic_id, info.partitions, dict(info.overrides))
            self._add(topic)
            self._partition_total += info.partitions
            for p in range(info.partitions):
                self._states[(name, p)] = self._leader_state(name, p)

    def register_listener(self, listener: ClusterMetadataListener) -> None:
        self._listeners.append(listener)

    def startup(self) -> None:
        """Publish every topic with its partition states to every listener (before serving)."""
        states = [self._states[k] for k in sorted(self._states)]
        topics = {name: _copy(t) for name, t in self._topics.items()}
        for listener in self._listeners:
            listener.on_topics_changed(topics, states)

    def update_live_brokers(self, brokers: Sequence[LiveBroker]) -> None:
        """The complete set of live brokers changed (this broker's endpoints are known once
        its listeners are bound; ZooKeeper's ``/brokers/ids`` later); publish it."""
        self._brokers = {b.broker_id: b for b in brokers}
        for listener in self._listeners:
            listener.on_brokers_changed(list(self._brokers.values()))

    async def finish_changes(self) -> None:
        """Wait for the creations and deletions under way (at shutdown, before the logs are
        closed: a creation cut short would leave a topic with some of its partitions)."""
        while self._busy:
            await asyncio.wait([future for _, future in self._busy.values()])

    # ------------------------------------------------------------------ queries

    def topics(self) -> dict[str, TopicMetadata]:
        return dict(self._topics)

    def topic(self, name: str) -> TopicMetadata | None:
        return self._topics.get(name)

    def topic_by_id(self, topic_id: uuid.UUID) -> TopicMetadata | None:
        return self._topics_by_id.get(topic_id)

    def partition_state(self, topic: str, partition: int) -> PartitionState | None:
        return self._states.get((topic, partition))

    @property
    def live_brokers(self) -> list[LiveBroker]:
        return list(self._brokers.values())

    def is_busy(self, name: str) -> bool:
        """True while ``name`` is being created or deleted."""
        return name in self._busy

    @property
    def partition_total(self) -> int:
        """Partitions hosted and being created (what ``max.partitions`` limits)."""
        return self._partition_total

    # ------------------------------------------------------------------ changes

    def check_create(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        configs: Mapping[str, str | None],
        *,
        default_partitions: int,
        default_replication: int,
        assignments: Sequence[tuple[int, Sequence[int]]] = (),
        max_partitions: int | None = None,
    ) -> tuple[int, int, dict[str, Any]]:
        """Validate a CreateTopics entry; returns (partitions, replication, parsed overrides)."""
        partitions, replication, overrides = validate_new_topic(
            name,
            num_partitions,
            replication_factor,
            configs,
            existing_topics=self._topics,
            broker_ids=self._brokers.keys(),
            default_partitions=default_partitions,
            default_replication=default_replication,
            assignments=assignments,
            check_free=self._check_free,
            collides_with=self._unified.get,
        )
        if max_partitions is not None:
            self.check_partition_limit(partitions, max_partitions)
        return partitions, replication, overrides

    def check_partition_limit(self, more: int, max_partitions: int) -> None:
        """KIP-578's ``max.partitions``: POLICY_VIOLATION past the broker's total."""
        if self._partition_total + more > max_partitions:
            raise KafkaError(
                ErrorCode.POLICY_VIOLATION,
                f"Adding {more} partition(s) would exceed max.partitions ({max_partitions}): "
                f"{self._partition_total} partition(s) exist or are being created.",
            )

    def _check_free(self, name: str) -> None:
        if name in self._topics:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        busy = self._busy.get(name)
        if busy is not None:
            if busy[0] == "delete":
                # ZooKeeper-mode Kafka's TopicExistsException while /admin/delete_topics/<name> exists.
                raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' is marked for deletion.")
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")

    def create_topic(
        self,
        name: str,
        partitions: int,
        overrides: Mapping[str, Any],
        *,
        topic_id: uuid.UUID | None = None,
    ) -> TopicMetadata:
        """Create a topic (already validated) at once, on the loop, and publish it: for the
        group coordinator, which creates ``__consumer_offsets`` one partition per loop turn.
        Clients' creations go through ``begin_create_topic``."""
        self._check_free(name)
        topic = TopicMetadata(name, topic_id or uuid.uuid4(), partitions, dict(overrides))
        self.log_manager.create_topic(name, partitions, topic.topic_id, overrides)
        self._partition_total += partitions
        self._commit_topic(topic)
        return topic

    def begin_create_topic(
        self,
        name: str,
        partitions: int,
        overrides: Mapping[str, Any],
        *,
        topic_id: uuid.UUID | None = None,
    ) -> asyncio.Future[TopicMetadata]:
        """Start creating a topic (already validated): the name is taken and its partitions
        counted now; the files are made off the loop; the topic is registered and published
        on the loop when they are. Returns the creation's future (the topic)."""
        self._check_free(name)
        topic = TopicMetadata(name, topic_id or uuid.uuid4(), partitions, dict(overrides))
        plan = self.log_manager.plan_topic(name, partitions, topic.topic_id, overrides)
        plan.leader_epoch = LEADER_EPOCH
        self._partition_total += partitions
        self._unified[unify_collision_chars(name)] = name
        task = asyncio.get_running_loop().create_task(self._create(topic, plan), name=f"create-topic-{name}")
        self._busy[name] = ("create", task)
        task.add_done_callback(_log_failure)
        return task

    async def create_topic_async(
        self, name: str, partitions: int, overrides: Mapping[str, Any], *, topic_id: uuid.UUID | None = None
    ) -> TopicMetadata:
        return await self.begin_create_topic(name, partitions, overrides, topic_id=topic_id)

    async def _create(self, topic: TopicMetadata, plan: LogCreationPlan) -> TopicMetadata:
        name = topic.name
        try:
            logs = await self._build(plan)
        except BaseException:
            self._partition_total -= topic.partitions
            self._unified.pop(unify_collision_chars(name), None)
            self._busy.pop(name, None)
            raise
        try:
            self.log_manager.commit_logs(plan, logs)
        except BaseException:
            self._partition_total -= topic.partitions
            self._unified.pop(unify_collision_chars(name), None)
            self._busy.pop(name, None)
            await self.run_file_work(lambda: discard_logs(logs, plan.dirs))
            raise
        self._busy.pop(name, None)
        self._commit_topic(topic)
        return topic

    async def _build(self, plan: LogCreationPlan) -> list[PartitionLog]:
        """``build_logs`` in parts of ``BUILD_PART`` partitions, in parallel executor threads
        (the work is mostly fsyncs); all undone if one part fails."""
        parts = split_plan(plan, BUILD_PART)
        # Few threads at once: more would not speed the fsyncs up but would take the GIL
        # from the loop more often.
        slots = asyncio.Semaphore(BUILD_THREADS)

        async def build(part: LogCreationPlan) -> list[PartitionLog]:
            async with slots:
                return await self.run_file_work(lambda: build_logs(part))

        results = await asyncio.gather(*(build(part) for part in parts), return_exceptions=True)
        built = [plog for r in results if isinstance(r, list) for plog in r]
        failure = next((r for r in results if isinstance(r, BaseException)), None)
        if failure is not None:
            await self.run_file_work(lambda: discard_logs(built, plan.dirs))
            raise self.log_manager.creation_error(plan, failure)
        return built

    def _commit_topic(self, topic: TopicMetadata) -> None:
        self._add(topic)
        log.info("created topic %s (%d partitions, id %s)", topic.name, topic.partitions, topic.topic_id)
        self._publish_partitions(topic, range(topic.partitions))

    def add_partitions(self, name: str, new_total: int) -> list[PartitionLog]:
        """Grow a topic to ``new_total`` partitions at once and publish the new ones (the group
        coordinator's path, one partition at a time; clients' go through ``add_partitions_async``)."""
        topic = self._growable(name, new_total)
        old_total = topic.partitions
        logs = self.log_manager.add_partitions(name, new_total)
        self._partition_total += new_total - old_total
        topic.partitions = new_total
        self._publish_partitions(topic, range(old_total, new_total))
        return logs

    async def add_partitions_async(self, name: str, new_total: int) -> list[PartitionLog]:
        """``add_partitions`` with the file work off the loop; the name is busy meanwhile."""
        topic = self._growable(name, new_total)
        old_total = topic.partitions
        plan = self.log_manager.plan_partitions(name, new_total)
        plan.leader_epoch = LEADER_EPOCH
        self._partition_total += new_total - old_total
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._busy[name] = ("create", done)
        try:
            logs = await self._build(plan)
            self.log_manager.commit_logs(plan, logs)
        except BaseException:
            self._partition_total -= new_total - old_total
            raise
        finally:
            self._busy.pop(name, None)
            done.set_result(None)
        topic.partitions = new_total
        self._publish_partitions(topic, range(old_total, new_total))
        return logs

    def _growable(self, name: str, new_total: int) -> TopicMetadata:
        topic = self._topics.get(name)
        if topic is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist.")
        if name in self._busy:
            raise KafkaError(ErrorCode.REASSIGNMENT_IN_PROGRESS, f"Topic '{name}' is being changed.")
        if new_total == topic.partitions:  # ZkAdminManager.createPartitions
            raise KafkaError(
                ErrorCode.INVALID_PARTITIONS, f"Topic already has {topic.partitions} partitions."
            )
        if new_total < topic.partitions:
            raise KafkaError(
                ErrorCode.INVALID_PARTITIONS,
                f"Topic currently has {topic.partitions} partitions, which is higher than the requested {new_total}.",
            )
        return topic

    def delete_topic(self, name: str) -> TopicMetadata:
        """Delete a topic and its partitions at once, on the calling thread; listeners stop
        serving it. Clients' deletions go through ``delete_topic_async``."""
        topic = self._unregister(name)
        self.log_manager.delete_topic(name)
        self._announce_deleted(topic)
        return topic

    async def delete_topic_async(self, name: str) -> TopicMetadata:
        """Delete a topic: unregistered and unpublished on the loop, its dirs renamed off the
        loop (then removed by the LogManager's background task). A deletion of a name being
        created waits for the creation (Kafka's creation is atomic: the topic then exists)."""
        busy = self._busy.get(name)
        if busy is not None and busy[0] == "create":
            await asyncio.wait([busy[1]])
        topic = self._unregister(name)
        logs = self.log_manager.detach_topic(name)
        self._announce_deleted(topic)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._busy[name] = ("delete", done)
        try:
            renamed = await self.run_file_work(lambda: rename_for_deletion(logs))
            self.log_manager.dirs_renamed_for_deletion(renamed)
        finally:
            self._busy.pop(name, None)
            done.set_result(None)
        return topic

    def _unregister(self, name: str) -> TopicMetadata:
        topic = self._topics.get(name)
        if topic is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic.")
        if name in self._busy:
            # A growth under way (a deletion under way has already unregistered the name).
            raise KafkaError(ErrorCode.REASSIGNMENT_IN_PROGRESS, f"Topic '{name}' is being changed.")
        del self._topics[name]
        self._topics_by_id.pop(topic.topic_id, None)
        self._unified.pop(unify_collision_chars(name), None)
        self._partition_total -= topic.partitions
        for p in range(topic.partitions):
            self._states.pop((name, p), None)
        return topic

    def _announce_deleted(self, topic: TopicMetadata) -> None:
        log.info("deleted topic %s", topic.name)
        for listener in self._listeners:
            listener.on_topic_deleted(topic)

    # ------------------------------------------------------------------ internals

    def _add(self, topic: TopicMetadata) -> None:
        self._topics[topic.name] = topic
        self._topics_by_id[topic.topic_id] = topic
        self._unified[unify_collision_chars(topic.name)] = topic.name

    def _leader_state(self, topic: str, partition: int) -> PartitionState:
        # Embedded mode: this broker leads every partition, alone in its replicas and ISR.
        me = (self.broker_id,)
        return PartitionState(
            topic, partition, leader=self.broker_id, leader_epoch=LEADER_EPOCH, isr=me, replicas=me
        )

    def _publish_partitions(self, topic: TopicMetadata, partitions: range) -> None:
        states = []
        for p in partitions:
            state = self._leader_state(topic.name, p)
            self._states[(topic.name, p)] = state
            states.append(state)
        snapshot = {topic.name: _copy(topic)}
        for listener in self._listeners:
            listener.on_topics_changed(snapshot, states)


def _log_failure(task: asyncio.Future[Any]) -> None:
    """A creation's error is its requester's answer; one nobody awaits (auto-create) is logged."""
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None and not isinstance(exc, KafkaError):
        log.error("topic creation failed: %s", exc, exc_info=exc)


def _copy(topic: TopicMetadata) -> TopicMetadata:
    """What listeners get: their own copy, unchanged by the registry's later changes."""
    return TopicMetadata(topic.name, topic.topic_id, topic.partitions, dict(topic.overrides))


class ControllerTopicStore:
    """The log manager as the group coordinator's ``OffsetsTopic`` uses it, with topic
    creation and growth going through the controller (Kafka's coordinators ask the
    controller too, via ``AutoTopicCreationManager``), so the internal topic is in the
    registry and published like any other."""

    def __init__(self, log_manager: LogManager, controller: Controller) -> None:
        self._log_manager = log_manager
        self._controller = controller

    def get_log(self, topic: str, partition: int) -> PartitionLog | None:
        return self._log_manager.get_log(topic, partition)

    def topics(self) -> dict[str, TopicMetadata]:
        return self._controller.topics()

    def create_topic(
        self, name: str, partitions: int, topic_id: uuid.UUID, overrides: Mapping[str, Any]
    ) -> list[PartitionLog]:
        self._controller.create_topic(name, partitions, overrides, topic_id=topic_id)
        logs = [self._log_manager.get_log(name, p) for p in range(partitions)]
        return [plog for plog in logs if plog is not None]

    def add_partitions(self, name: str, new_total: int) -> list[PartitionLog]:
        return self._controller.add_partitions(name, new_total)
