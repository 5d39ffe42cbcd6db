"""How the topic admin requests reach the cluster: ``TopicAdmin``, embedded or ZooKeeper mode.

CreateTopics, DeleteTopics, CreatePartitions and the Metadata auto-creation ask the same
questions in both modes; the answers come from different places:

- ``EmbeddedTopicAdmin``: a lone broker is its own controller (``coordinator.controller``):
  topics are created and deleted on this broker's log dirs and published at once.
- ``ZkTopicAdmin`` (ZooKeeper mode, Kafka 3.9's ``ZkAdminManager``): creations, growth and
  deletion marks are znode writes (``AdminZkClient``); the active controller then elects
  leaders and tells every broker (LeaderAndIsr, UpdateMetadata), and the request waits for
  the result in this broker's MetadataCache (Kafka's ``DelayedCreatePartitions`` /
  ``DelayedDeleteTopics``: REQUEST_TIMED_OUT after the request's ``timeout_ms``; a timeout
  of 0 or less answers at once). CreateTopics, DeleteTopics and CreatePartitions answer
  NOT_CONTROLLER on a broker that is not the active controller, as ZooKeeper-mode Kafka
  does without forwarding (clients find the controller in Metadata and retry); the
  Metadata auto-creation writes the znodes from any broker.

Topic config changes (AlterConfigs, IncrementalAlterConfigs: ``alter_topic_config``) replace
the topic's override set: embedded, in the overrides file and on the logs at once; in
ZooKeeper mode any broker writes ``/config/topics/<t>`` and a change notification
(``AdminZkClient.changeTopicConfig``, as ZooKeeper-mode Kafka's ``ZkAdminManager`` does on
whichever broker gets the request), and every broker's config change listener
(``coordinator.zk_config_manager``) applies it to the logs it hosts.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from coordinator.cluster_state import NO_LEADER, LiveBroker, PartitionState, TopicMetadata
from coordinator.controller import Controller, check_no_collision
from coordinator.zk_admin import AdminZkClient, TopicMarkedForDeletion, check_new_assignments
from protocol.errors import ErrorCode, KafkaError
from storage.config_def import ConfigError
from storage.log_config import check_topic_values, parse_stored_topic_overrides, parse_topic_overrides

log = logging.getLogger(__name__)

NOT_CONTROLLER_MESSAGE = "This is not the correct controller for this cluster."
AUTO_CREATE_PENDING_S = 30.0  # how long a name auto-created here counts as busy without metadata


@dataclass(frozen=True)
class TopicDefaults:
    """The broker's defaults for new topics (``num.partitions``, ``default.replication.factor``,
    KIP-578's ``max.partitions``)."""

    num_partitions: int
    replication_factor: int
    max_partitions: int


class RequestTimeout:
    """One ``timeout_ms`` for every topic of an admin request (Kafka waits for all of them in
    one DelayedCreatePartitions / DelayedDeleteTopics): each topic, handled in turn, waits for
    what is left of it. A timeout <= 0 stays as given (answered REQUEST_TIMED_OUT at once);
    one spent meanwhile still lets the next topic be checked once (1 ms)."""

    def __init__(self, timeout_ms: int, monotonic: Callable[[], float]) -> None:
        self._timeout_ms = timeout_ms
        self._monotonic = monotonic
        self._deadline = monotonic() + timeout_ms / 1000

    def remaining_ms(self) -> int:
        if self._timeout_ms <= 0:
            return self._timeout_ms
        return max(1, math.ceil((self._deadline - self._monotonic()) * 1000))


class TopicCreation(NamedTuple):
    """A CreateTopics entry accepted: what it will be, and (unless validate-only) its completion."""

    partitions: int
    replication: int
    overrides: dict[str, Any]
    done: Awaitable[uuid.UUID] | None  # the topic id once created; None when validate-only


class TopicAdmin(Protocol):
    """The admin operations of the handlers; each raises KafkaError with Kafka's code."""

    @property
    def is_controller(self) -> bool:
        """Whether this broker may administer topics: ZooKeeper-mode Kafka's CreateTopics,
        DeleteTopics and CreatePartitions answer NOT_CONTROLLER elsewhere before anything else
        (authorization included)."""
        ...

    def is_busy(self, name: str) -> bool:
        """Being created or deleted: Metadata answers LEADER_NOT_AVAILABLE for it."""
        ...

    def topic_name_by_id(self, topic_id: uuid.UUID) -> str | None: ...

    async def topic_overrides(self, names: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The parsed config overrides of existing topics (DescribeConfigs)."""
        ...

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        configs: Mapping[str, str | None],
        *,
        assignments: Sequence[tuple[int, Sequence[int]]],
        validate_only: bool,
        timeout_ms: int,
    ) -> TopicCreation: ...

    def begin_auto_create(self, name: str, budget: int) -> tuple[ErrorCode, int]:
        """Start creating a missing topic with the defaults for a Metadata request: (the
        topic's error to answer, partitions taken from ``budget``)."""
        ...

    async def delete_topic(self, name: str, *, timeout_ms: int) -> uuid.UUID: ...

    def partition_count(self, name: str) -> int | None:
        """An existing topic's partition count as this broker knows it (None: unknown or
        being created): CreatePartitions' estimate of what a request adds."""
        ...

    async def create_partitions(
        self,
        name: str,
        new_total: int,
        assignments: Sequence[Sequence[int]] | None,
        *,
        validate_only: bool,
        timeout_ms: int,
        check_adding: Callable[[int], None] | None = None,
    ) -> None:
        """Grow ``name`` to ``new_total`` partitions. ``check_adding`` gets the number of new
        partitions once the count is checked and before any assignment is checked or built;
        it raises KafkaError to refuse (``max.partitions.per.request``)."""
        ...

    async def alter_topic_config(self, name: str, configs: Mapping[str, str], *, validate_only: bool) -> None:
        """Replace the config overrides of an existing topic with ``configs`` (string values),
        validated as CreateTopics validates them: INVALID_CONFIG, UNKNOWN_TOPIC_OR_PARTITION."""
        ...


def _check_topic_configs(configs: Mapping[str, str]) -> dict[str, Any]:
    """``LogConfig.validate`` of a whole override set (INVALID_CONFIG with the reason)."""
    try:
        overrides = parse_topic_overrides(configs)
        check_topic_values(overrides)
        return overrides
    except ConfigError as exc:
        raise KafkaError(ErrorCode.INVALID_CONFIG, str(exc)) from None


def _check_altered_topic_configs(name: str, configs: Mapping[str, str]) -> dict[str, Any]:
    """``_check_topic_configs`` for AlterConfigs / IncrementalAlterConfigs: a bad value's
    message as ZooKeeper-mode Kafka's ``ZkAdminManager`` words it (the ConfigException's after
    "Invalid config value for resource ConfigResource(...)"); an unknown name or a conflict
    (InvalidConfigurationException there) keeps its own message."""
    try:
        return _check_topic_configs(configs)
    except KafkaError as exc:
        message = exc.message or ""
        if message.startswith("Invalid value "):
            message = (
                f"Invalid config value for resource ConfigResource(type=TOPIC, name='{name}'): {message}"
            )
        raise KafkaError(exc.error, message) from None


def _no_such_topic(name: str) -> KafkaError:
    return KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")


# ---------------------------------------------------------------------- embedded mode


class EmbeddedTopicAdmin:
    """A lone broker: its embedded controller creates and deletes on the local log dirs."""

    def __init__(self, controller: Controller, defaults: TopicDefaults) -> None:
        self.controller = controller
        self.defaults = defaults

    @property
    def is_controller(self) -> bool:
        return True  # a lone broker is its own controller

    def is_busy(self, name: str) -> bool:
        return self.controller.is_busy(name)

    def topic_name_by_id(self, topic_id: uuid.UUID) -> str | None:
        found = self.controller.topic_by_id(topic_id)
        return found.name if found is not None else None

    async def topic_overrides(self, names: Sequence[str]) -> dict[str, dict[str, Any]]:
        out = {}
        for name in names:
            topic = self.controller.topic(name)
            if topic is not None:
                out[name] = dict(topic.overrides)
        return out

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        configs: Mapping[str, str | None],
        *,
        assignments: Sequence[tuple[int, Sequence[int]]],
        validate_only: bool,
        timeout_ms: int,
    ) -> TopicCreation:
        # Synchronous up to the returned creation: entries of one request are checked (and
        # counted against max.partitions) in order.
        d = self.defaults
        partitions, replication, overrides = self.controller.check_create(
            name,
            num_partitions,
            replication_factor,
            configs,
            default_partitions=d.num_partitions,
            default_replication=d.replication_factor,
            assignments=assignments,
            max_partitions=d.max_partitions,
        )
        done = None
        if not validate_only:
            creation = self.controller.begin_create_topic(name, partitions, overrides)
            done = _topic_id_of(creation)
        return TopicCreation(partitions, replication, overrides, done)

    def begin_auto_create(self, name: str, budget: int) -> tuple[ErrorCode, int]:
        if self.controller.is_busy(name):
            return ErrorCode.LEADER_NOT_AVAILABLE, 0
        d = self.defaults
        partitions, _, overrides = self.controller.check_create(
            name,
            -1,
            -1,
            {},
            default_partitions=d.num_partitions,
            default_replication=d.replication_factor,
            max_partitions=d.max_partitions,
        )
        if partitions > budget:
            # More than max.partitions.per.request in one request: the rest are created
            # when the client asks again (it retries on LEADER_NOT_AVAILABLE).
            return ErrorCode.LEADER_NOT_AVAILABLE, 0
        self.controller.begin_create_topic(name, partitions, overrides)
        return ErrorCode.LEADER_NOT_AVAILABLE, partitions

    async def delete_topic(self, name: str, *, timeout_ms: int) -> uuid.UUID:
        return (await self.controller.delete_topic_async(name)).topic_id

    def partition_count(self, name: str) -> int | None:
        topic = self.controller.topic(name)
        return None if topic is None or self.controller.is_busy(name) else topic.partitions

    async def create_partitions(
        self,
        name: str,
        new_total: int,
        assignments: Sequence[Sequence[int]] | None,
        *,
        validate_only: bool,
        timeout_ms: int,
        check_adding: Callable[[int], None] | None = None,
    ) -> None:
        topic = self.controller.topic(name)
        if topic is None or self.controller.is_busy(name):
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
        if new_total == topic.partitions:  # ZkAdminManager.createPartitions
            raise KafkaError(
                ErrorCode.INVALID_PARTITIONS, f"Topic already has {topic.partitions} partitions."
            )
        if new_total < topic.partitions:
            raise KafkaError(
                ErrorCode.INVALID_PARTITIONS,
                f"Topic currently has {topic.partitions} partitions, which is higher than the "
                f"requested {new_total}.",
            )
        adding = new_total - topic.partitions
        if check_adding is not None:
            check_adding(adding)  # before the assignment, whose size grows with it
        if assignments is not None:
            brokers = {b.broker_id for b in self.controller.live_brokers}
            check_new_assignments(topic.partitions, adding, 1, assignments, sorted(brokers))
        self.controller.check_partition_limit(adding, self.defaults.max_partitions)
        if not validate_only:
            await self.controller.add_partitions_async(name, new_total)

    async def alter_topic_config(self, name: str, configs: Mapping[str, str], *, validate_only: bool) -> None:
        topic = self.controller.topic(name)
        if topic is None or self.controller.is_busy(name):
            raise _no_such_topic(name)
        overrides = _check_altered_topic_configs(name, configs)
        if validate_only:
            return
        # The overrides file and every log of the topic, then the controller's registry
        # (DescribeConfigs and CreateTopics' answers read it).
        self.controller.log_manager.set_topic_overrides(name, overrides)
        topic.overrides = dict(overrides)


async def _topic_id_of(creation: Awaitable[TopicMetadata]) -> uuid.UUID:
    return (await asyncio.shield(creation)).topic_id


# ---------------------------------------------------------------------- ZooKeeper mode


class ClusterView(Protocol):
    """What ZooKeeper mode reads of the broker's MetadataCache."""

    def get_topic(self, name: str) -> TopicMetadata | None: ...

    def get_topic_by_id(self, topic_id: uuid.UUID) -> TopicMetadata | None: ...

    def topic_colliding_with(self, unified_name: str) -> str | None: ...

    def partition_states(self, topic: str) -> list[PartitionState]: ...

    def get_alive_brokers(self) -> list[LiveBroker]: ...

    async def wait_until(self, condition: Callable[[], bool], timeout_s: float) -> bool:
        """True once ``condition()`` holds after a metadata update (or now); False at the timeout."""
        ...


class ControllerState(Protocol):
    @property
    def active(self) -> bool: ...


class ZkTopicAdmin:
    """ZooKeeper mode: znode writes through ``AdminZkClient``, results awaited in the cache."""

    def __init__(
        self,
        admin: AdminZkClient,
        controller: ControllerState,
        cluster: ClusterView,
        defaults: TopicDefaults,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.admin = admin
        self.controller = controller
        self.cluster = cluster
        self.defaults = defaults
        self.monotonic = monotonic
        # Names this broker auto-created, until the cluster view has them (deadline).
        self._auto_created: dict[str, float] = {}
        self._tasks: set[asyncio.Task] = set()

    @property
    def is_controller(self) -> bool:
        return self.controller.active

    def _check_controller(self) -> None:
        if not self.is_controller:
            raise KafkaError(ErrorCode.NOT_CONTROLLER, NOT_CONTROLLER_MESSAGE)

    def is_busy(self, name: str) -> bool:
        deadline = self._auto_created.get(name)
        if deadline is None:
            return False
        if self.cluster.get_topic(name) is not None or self.monotonic() > deadline:
            del self._auto_created[name]
            return False
        return True

    def topic_name_by_id(self, topic_id: uuid.UUID) -> str | None:
        found = self.cluster.get_topic_by_id(topic_id)
        return found.name if found is not None else None

    async def topic_overrides(self, names: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``/config/topics/<t>`` (ZkAdminManager.describeConfigs reads ZooKeeper), one
        pipelined read off the loop."""
        if not names:
            return {}
        raw = await asyncio.get_running_loop().run_in_executor(
            None, self.admin.zk.read_topic_configs, list(names)
        )
        return {name: parse_stored_topic_overrides(name, raw.get(name, {})) for name in names}

    def _has_leaders(self, name: str, partitions: int, topic_id: uuid.UUID | None = None) -> bool:
        """``DelayedCreatePartitions``: every partition is known with a leader."""
        topic = self.cluster.get_topic(name)
        if topic is None or (topic_id is not None and topic.topic_id != topic_id):
            return False
        states = self.cluster.partition_states(name)
        return len(states) >= partitions and all(s.leader != NO_LEADER for s in states)

    async def _await(self, condition: Callable[[], bool], timeout_ms: int, what: str) -> None:
        if timeout_ms <= 0:
            # ZkAdminManager: with no time to wait, an accepted change (its znodes written)
            # answers REQUEST_TIMED_OUT.
            raise KafkaError(
                ErrorCode.REQUEST_TIMED_OUT, f"{what} was started; the request's timeout was {timeout_ms} ms."
            )
        if not await self.cluster.wait_until(condition, timeout_ms / 1000):
            raise KafkaError(ErrorCode.REQUEST_TIMED_OUT, f"{what} did not complete within {timeout_ms} ms.")

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        configs: Mapping[str, str | None],
        *,
        assignments: Sequence[tuple[int, Sequence[int]]],
        validate_only: bool,
        timeout_ms: int,
    ) -> TopicCreation:
        self._check_controller()
        d = self.defaults
        topic_id = uuid.uuid4()
        assignment = await self.admin.create_topic(
            name,
            num_partitions,
            replication_factor,
            configs,
            default_partitions=d.num_partitions,
            default_replication=d.replication_factor,
            assignments=assignments,
            validate_only=validate_only,
            topic_id=topic_id,
        )
        overrides = parse_topic_overrides({k: v for k, v in configs.items() if v is not None})
        partitions = len(assignment)
        replication = len(next(iter(assignment.values()))) if assignment else 0
        done = None if validate_only else self._created(name, partitions, topic_id, timeout_ms)
        return TopicCreation(partitions, replication, overrides, done)

    async def _created(self, name: str, partitions: int, topic_id: uuid.UUID, timeout_ms: int) -> uuid.UUID:
        await self._await(lambda: self._has_leaders(name, partitions, topic_id), timeout_ms, "Topic creation")
        return topic_id

    def begin_auto_create(self, name: str, budget: int) -> tuple[ErrorCode, int]:
        """Any broker writes the znodes (Kafka's ``AutoTopicCreationManager`` in ZooKeeper
        mode); LEADER_NOT_AVAILABLE until the controller has published the topic."""
        if self.is_busy(name):
            return ErrorCode.LEADER_NOT_AVAILABLE, 0
        d = self.defaults
        if d.num_partitions > budget:
            return ErrorCode.LEADER_NOT_AVAILABLE, 0
        # AdminZkClient.validateTopicCreate answers a name colliding on '.'/'_' at once
        # (AutoTopicCreationManager's createTopics with timeout 0); found only by the task
        # writing the znodes, the client would be told LEADER_NOT_AVAILABLE forever.
        check_no_collision(name, (), self.cluster.topic_colliding_with)
        live = len(self.cluster.get_alive_brokers())
        if d.replication_factor > live:
            log.info(
                "cannot auto-create %r: default.replication.factor %d is larger than the %d live brokers",
                name,
                d.replication_factor,
                live,
            )
            return ErrorCode.INVALID_REPLICATION_FACTOR, 0
        self._auto_created[name] = self.monotonic() + AUTO_CREATE_PENDING_S
        task = asyncio.get_running_loop().create_task(self._auto_create(name), name=f"auto-create-{name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return ErrorCode.LEADER_NOT_AVAILABLE, d.num_partitions

    async def _auto_create(self, name: str) -> None:
        d = self.defaults
        try:
            await self.admin.create_topic(
                name,
                -1,
                -1,
                {},
                default_partitions=d.num_partitions,
                default_replication=d.replication_factor,
                topic_id=uuid.uuid4(),
            )
            log.info("auto-created topic %r", name)
        except TopicMarkedForDeletion:
            # As Kafka's AutoTopicCreationManager (ZooKeeper mode), each Metadata request tries
            # again: the first one after the deletion completes creates the topic.
            self._auto_created.pop(name, None)
        except KafkaError as exc:
            if exc.error is not ErrorCode.TOPIC_ALREADY_EXISTS:  # another broker was first: fine
                log.info("cannot auto-create %r: %s", name, exc.message)
                self._auto_created.pop(name, None)
        except Exception as exc:  # ZooKeeper unreachable: the client asks again
            log.warning("cannot auto-create %r: %s", name, exc)
            self._auto_created.pop(name, None)

    async def delete_topic(self, name: str, *, timeout_ms: int) -> uuid.UUID:
        self._check_controller()
        topic = self.cluster.get_topic(name)
        if topic is None:
            raise KafkaError(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
            )
        await self.admin.delete_topic(name)

        def gone() -> bool:
            now = self.cluster.get_topic(name)
            return now is None or now.topic_id != topic.topic_id

        await self._await(gone, timeout_ms, "Topic deletion")
        return topic.topic_id

    def partition_count(self, name: str) -> int | None:
        topic = self.cluster.get_topic(name)
        return topic.partitions if topic is not None else None

    async def create_partitions(
        self,
        name: str,
        new_total: int,
        assignments: Sequence[Sequence[int]] | None,
        *,
        validate_only: bool,
        timeout_ms: int,
        check_adding: Callable[[int], None] | None = None,
    ) -> None:
        self._check_controller()
        await self.admin.add_partitions(
            name, new_total, assignments, validate_only=validate_only, check_adding=check_adding
        )
        if not validate_only:
            await self._await(lambda: self._has_leaders(name, new_total), timeout_ms, "Partition creation")

    async def alter_topic_config(self, name: str, configs: Mapping[str, str], *, validate_only: bool) -> None:
        """``AdminZkClient.validateTopicConfig`` then ``changeTopicConfig`` (any broker)."""
        loop = asyncio.get_running_loop()
        if await loop.run_in_executor(None, self.admin.read_topic, name) is None:
            raise _no_such_topic(name)
        _check_altered_topic_configs(name, configs)
        if not validate_only:
            await self.admin.change_topic_config(name, dict(configs))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


class ClusterInternalTopics:
    """``InternalTopicCreator`` of ZooKeeper mode: internal topics exist when the cluster
    view has them and are written with ``AdminZkClient``; the replication factor is capped
    at the registered brokers (``offsets.topic.replication.factor`` 3 on a smaller cluster:
    Kafka answers COORDINATOR_NOT_AVAILABLE until enough brokers are up, Moldau creates the
    topic with fewer replicas, see docs/COMPATIBILITY.md)."""

    def __init__(self, admin: AdminZkClient, cluster: ClusterView, replication_factor: int) -> None:
        self.admin = admin
        self.cluster = cluster
        self.replication_factor = replication_factor

    def partition_count(self, topic: str) -> int | None:
        found = self.cluster.get_topic(topic)
        return found.partitions if found is not None else None

    async def create_internal_topic(self, topic: str, partitions: int, configs: dict[str, str]) -> None:
        registered = len(await asyncio.get_running_loop().run_in_executor(None, self.admin.broker_ids))
        replication = max(1, min(self.replication_factor, registered))
        if "min.insync.replicas" in configs:  # __transaction_state's min ISR, capped likewise
            configs = {
                **configs,
                "min.insync.replicas": str(min(int(configs["min.insync.replicas"]), replication)),
            }
        await self.admin.create_topic(
            topic,
            partitions,
            replication,
            configs,
            default_partitions=partitions,
            default_replication=replication,
            allow_internal=True,
        )
        log.info("created %s with %d partitions, replication factor %d", topic, partitions, replication)
