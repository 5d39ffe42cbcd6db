"""The controller of a one-broker cluster: topic creation, deletion and metadata.

This broker is its own controller (Metadata answers ``controller_id`` = this
broker, so the Java Admin client, which sends CreateTopics and DeleteTopics to
the controller, finds it). Topics live where Kafka keeps them on a broker:
one directory per partition with ``partition.metadata`` (the topic id); their
config overrides are kept by the LogManager. Validation follows Kafka's
``Topic.validate`` and ``ControllerManager`` / ``ReplicationControlManager``.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode, KafkaError
from storage.config_def import ConfigError
from storage.log_config import parse_topic_overrides

if TYPE_CHECKING:
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 249  # Topic.MAX_NAME_LENGTH
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})


def validate_topic_name(name: str | None) -> None:
    """Kafka's ``Topic.validate``: raises INVALID_TOPIC_EXCEPTION."""
    if not name:
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name cannot be "." or ".."')
    if len(name) > MAX_NAME_LENGTH:
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, topic name: {name}",
        )
    if not _LEGAL.match(name):
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            f"Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'",
        )


def unify_collision_chars(name: str) -> str:
    """'.' and '_' collide in metric names (Topic.unifyCollisionChars)."""
    return name.replace(".", "_")


@dataclass
class TopicMetadata:
    name: str
    topic_id: uuid.UUID
    partitions: int
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def is_internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


class Controller:
    """Topic administration for the cluster this broker controls."""

    def __init__(self, log_manager: LogManager, broker_id: int, *, live_brokers: int = 1) -> None:
        self.log_manager = log_manager
        self.broker_id = broker_id
        self.live_brokers = live_brokers

    # ------------------------------------------------------------------ queries

    def topics(self) -> dict[str, TopicMetadata]:
        out = {}
        for name, info in self.log_manager.topics().items():
            out[name] = TopicMetadata(name, info.topic_id, info.partitions, dict(info.overrides))
        return out

    def topic(self, name: str) -> TopicMetadata | None:
        info = self.log_manager.topics().get(name)
        if info is None:
            return None
        return TopicMetadata(name, info.topic_id, info.partitions, dict(info.overrides))

    def topic_by_id(self, topic_id: uuid.UUID) -> TopicMetadata | None:
        for t in self.topics().values():
            if t.topic_id == topic_id:
                return t
        return None

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
    ) -> tuple[int, int, dict[str, Any]]:
        """Validate a CreateTopics entry; returns (partitions, replication, parsed overrides)."""
        validate_topic_name(name)
        existing = self.log_manager.topics()
        if name in existing:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        unified = unify_collision_chars(name)
        for other in existing:
            if unify_collision_chars(other) == unified:
                raise KafkaError(
                    ErrorCode.INVALID_TOPIC_EXCEPTION, f"Topic '{name}' collides with existing topic: {other}"
                )
        if assignments:
            partitions, replication = self._check_assignments(num_partitions, replication_factor, assignments)
        else:
            partitions = default_partitions if num_partitions == -1 else num_partitions
            replication = default_replication if replication_factor == -1 else replication_factor
        if partitions <= 0:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
        if replication <= 0:
            raise KafkaError(
                ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0."
            )
        if replication > self.live_brokers:
            raise KafkaError(
                ErrorCode.INVALID_REPLICATION_FACTOR,
                f"Unable to replicate the partition {replication} time(s): "
                f"The target replication factor of {replication} cannot be reached because only "
                f"{self.live_brokers} broker(s) are registered.",
            )
        try:
            overrides = parse_topic_overrides(configs)
        except ConfigError as exc:
            raise KafkaError(ErrorCode.INVALID_CONFIG, str(exc)) from None
        return partitions, replication, overrides

    def _check_assignments(
        self, num_partitions: int, replication_factor: int, assignments: Sequence[tuple[int, Sequence[int]]]
    ) -> tuple[int, int]:
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
                if b != self.broker_id:
                    raise KafkaError(
                        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                        f"The manual partition assignment includes broker {b}, but no such broker is registered.",
                    )
        return len(indexes), sizes.pop()

    def create_topic(self, name: str, partitions: int, overrides: Mapping[str, Any]) -> TopicMetadata:
        topic_id = uuid.uuid4()
        self.log_manager.create_topic(name, partitions, topic_id, overrides)
        log.info("created topic %s (%d partitions, id %s)", name, partitions, topic_id)
        return TopicMetadata(name, topic_id, partitions, dict(overrides))

    def delete_topic(self, name: str) -> None:
        if name not in self.log_manager.topics():
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic.")
        self.log_manager.delete_topic(name)
        log.info("deleted topic %s", name)
