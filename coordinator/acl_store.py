"""Where ACLs live: ZooKeeper as Kafka's ``AclAuthorizer`` keeps them, or a local file.

ZooKeeper (Kafka's ``ZkAclStore`` / ``ZkAclChangeStore`` in ``ZkData``):

- literal patterns: ``/kafka-acl/<ResourceType>/<name>`` (``Topic``, ``Group``, ``Cluster``,
  ``TransactionalId``); prefixed patterns: ``/kafka-acl-extended/prefixed/<ResourceType>/<name>``;
  each znode holds ``{"version":1,"acls":[{"principal","permissionType","operation","host"}]}``
  and is written conditionally on its znode version (concurrent writers retry), deleted when
  its last ACL goes;
- after each change a sequential notification: ``/kafka-acl-changes/acl_changes_<seq>`` holding
  ``TOPIC:<name>`` (literal) or ``/kafka-acl-extended-changes/acl_changes_<seq>`` holding
  ``{"version":1,"resourceType":"TOPIC","name":..,"patternType":"PREFIXED"}``. Every broker
  watches both (Kafka's ``ZkNodeChangeNotificationListener``:
  ``coordinator/zk_change_notifications.py``), re-reads the named resource
  and updates its cache; notifications older than 15 minutes are purged.

Without ZooKeeper (a lone broker) the ACLs are the file ``acls.json`` in the first log dir:
``{"version":1,"resources":[{"resourceType":"Topic","patternType":"LITERAL","name":"t",
"acls":[...Kafka's entries...]}]}``, rewritten whole (temporary file, fsync, rename) at each
change. Its per-resource versions are kept in memory only (one writer: this broker).

Every method here blocks (ZooKeeper round trips, file I/O): the authorizer calls them off the
event loop.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from kazoo.exceptions import BadVersionError, NodeExistsError, NoNodeError, NotEmptyError

from coordinator.acl_model import (
    SUPPORTED_RESOURCE_TYPES,
    AccessControlEntry,
    PatternType,
    ResourcePattern,
    decode_acls,
    encode_acls,
    parse_pattern_type,
    parse_resource_type,
)
from coordinator.zk_change_notifications import ZkChangeNotificationListener
from coordinator.zookeeper import ZooKeeperClient, get_children, get_many

log = logging.getLogger(__name__)

UNKNOWN_VERSION = -1  # ZkVersion.UnknownVersion: the resource has no znode
ACL_FILE = "acls.json"

LITERAL_ACL_PATH = "/kafka-acl"
EXTENDED_ACL_PATH = "/kafka-acl-extended"
LITERAL_CHANGES_PATH = "/kafka-acl-changes"
EXTENDED_CHANGES_PATH = "/kafka-acl-extended-changes"
CHANGE_PREFIX = "acl_changes_"

VersionedAcls = tuple[frozenset[AccessControlEntry], int]


class AclStore(Protocol):
    """The authorizer's persistence (blocking calls)."""

    def load_all(self) -> dict[ResourcePattern, VersionedAcls]: ...

    def read(self, resource: ResourcePattern) -> VersionedAcls: ...

    def write(
        self, resource: ResourcePattern, acls: frozenset[AccessControlEntry], version: int
    ) -> int | None:
        """Store ``acls`` (none: remove the resource) if its version is still ``version``;
        the new version, or None when someone else changed it first."""
        ...

    def notify(self, resource: ResourcePattern) -> None: ...

    async def watch(self, on_change: Callable[[dict[ResourcePattern, VersionedAcls]], None]) -> None:
        """Call ``on_change`` (on the loop) with the new ACLs of resources other brokers change."""
        ...

    async def close(self) -> None: ...


def _base_path(pattern_type: PatternType) -> str:
    if pattern_type == PatternType.LITERAL:
        return LITERAL_ACL_PATH
    return f"{EXTENDED_ACL_PATH}/{pattern_type.name.lower()}"


def resource_path(resource: ResourcePattern) -> str:
    """Kafka's ``ResourceZNode.path``."""
    return f"{_base_path(resource.pattern_type)}/{resource.resource_type.pascal}/{resource.name}"


def encode_change(resource: ResourcePattern) -> tuple[str, bytes]:
    """(notification path prefix, data): ``LiteralAclChangeStore`` / ``ExtendedAclChangeStore``."""
    if resource.pattern_type == PatternType.LITERAL:
        return (
            f"{LITERAL_CHANGES_PATH}/{CHANGE_PREFIX}",
            f"{resource.resource_type.name}:{resource.name}".encode(),
        )
    data = {
        "version": 1,
        "resourceType": resource.resource_type.name,
        "name": resource.name,
        "patternType": resource.pattern_type.name,
    }
    return f"{EXTENDED_CHANGES_PATH}/{CHANGE_PREFIX}", json.dumps(data, separators=(",", ":")).encode()


def decode_change(changes_path: str, data: bytes) -> ResourcePattern | None:
    """The resource a notification names, None if unreadable."""
    try:
        if changes_path == LITERAL_CHANGES_PATH:
            type_name, sep, name = data.decode().partition(":")
            if not sep:
                return None
            return ResourcePattern(parse_resource_type(type_name), name, PatternType.LITERAL)
        obj = json.loads(data)
        if obj.get("version") != 1:
            return None
        return ResourcePattern(
            parse_resource_type(obj["resourceType"]), str(obj["name"]), parse_pattern_type(obj["patternType"])
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class ZkAclStore:
    """ACLs in ZooKeeper, shared by every broker of the cluster."""

    def __init__(self, zk: ZooKeeperClient, *, time_ms: Callable[[], int]) -> None:
        self.zk = zk
        self.time_ms = time_ms
        self._listeners: list[ZkChangeNotificationListener] = []

    def create_paths(self) -> None:
        """Kafka's ``KafkaZkClient.createAclPaths``."""
        kz = self.zk._client()
        for pattern_type in (PatternType.LITERAL, PatternType.PREFIXED):
            for resource_type in SUPPORTED_RESOURCE_TYPES:
                with contextlib.suppress(NodeExistsError):
                    kz.ensure_path(f"{_base_path(pattern_type)}/{resource_type.pascal}")
        for path in (LITERAL_CHANGES_PATH, EXTENDED_CHANGES_PATH):
            with contextlib.suppress(NodeExistsError):
                kz.ensure_path(path)

    def load_all(self) -> dict[ResourcePattern, VersionedAcls]:
        """Kafka's ``AclAuthorizer.loadAllAcls``: every resource znode of both stores."""
        self.create_paths()
        resources: list[ResourcePattern] = []
        for pattern_type in (PatternType.LITERAL, PatternType.PREFIXED):
            base = _base_path(pattern_type)
            for type_name in get_children(self.zk, base):
                try:
                    resource_type = parse_resource_type(type_name)
                except ValueError:
                    log.warning("ignoring ACLs of unknown resource type %s", type_name)
                    continue
                for name in get_children(self.zk, f"{base}/{type_name}"):
                    resources.append(ResourcePattern(resource_type, name, pattern_type))
        return self._read_many(resources)

    def _read_many(self, resources: list[ResourcePattern]) -> dict[ResourcePattern, VersionedAcls]:
        found = get_many(self.zk, [resource_path(r) for r in resources])
        out: dict[ResourcePattern, VersionedAcls] = {}
        for resource, node in zip(resources, found, strict=True):
            if node is None:
                out[resource] = (frozenset(), UNKNOWN_VERSION)
                continue
            try:
                out[resource] = (decode_acls(node[0]), node[1].version)
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("ignoring unreadable ACLs of %s: %s", resource, exc)
                out[resource] = (frozenset(), node[1].version)
        return out

    def read(self, resource: ResourcePattern) -> VersionedAcls:
        return self._read_many([resource])[resource]

    def write(
        self, resource: ResourcePattern, acls: frozenset[AccessControlEntry], version: int
    ) -> int | None:
        path = resource_path(resource)
        try:
            if not acls:
                if version == UNKNOWN_VERSION:
                    return UNKNOWN_VERSION
                self.zk._wait(self.zk._client().delete_async(path, version=version), f"delete {path}")
                return UNKNOWN_VERSION
            if version == UNKNOWN_VERSION:
                stat = self.zk._wait(
                    self.zk._client().create_async(path, encode_acls(acls), makepath=True, include_data=True),
                    f"create {path}",
                )[1]
                return stat.version
            return self.zk.set_data(path, encode_acls(acls), version).version
        except (BadVersionError, NoNodeError, NodeExistsError, NotEmptyError):
            return None

    def notify(self, resource: ResourcePattern) -> None:
        prefix, data = encode_change(resource)
        self.zk._client().create(prefix, data, sequence=True, makepath=True)

    # ------------------------------------------------------------------ change notifications

    async def watch(self, on_change: Callable[[dict[ResourcePattern, VersionedAcls]], None]) -> None:
        """Process the pending notifications of both change stores, then follow new ones (Kafka's
        ``AclAuthorizer`` starts one ``ZkNodeChangeNotificationListener`` per ``ZkAclChangeStore``)."""
        for changes_path in (LITERAL_CHANGES_PATH, EXTENDED_CHANGES_PATH):
            listener = ZkChangeNotificationListener(
                self.zk,
                changes_path,
                CHANGE_PREFIX,
                _AclChangeHandler(self, changes_path, on_change),
                time_ms=self.time_ms,
                name="ACL",
            )
            self._listeners.append(listener)
            await listener.start()

    async def close(self) -> None:
        for listener in self._listeners:
            await listener.close()


class _AclChangeHandler:
    """Kafka's ``AclChangedNotificationHandler`` for one change store: re-reads the resources
    its notifications name and hands their ACLs to the authorizer."""

    def __init__(
        self,
        store: ZkAclStore,
        changes_path: str,
        on_change: Callable[[dict[ResourcePattern, VersionedAcls]], None],
    ) -> None:
        self.store = store
        self.changes_path = changes_path
        self.on_change = on_change

    def read_changes(self, notifications: list[tuple[str, bytes]]) -> dict[ResourcePattern, VersionedAcls]:
        resources: list[ResourcePattern] = []
        for child, data in notifications:
            resource = decode_change(self.changes_path, data)
            if resource is None:
                log.warning("ignoring unreadable ACL change notification %s/%s", self.changes_path, child)
            elif resource not in resources:
                resources.append(resource)
        return self.store._read_many(resources) if resources else {}

    def apply_changes(self, changes: dict[ResourcePattern, VersionedAcls]) -> None:
        if changes:
            self.on_change(changes)


class FileAclStore:
    """ACLs of a lone broker, in one JSON file (format in the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._acls: dict[ResourcePattern, frozenset[AccessControlEntry]] = {}
        self._versions: dict[ResourcePattern, int] = {}

    def load_all(self) -> dict[ResourcePattern, VersionedAcls]:
        self._acls = {}
        if self.path.exists():
            obj = json.loads(self.path.read_bytes() or b"{}")
            if obj and obj.get("version") != 1:
                raise ValueError(f"{self.path}: unsupported version {obj.get('version')!r}")
            for item in obj.get("resources", []):
                resource = ResourcePattern(
                    parse_resource_type(item["resourceType"]),
                    str(item["name"]),
                    parse_pattern_type(item["patternType"]),
                )
                acls = frozenset(AccessControlEntry.from_json(e) for e in item.get("acls", []))
                if acls:
                    self._acls[resource] = acls
        self._versions = dict.fromkeys(self._acls, 0)
        return {r: (a, 0) for r, a in self._acls.items()}

    def read(self, resource: ResourcePattern) -> VersionedAcls:
        return self._acls.get(resource, frozenset()), self._versions.get(resource, UNKNOWN_VERSION)

    def write(
        self, resource: ResourcePattern, acls: frozenset[AccessControlEntry], version: int
    ) -> int | None:
        if self._versions.get(resource, UNKNOWN_VERSION) != version:
            return None
        if acls:
            self._acls[resource] = acls
            self._versions[resource] = new_version = version + 1
        else:
            self._acls.pop(resource, None)
            self._versions.pop(resource, None)
            new_version = UNKNOWN_VERSION
        self._save()
        return new_version

    def _save(self) -> None:
        doc = {
            "version": 1,
            "resources": [
                {
                    "resourceType": r.resource_type.pascal,
                    "patternType": r.pattern_type.name,
                    "name": r.name,
                    "acls": [e.to_json() for e in sorted(acls)],
                }
                for r, acls in sorted(self._acls.items())
            ],
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(json.dumps(doc, indent=1).encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def notify(self, resource: ResourcePattern) -> None:
        """One broker reads this file: nobody to notify."""

    async def watch(self, on_change: Callable[[dict[ResourcePattern, VersionedAcls]], None]) -> None:
        """One broker writes this file: no change comes from elsewhere."""

    async def close(self) -> None:
        pass
