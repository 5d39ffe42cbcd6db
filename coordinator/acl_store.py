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
  watches both (Kafka's ``ZkNodeChangeNotificationListener``), re-reads the named resource
  and updates its cache; notifications older than 15 minutes are purged.

Without ZooKeeper (a lone broker) the ACLs are the file ``acls.json`` in the first log dir:
``{"version":1,"resources":[{"resourceType":"Topic","patternType":"LITERAL","name":"t",
"acls":[...Kafka's entries...]}]}``, rewritten whole (temporary file, fsync, rename) at each
change. Its per-resource versions are kept in memory only (one writer: this broker).

Every method here blocks (ZooKeeper round trips, file I/O): the authorizer calls them off the
event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

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
from coordinator.zookeeper import ZooKeeperClient, get_children, get_many

log = logging.getLogger(__name__)

UNKNOWN_VERSION = -1  # ZkVersion.UnknownVersion: the resource has no znode
ACL_FILE = "acls.json"

LITERAL_ACL_PATH = "/kafka-acl"
EXTENDED_ACL_PATH = "/kafka-acl-extended"
LITERAL_CHANGES_PATH = "/kafka-acl-changes"
EXTENDED_CHANGES_PATH = "/kafka-acl-extended-changes"
CHANGE_PREFIX = "acl_changes_"
CHANGE_EXPIRATION_MS = 15 * 60 * 1000  # ZkNodeChangeNotificationListener's changeExpirationMs

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
        self._last_change: dict[str, int] = {LITERAL_CHANGES_PATH: -1, EXTENDED_CHANGES_PATH: -1}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_change: Callable[[dict[ResourcePattern, VersionedAcls]], None] | None = None
        self._task: asyncio.Task | None = None
        self._again = False
        self._closed = False

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
        """Process the pending notifications, then follow new ones (and reconnections)."""
        self._loop = asyncio.get_running_loop()
        self._on_change = on_change
        self.zk.add_connection_listener(self._schedule_threadsafe)
        await self._process()

    async def close(self) -> None:
        self._closed = True
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _on_watch(self, event: Any) -> None:
        if event.type != "NONE":
            self._schedule_threadsafe()

    def _schedule_threadsafe(self) -> None:
        loop = self._loop
        if loop is not None and not self._closed and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._schedule)

    def _schedule(self) -> None:
        if self._closed:
            return
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.get_running_loop().create_task(self._run(), name="acl-change-listener")

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self._process()
            except Exception as exc:  # ZooKeeper away: the reconnection schedules a new pass
                log.warning("cannot process ACL change notifications: %s", exc)
            if not self._again or self._closed:
                return

    async def _process(self) -> None:
        assert self._loop is not None and self._on_change is not None
        changed = await self._loop.run_in_executor(None, self._read_new_changes)
        if changed and not self._closed:
            self._on_change(changed)

    def _read_new_changes(self) -> dict[ResourcePattern, VersionedAcls]:
        """Blocking: the resources named by notifications not yet processed, with their ACLs
        read now; re-arms the watches and purges expired notifications."""
        resources: list[ResourcePattern] = []
        for changes_path in (LITERAL_CHANGES_PATH, EXTENDED_CHANGES_PATH):
            children = get_children(self.zk, changes_path, watch=self._on_watch)
            last = self._last_change[changes_path]
            pending = sorted((seq, c) for c in children if (seq := _sequence(c)) > last)
            notes = get_many(self.zk, [f"{changes_path}/{c}" for _, c in pending])
            horizon = self.time_ms() - CHANGE_EXPIRATION_MS
            for (_, child), note in zip(pending, notes, strict=True):
                if note is None:
                    continue
                resource = decode_change(changes_path, note[0])
                if resource is None:
                    log.warning("ignoring unreadable ACL change notification %s/%s", changes_path, child)
                elif resource not in resources:
                    resources.append(resource)
                if note[1].ctime < horizon:
                    with contextlib.suppress(NoNodeError):
                        self.zk._client().delete(f"{changes_path}/{child}")
            if pending:
                self._last_change[changes_path] = pending[-1][0]
        return self._read_many(resources) if resources else {}


def _sequence(child: str) -> int:
    try:
        return int(child.removeprefix(CHANGE_PREFIX))
    except ValueError:
        return -1


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
