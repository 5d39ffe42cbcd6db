"""Topic administration as ZooKeeper writes (Kafka's ``AdminZkClient``), usable from any broker.

A ZooKeeper-mode broker creates, grows and deletes topics by writing znodes; the
controller, watching them, does the rest (partition states, LeaderAndIsr):

- create (``createTopicWithAssignment``): validate (the checks the embedded controller
  makes, shared through ``validate_new_topic``; a topic marked for deletion exists; a
  manual assignment may name brokers that are not registered, as ZkAdminManager allows),
  assign replicas (``AdminUtils.assignReplicasToBrokers`` over the registered
  brokers sorted by id; rack-aware when every broker has a rack), write ``/config/topics/<t>`` (even with no
  overrides), then ``/brokers/topics/<t>`` (version 3, with a new topic id). The two
  writes are not atomic, as in Kafka.
- delete (``deleteTopic``): create ``/admin/delete_topics/<t>``; marking it again is a no-op.
- add partitions (``createPartitions`` / ``createNewPartitionsAssignment``): continue
  Kafka's assignment from the existing partition 0, or take a manual one, and rewrite
  ``/brokers/topics/<t>`` keeping the topic id. The caller's ``check_adding`` sees the
  number of new partitions before any assignment is built (``max.partitions.per.request``:
  without it a count of 2**31-1 builds a 2-billion-entry assignment).

Brokers with racks get Kafka's rack-aware assignment (``assignReplicasToBrokersRackAware``).

Every kazoo call is blocking; the public coroutines run them on an executor.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from kazoo.exceptions import NodeExistsError, NoNodeError

from coordinator import zk_data as zd
from coordinator.controller import validate_new_topic
from coordinator.zookeeper import ZooKeeperClient, get_children, get_many
from protocol.errors import ErrorCode, KafkaError


def assign_replicas_to_brokers(
    n_partitions: int,
    replication_factor: int,
    brokers: Sequence[int],
    *,
    fixed_start_index: int = -1,
    start_partition_id: int = -1,
    rng: random.Random | None = None,
) -> dict[int, list[int]]:
    """Kafka's ``AdminUtils.assignReplicasToBrokersRackUnaware`` (brokers in the given order).

    Leaders spread round-robin from a random broker; followers shifted so that replicas
    of consecutive partitions do not pile on the same brokers.
    """
    if n_partitions <= 0:
        raise KafkaError(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.")
    n = len(brokers)
    if replication_factor > n:
        raise KafkaError(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            f"Replication factor: {replication_factor} larger than available brokers: {n}.",
        )
    rng = rng or random.Random()
    start_index = fixed_start_index if fixed_start_index >= 0 else rng.randrange(n)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else rng.randrange(n)
    pid = max(0, start_partition_id)
    out: dict[int, list[int]] = {}
    for _ in range(n_partitions):
        if pid > 0 and pid % n == 0:
            next_replica_shift += 1
        first = (pid + start_index) % n
        replicas = [brokers[first]]
        for j in range(replication_factor - 1):
            replicas.append(brokers[(first + 1 + (next_replica_shift + j) % (n - 1)) % n])
        out[pid] = replicas
        pid += 1
    return out


def rack_alternated_brokers(racks: Mapping[int, str]) -> list[int]:
    """``AdminUtils.getRackAlternatedBrokerList``: one broker of each rack (racks sorted, brokers
    sorted within a rack) in turn, e.g. r1: 0,1,2; r2: 3,4,5 -> 0,3,1,4,2,5."""
    by_rack: dict[str, list[int]] = {}
    for broker, rack in racks.items():
        by_rack.setdefault(rack, []).append(broker)
    queues = [sorted(by_rack[r]) for r in sorted(by_rack)]
    out: list[int] = []
    depth = 0
    while len(out) < len(racks):
        out.extend(q[depth] for q in queues if depth < len(q))
        depth += 1
    return out


def assign_replicas_rack_aware(
    n_partitions: int,
    replication_factor: int,
    racks: Mapping[int, str],
    *,
    fixed_start_index: int = -1,
    start_partition_id: int = -1,
    rng: random.Random | None = None,
) -> dict[int, list[int]]:
    """``AdminUtils.assignReplicasToBrokersRackAware``: like the rack-unaware assignment over the
    rack-alternated broker list, skipping a broker whose rack (or itself) already holds a
    replica while some rack (or broker) holds none."""
    brokers = rack_alternated_brokers(racks)
    n = len(brokers)
    n_racks = len(set(racks.values()))
    rng = rng or random.Random()
    start_index = fixed_start_index if fixed_start_index >= 0 else rng.randrange(n)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else rng.randrange(n)
    pid = max(0, start_partition_id)
    out: dict[int, list[int]] = {}
    for _ in range(n_partitions):
        if pid > 0 and pid % n == 0:
            next_replica_shift += 1
        first = (pid + start_index) % n
        leader = brokers[first]
        replicas = [leader]
        used_racks = {racks[leader]}
        used_brokers = {leader}
        k = 0
        for _ in range(replication_factor - 1):
            while True:
                broker = brokers[(first + 1 + (next_replica_shift * n_racks + k) % (n - 1)) % n]
                rack = racks[broker]
                k += 1
                if (rack not in used_racks or len(used_racks) == n_racks) and (
                    broker not in used_brokers or len(used_brokers) == n
                ):
                    replicas.append(broker)
                    used_racks.add(rack)
                    used_brokers.add(broker)
                    break
        out[pid] = replicas
        pid += 1
    return out


def assign_replicas(
    n_partitions: int,
    replication_factor: int,
    brokers: Mapping[int, str | None],
    *,
    fixed_start_index: int = -1,
    start_partition_id: int = -1,
    rng: random.Random | None = None,
) -> dict[int, list[int]]:
    """``AdminUtils.assignReplicasToBrokers`` over brokers (id -> rack, iterated in id order):
    rack-aware when every broker has a rack, rack-unaware when none has; mixed is refused."""
    ids = sorted(brokers)
    with_rack = {b: r for b, r in brokers.items() if r is not None}
    if not with_rack or n_partitions <= 0 or replication_factor <= 0 or replication_factor > len(ids):
        return assign_replicas_to_brokers(
            n_partitions,
            replication_factor,
            ids,
            fixed_start_index=fixed_start_index,
            start_partition_id=start_partition_id,
            rng=rng,
        )
    if len(with_rack) != len(ids):
        # AdminOperationException, which the request handlers turn into UNKNOWN_SERVER_ERROR
        raise KafkaError(
            ErrorCode.UNKNOWN_SERVER_ERROR,
            "Not all brokers have rack information for replica rack aware assignment.",
        )
    return assign_replicas_rack_aware(
        n_partitions,
        replication_factor,
        with_rack,
        fixed_start_index=fixed_start_index,
        start_partition_id=start_partition_id,
        rng=rng,
    )


def _zk_too_many_replicas(replication: int, brokers: int) -> str:
    return f"Replication factor: {replication} larger than available brokers: {brokers}."  # AdminUtils


class TopicMarkedForDeletion(KafkaError):
    """TOPIC_ALREADY_EXISTS because ``/admin/delete_topics/<name>`` exists: the name is free
    again once the deletion completes (an auto-creation should then try again)."""


class AdminZkClient:
    """Topic creation, growth and deletion marks, written to ZooKeeper."""

    def __init__(
        self,
        zk: ZooKeeperClient,
        *,
        executor: Executor | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.zk = zk
        self._executor = executor
        self.rng = rng or random.Random()

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    # ------------------------------------------------------------------ reads (blocking)

    def broker_ids(self) -> list[int]:
        """Registered brokers, sorted by id (``AdminZkClient.getBrokerMetadatas``)."""
        return sorted(int(c) for c in get_children(self.zk, zd.BROKER_IDS_PATH))

    def broker_racks(self) -> dict[int, str | None]:
        """Registered brokers and their racks (``getBrokerMetadatas``)."""
        ids = self.broker_ids()
        found = get_many(self.zk, [zd.broker_path(b) for b in ids])
        return {b: zd.decode_broker(b, r[0]).rack for b, r in zip(ids, found, strict=True) if r is not None}

    def _existing_topics(self) -> tuple[set[str], set[str]]:
        """(the topics, the names marked for deletion)."""
        return set(get_children(self.zk, zd.TOPICS_PATH)), set(get_children(self.zk, zd.DELETE_TOPICS_PATH))

    def read_topic(self, topic: str) -> zd.TopicAssignment | None:
        (found,) = get_many(self.zk, [zd.topic_path(topic)])
        return zd.decode_topic(found[0]) if found is not None else None

    # ------------------------------------------------------------------ create

    async def create_topic(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        configs: Mapping[str, str | None],
        *,
        default_partitions: int,
        default_replication: int,
        assignments: Sequence[tuple[int, Sequence[int]]] = (),
        validate_only: bool = False,
        allow_internal: bool = False,
        topic_id: uuid.UUID | None = None,
    ) -> dict[int, list[int]]:
        """Validate, assign and (unless ``validate_only``) write a new topic; returns the assignment.

        Raises KafkaError with Kafka's code (TOPIC_ALREADY_EXISTS, INVALID_* ...).
        """
        return await self._run(
            self.create_topic_blocking,
            name,
            num_partitions,
            replication_factor,
            configs,
            default_partitions,
            default_replication,
            assignments,
            validate_only,
            allow_internal,
            topic_id,
        )

    def create_topic_blocking(
        self,
        name: str,
        num_partitions: int,
        replication_factor: int,
        configs: Mapping[str, str | None],
        default_partitions: int,
        default_replication: int,
        assignments: Sequence[tuple[int, Sequence[int]]] = (),
        validate_only: bool = False,
        allow_internal: bool = False,
        topic_id: uuid.UUID | None = None,
    ) -> dict[int, list[int]]:
        racks = self.broker_racks()
        brokers = sorted(racks)
        topics, deleting = self._existing_topics()

        def check_free(n: str) -> None:
            # AdminZkClient.validateTopicCreate looks at the delete mark before topicExists.
            if n in deleting:
                raise TopicMarkedForDeletion(
                    ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{n}' is marked for deletion."
                )
            if n in topics:
                raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{n}' already exists.")

        partitions, replication, _ = validate_new_topic(
            name,
            num_partitions,
            replication_factor,
            configs,
            existing_topics=topics | deleting,
            check_free=check_free,
            broker_ids=brokers,
            default_partitions=default_partitions,
            default_replication=default_replication,
            assignments=assignments,
            allow_internal=allow_internal,
            too_many_replicas=_zk_too_many_replicas,
            assignment_brokers_registered=False,
        )
        if assignments:
            assignment = {p: list(replicas) for p, replicas in assignments}
        else:
            assignment = assign_replicas(partitions, replication, racks, rng=self.rng)
        if validate_only:
            return assignment
        overrides = {k: v for k, v in configs.items() if v is not None}
        self._write_topic_config(name, overrides)
        try:
            self.zk.create_node(zd.topic_path(name), zd.encode_topic(assignment, topic_id or uuid.uuid4()))
        except NodeExistsError:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.") from None
        return assignment

    def _write_topic_config(self, name: str, config: Mapping[str, str]) -> None:
        """``setOrCreateEntityConfigs("topics", name, props)``: the entity znode (any version)."""
        path = zd.config_entity_path("topics", name)
        data = zd.encode_config(config)
        try:
            self.zk.set_data(path, data, -1)
        except NoNodeError:
            try:
                self.zk.create_node(path, data)
            except NodeExistsError:
                self.zk.set_data(path, data, -1)

    # ------------------------------------------------------------------ configs

    async def change_topic_config(self, name: str, config: Mapping[str, str]) -> None:
        """``changeTopicConfig``: write ``/config/topics/<t>`` and a change notification."""
        await self._run(self.change_topic_config_blocking, name, config)

    def change_topic_config_blocking(self, name: str, config: Mapping[str, str]) -> None:
        self._write_topic_config(name, config)
        self.zk._client().create(
            f"{zd.CONFIG_CHANGES_PATH}/{zd.CONFIG_CHANGE_PREFIX}",
            zd.encode_config_change(f"topics/{name}"),
            sequence=True,
            makepath=True,
        )

    def change_broker_config_blocking(self, entity: str, config: Mapping[str, str]) -> None:
        """``changeBrokerConfig``: ``/config/brokers/<id>`` (or ``<default>``, the cluster-wide
        defaults) and a change notification, for every broker's config change listener."""
        self._write_entity_config("brokers", entity, config)

    def change_user_config_blocking(self, sanitized_user: str, config: Mapping[str, str]) -> None:
        """``changeUserOrUserClientIdConfig``: ``/config/users/<user>`` (SCRAM credentials, quotas)
        and a change notification, for every broker's credential cache."""
        self._write_entity_config("users", sanitized_user, config)

    def _write_entity_config(self, entity_type: str, name: str, config: Mapping[str, str]) -> None:
        path = zd.config_entity_path(entity_type, name)
        data = zd.encode_config(config)
        try:
            self.zk.set_data(path, data, -1)
        except NoNodeError:
            self.zk._client().create(path, data, makepath=True)
        self.zk._client().create(
            f"{zd.CONFIG_CHANGES_PATH}/{zd.CONFIG_CHANGE_PREFIX}",
            zd.encode_config_change(f"{entity_type}/{name}"),
            sequence=True,
            makepath=True,
        )

    def entity_config(self, entity_type: str, name: str) -> dict[str, str]:
        """``fetchEntityConfig``: ``/config/<type>/<name>`` ({} if missing)."""
        (found,) = get_many(self.zk, [zd.config_entity_path(entity_type, name)])
        return zd.decode_config(found[0]) if found is not None else {}

    def entity_names(self, entity_type: str) -> list[str]:
        """``fetchAllEntityConfigs``' names: the children of ``/config/<type>``."""
        return sorted(get_children(self.zk, f"{zd.CONFIG_PATH}/{entity_type}"))

    def topic_config(self, name: str) -> dict[str, str]:
        return self.entity_config("topics", name)

    # ------------------------------------------------------------------ delete

    async def delete_topic(self, name: str) -> None:
        """Mark ``name`` for deletion (``AdminZkClient.deleteTopic``); the controller deletes it.

        UNKNOWN_TOPIC_OR_PARTITION if it does not exist; marking it twice is a no-op
        (ZkAdminManager swallows TopicAlreadyMarkedForDeletionException).
        """
        await self._run(self.delete_topic_blocking, name)

    def delete_topic_blocking(self, name: str) -> None:
        if name not in get_children(self.zk, zd.TOPICS_PATH):
            raise KafkaError(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
            )
        with contextlib.suppress(NodeExistsError):
            self.zk._client().create(zd.delete_topic_path(name), b"", makepath=True)

    # ------------------------------------------------------------------ add partitions

    async def add_partitions(
        self,
        name: str,
        new_total: int,
        assignments: Sequence[Sequence[int]] | None = None,
        *,
        validate_only: bool = False,
        check_adding: Callable[[int], None] | None = None,
    ) -> dict[int, list[int]]:
        """Grow ``name`` to ``new_total`` partitions (CreatePartitions); returns the new
        partitions' assignment. ``assignments``: one replica list per new partition.
        ``check_adding`` is called with the number of partitions to add before any assignment
        is checked or computed; it raises KafkaError to refuse."""
        return await self._run(
            self.add_partitions_blocking, name, new_total, assignments, validate_only, check_adding
        )

    def add_partitions_blocking(
        self,
        name: str,
        new_total: int,
        assignments: Sequence[Sequence[int]] | None = None,
        validate_only: bool = False,
        check_adding: Callable[[int], None] | None = None,
    ) -> dict[int, list[int]]:
        if name in get_children(self.zk, zd.DELETE_TOPICS_PATH):
            raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, "The topic is queued for deletion.")
        found = get_many(self.zk, [zd.topic_path(name)])[0]
        if found is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
        current = zd.decode_topic(found[0])
        if current.adding_replicas or current.removing_replicas:
            # ZkAdminManager.createPartitions: no race with the controller's reassignment writes
            raise KafkaError(
                ErrorCode.REASSIGNMENT_IN_PROGRESS,
                f"A partition reassignment is in progress for the topic '{name}'.",
            )
        existing = len(current.partitions)
        if new_total == existing:  # ZkAdminManager.createPartitions
            raise KafkaError(ErrorCode.INVALID_PARTITIONS, f"Topic already has {existing} partitions.")
        if new_total < existing:
            raise KafkaError(
                ErrorCode.INVALID_PARTITIONS,
                f"Topic currently has {existing} partitions, which is higher than the requested {new_total}.",
            )
        adding = new_total - existing
        if check_adding is not None:
            check_adding(adding)  # before the assignment, whose size grows with it
        replicas_p0 = list(current.partitions.get(0, ()))
        racks = self.broker_racks()
        brokers = sorted(racks)
        if assignments is not None:
            new = check_new_assignments(existing, adding, len(replicas_p0), assignments, brokers)
        else:
            # createNewPartitionsAssignment: continue from the broker that leads partition 0
            start = next((i for i, b in enumerate(brokers) if b >= replicas_p0[0]), 0) if replicas_p0 else 0
            new = assign_replicas(
                adding,
                len(replicas_p0),
                racks,
                fixed_start_index=start,
                start_partition_id=existing,
                rng=self.rng,
            )
        if validate_only:
            return new
        partitions = {p: list(r) for p, r in current.partitions.items()} | new
        data = zd.encode_topic(
            partitions, current.topic_id, current.adding_replicas, current.removing_replicas
        )
        self.zk.set_data(zd.topic_path(name), data, found[1].version)
        return new


def check_new_assignments(
    existing: int,
    adding: int,
    replication: int,
    assignments: Sequence[Sequence[int]],
    brokers: Sequence[int],
) -> dict[int, list[int]]:
    """``AdminZkClient.validateReplicaAssignment`` for the new partitions."""
    if len(assignments) != adding:
        raise KafkaError(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            f"Increasing the number of partitions by {adding} but {len(assignments)} assignments provided.",
        )
    new: dict[int, list[int]] = {}
    for i, replicas in enumerate(assignments):
        p = existing + i
        if not replicas:
            raise KafkaError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Cannot have replication factor of 0 for partition id {p}.",
            )
        if len(set(replicas)) != len(replicas):
            raise KafkaError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Duplicate brokers not allowed in replica assignment: {', '.join(map(str, replicas))} for partition id {p}.",
            )
        unknown = [b for b in replicas if b not in brokers]
        if unknown:
            raise KafkaError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Unknown broker(s) in replica assignment: {', '.join(map(str, unknown))}.",
            )
        if len(replicas) != replication:
            raise KafkaError(
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Inconsistent replication factor between partitions, partition 0 has {replication} "
                f"while partitions [{p}] have replication factors [{len(replicas)}], respectively.",
            )
        new[p] = list(replicas)
    return new
