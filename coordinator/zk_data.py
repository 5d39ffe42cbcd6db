"""Kafka's ZooKeeper layout (``kafka.zk.ZkData`` of Kafka 3.9): znode paths and their JSON.

Every encoder writes what a 3.9 ZK-mode broker or controller writes, field for field
(Jackson output: compact JSON, the field order of Kafka's Scala maps; readers, Kafka's
included, parse by key, so order only matters to people comparing dumps). Every decoder
reads what Kafka writes, tolerating the fields older versions omit.

Ephemeral: ``/controller`` and ``/brokers/ids/<id>``. Sequential: the config change
notifications. The rest is persistent.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coordinator.cluster_state import BrokerEndpoint

# ------------------------------------------------------------------ paths

CONTROLLER_PATH = "/controller"  # ControllerZNode
CONTROLLER_EPOCH_PATH = "/controller_epoch"  # ControllerEpochZNode
BROKER_IDS_PATH = "/brokers/ids"  # BrokerIdsZNode
TOPICS_PATH = "/brokers/topics"  # TopicsZNode
CONFIG_PATH = "/config"  # ConfigZNode
CONFIG_CHANGES_PATH = "/config/changes"  # ConfigEntityChangeNotificationZNode
CONFIG_CHANGE_PREFIX = "config_change_"  # ConfigEntityChangeNotificationSequenceZNode.SequenceNumberPrefix
DELETE_TOPICS_PATH = "/admin/delete_topics"  # DeleteTopicsZNode
PREFERRED_REPLICA_ELECTION_PATH = "/admin/preferred_replica_election"  # PreferredReplicaElectionZNode
REASSIGN_PARTITIONS_PATH = "/admin/reassign_partitions"  # ReassignPartitionsZNode (legacy trigger)

INITIAL_CONTROLLER_EPOCH = 0  # KafkaController.InitialControllerEpoch
NO_LEADER = -1  # LeaderAndIsr.NoLeader
LEADER_DURING_DELETE = -2  # LeaderAndIsr.LeaderDuringDelete
EPOCH_DURING_DELETE = -2  # LeaderAndIsr.EpochDuringDelete
RECOVERED, RECOVERING = 0, 1  # LeaderRecoveryState (KIP-704)

# SecurityProtocol ids, as UpdateMetadata carries them
SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}


def broker_path(broker_id: int) -> str:
    return f"{BROKER_IDS_PATH}/{broker_id}"  # BrokerIdZNode.path


def topic_path(topic: str) -> str:
    return f"{TOPICS_PATH}/{topic}"  # TopicZNode.path


def topic_partitions_path(topic: str) -> str:
    return f"{TOPICS_PATH}/{topic}/partitions"  # TopicPartitionsZNode.path


def topic_partition_path(topic: str, partition: int) -> str:
    return f"{TOPICS_PATH}/{topic}/partitions/{partition}"  # TopicPartitionZNode.path


def partition_state_path(topic: str, partition: int) -> str:
    return f"{TOPICS_PATH}/{topic}/partitions/{partition}/state"  # TopicPartitionStateZNode.path


def config_entity_path(entity_type: str, name: str) -> str:
    return f"{CONFIG_PATH}/{entity_type}/{name}"  # ConfigEntityZNode.path


def delete_topic_path(topic: str) -> str:
    return f"{DELETE_TOPICS_PATH}/{topic}"  # DeleteTopicsTopicZNode.path


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _loads(data: bytes | None) -> Any:
    if not data:
        return None
    return json.loads(data.decode())


# ------------------------------------------------------------------ topic ids


def uuid_to_kafka(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 of the 16 bytes, no padding (22 chars)."""
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def uuid_from_kafka(text: str) -> uuid.UUID:
    """Kafka's ``Uuid.fromString``."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(raw) != 16:
        raise ValueError(f"not a Kafka Uuid: {text!r}")
    return uuid.UUID(bytes=raw)


# ------------------------------------------------------------------ /controller, /controller_epoch


def encode_controller(broker_id: int, timestamp_ms: int, kraft_controller_epoch: int = -1) -> bytes:
    """``ControllerZNode.encode`` (version 2; the timestamp is a string)."""
    return _dumps(
        {
            "version": 2,
            "brokerid": broker_id,
            "timestamp": str(timestamp_ms),
            "kraftControllerEpoch": kraft_controller_epoch,
        }
    )


def decode_controller(data: bytes | None) -> int | None:
    """``ControllerZNode.decode``: the controller's broker id (None if unreadable)."""
    try:
        obj = _loads(data)
        return int(obj["brokerid"]) if obj is not None else None
    except (ValueError, KeyError, TypeError):
        return None


def encode_controller_epoch(epoch: int) -> bytes:
    return str(epoch).encode()  # ControllerEpochZNode.encode


def decode_controller_epoch(data: bytes) -> int:
    return int(data.decode())


# ------------------------------------------------------------------ /brokers/ids/<id>


@dataclass(frozen=True)
class BrokerInfo:
    """``/brokers/ids/<id>`` as read (``BrokerIdZNode.decode``) plus the broker epoch (czxid)."""

    broker_id: int
    endpoints: tuple[BrokerEndpoint, ...]
    security_protocols: Mapping[str, str] = field(default_factory=dict)
    rack: str | None = None
    epoch: int = -1

    def security_protocol(self, listener: str) -> str:
        return self.security_protocols.get(listener, "PLAINTEXT")


def _parse_endpoint(text: str) -> BrokerEndpoint:
    """``EndPoint.createEndPoint``: ``LISTENER://host:port`` (IPv6 hosts in brackets)."""
    name, sep, rest = text.partition("://")
    if not sep:
        raise ValueError(f"unparseable endpoint {text!r}")
    host, _, port = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return BrokerEndpoint(name, host, int(port))


def decode_broker(broker_id: int, data: bytes, epoch: int = -1) -> BrokerInfo:
    """``BrokerIdZNode.decode`` for versions 1-5 (endpoints since v2, the listener map since v4)."""
    obj = _loads(data) or {}
    protocols = dict(obj.get("listener_security_protocol_map") or {})
    endpoints: list[BrokerEndpoint] = []
    for text in obj.get("endpoints") or ():
        ep = _parse_endpoint(text)
        endpoints.append(ep)
        protocols.setdefault(ep.name, ep.name if ep.name in SECURITY_PROTOCOL_IDS else "PLAINTEXT")
    if not endpoints and obj.get("host") is not None:  # version 1
        endpoints.append(BrokerEndpoint("PLAINTEXT", obj["host"], int(obj["port"])))
        protocols.setdefault("PLAINTEXT", "PLAINTEXT")
    return BrokerInfo(broker_id, tuple(endpoints), protocols, obj.get("rack"), epoch)


# ------------------------------------------------------------------ /brokers/topics/<t>


@dataclass(frozen=True)
class TopicAssignment:
    """``/brokers/topics/<t>``: replica lists per partition, reassignment lists, the topic id."""

    partitions: Mapping[int, tuple[int, ...]]
    topic_id: uuid.UUID | None = None
    adding_replicas: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    removing_replicas: Mapping[int, tuple[int, ...]] = field(default_factory=dict)


def encode_topic(
    partitions: Mapping[int, Sequence[int]],
    topic_id: uuid.UUID | None,
    adding_replicas: Mapping[int, Sequence[int]] | None = None,
    removing_replicas: Mapping[int, Sequence[int]] | None = None,
) -> bytes:
    """``TopicZNode.encode`` (version 3), in the field order of the 2.13 build.

    A partition appears in the adding/removing maps only with a non-empty list.
    """

    def replica_map(m: Mapping[int, Sequence[int]] | None) -> dict[str, list[int]]:
        return {str(p): list(r) for p, r in sorted((m or {}).items()) if r}

    obj: dict[str, Any] = {
        "partitions": {str(p): list(r) for p, r in sorted(partitions.items())},
        "removing_replicas": replica_map(removing_replicas),
    }
    if topic_id is not None:
        obj["topic_id"] = uuid_to_kafka(topic_id)
    obj["adding_replicas"] = replica_map(adding_replicas)
    obj["version"] = 3
    return _dumps(obj)


def decode_topic(data: bytes) -> TopicAssignment:
    """``TopicZNode.decode`` (versions 1-3)."""
    obj = _loads(data) or {}

    def replica_map(m: Any) -> dict[int, tuple[int, ...]]:
        return {int(p): tuple(int(b) for b in r) for p, r in (m or {}).items()}

    topic_id = obj.get("topic_id")
    return TopicAssignment(
        partitions=replica_map(obj.get("partitions")),
        topic_id=uuid_from_kafka(topic_id) if topic_id else None,
        adding_replicas=replica_map(obj.get("adding_replicas")),
        removing_replicas=replica_map(obj.get("removing_replicas")),
    )


# ------------------------------------------------------------------ partition state


@dataclass(frozen=True)
class LeaderIsrAndEpoch:
    """``/brokers/topics/<t>/partitions/<p>/state`` (Kafka's LeaderIsrAndControllerEpoch).

    ``partition_epoch`` is the znode's version, not stored in the JSON.
    """

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int
    leader_recovery_state: int = RECOVERED
    partition_epoch: int = 0

    def new_leader_and_isr(self, leader: int, isr: Sequence[int], controller_epoch: int) -> LeaderIsrAndEpoch:
        """``LeaderAndIsr.newLeaderAndIsr``: a new leader/ISR with the leader epoch bumped; the
        leader recovery state (KIP-704) is kept: only the recovering leader's AlterPartition
        ends it."""
        return LeaderIsrAndEpoch(
            leader,
            self.leader_epoch + 1,
            tuple(isr),
            controller_epoch,
            self.leader_recovery_state,
            self.partition_epoch,
        )


def encode_partition_state(state: LeaderIsrAndEpoch) -> bytes:
    """``TopicPartitionStateZNode.encode``; ``leader_recovery_state`` only when RECOVERING."""
    obj: dict[str, Any] = {
        "controller_epoch": state.controller_epoch,
        "leader": state.leader,
        "version": 1,
    }
    if state.leader_recovery_state != RECOVERED:
        obj["leader_recovery_state"] = state.leader_recovery_state
    obj["leader_epoch"] = state.leader_epoch
    obj["isr"] = list(state.isr)
    return _dumps(obj)


def decode_partition_state(data: bytes, zk_version: int) -> LeaderIsrAndEpoch:
    """``TopicPartitionStateZNode.decode``; a missing recovery state is RECOVERED."""
    obj = _loads(data) or {}
    return LeaderIsrAndEpoch(
        leader=int(obj["leader"]),
        leader_epoch=int(obj["leader_epoch"]),
        isr=tuple(int(b) for b in obj["isr"]),
        controller_epoch=int(obj["controller_epoch"]),
        leader_recovery_state=int(obj.get("leader_recovery_state", RECOVERED)),
        partition_epoch=zk_version,
    )


# ------------------------------------------------------------------ configs and admin znodes


def encode_config(config: Mapping[str, str]) -> bytes:
    """``ConfigEntityZNode.encode``: values are strings (java Properties)."""
    return _dumps({"version": 1, "config": {k: str(v) for k, v in config.items()}})


def decode_config(data: bytes | None, path: str = "config znode") -> dict[str, str]:
    """``ConfigEntityZNode.decode``: the ``config`` object of ``/config/<type>/<name>`` as strings;
    ``{}`` for a missing or empty znode. Malformed data raises ``ValueError`` naming ``path``."""
    if not data:
        return {}
    try:
        obj = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON: {exc}") from None
    if obj is None:  # the JSON null
        return {}
    config = (obj.get("config") or {}) if isinstance(obj, dict) else None
    if not isinstance(config, dict):
        raise ValueError(f"{path}: no config object")
    return {str(k): str(v) for k, v in config.items()}


def encode_config_change(entity_path: str) -> bytes:
    """``ConfigEntityChangeNotificationSequenceZNode.encode`` (version 2), e.g. ``topics/t``."""
    return _dumps({"version": 2, "entity_path": entity_path})


def decode_config_change(data: bytes) -> str:
    return (_loads(data) or {})["entity_path"]


def encode_partitions_list(partitions: Iterable[tuple[str, int]]) -> bytes:
    """``PreferredReplicaElectionZNode.encode`` (also ``IsrChangeNotificationSequenceZNode``)."""
    return _dumps({"version": 1, "partitions": [{"topic": t, "partition": p} for t, p in partitions]})


def decode_partitions_list(data: bytes | None) -> list[tuple[str, int]]:
    obj = _loads(data)
    if not obj:
        return []
    return [(str(e["topic"]), int(e["partition"])) for e in obj.get("partitions") or ()]


def encode_reassignment(reassignment: Mapping[tuple[str, int], Sequence[int]]) -> bytes:
    """``ReassignPartitionsZNode.encode``: ``{"version":1,"partitions":[{"topic":..,
    "partition":..,"replicas":[..]}]}``."""
    return _dumps(
        {
            "version": 1,
            "partitions": [
                {"topic": t, "partition": p, "replicas": list(r)} for (t, p), r in reassignment.items()
            ],
        }
    )


def decode_reassignment(data: bytes | None) -> dict[tuple[str, int], tuple[int, ...]]:
    """``ReassignPartitionsZNode.decode`` (``log_dirs``, written by kafka-reassign-partitions,
    is ignored as Kafka's controller ignores it). Raises ValueError on bad content."""
    obj = _loads(data)
    if not obj:
        return {}
    try:
        return {
            (str(e["topic"]), int(e["partition"])): tuple(int(b) for b in e["replicas"])
            for e in obj.get("partitions") or ()
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"unreadable partition reassignment: {exc!r}") from None
