"""The ACL authorizer: Kafka's ``AclAuthorizer`` semantics over a cache of the stored ACLs.

``authorizer.class.name`` chooses it: empty (the default) means no authorization at all, as in
Kafka (every request is allowed; the ACL APIs answer SECURITY_DISABLED);
``kafka.security.authorizer.AclAuthorizer`` (ZooKeeper) and
``org.apache.kafka.metadata.authorizer.StandardAuthorizer`` (KRaft) both select this
authorizer, with the same rules; any other class is refused at start.

An action (principal, client host, operation, resource) is allowed when (``authorizeAction``):

1. the principal is one of ``super.users`` (``User:a;User:b``); otherwise
2. the ACLs that apply to the resource are collected: the literal ACLs of its name, the literal
   ACLs of the wildcard name ``*``, and the prefixed ACLs whose prefix starts the name; with
   none at all, ``allow.everyone.if.no.acl.found`` (default false) decides;
3. a Deny for the principal (or ``User:*``), the host (or ``*``) and the operation (or ``All``)
   refuses; else an Allow that matches the same way allows, where an Allow of Read, Write,
   Delete or Alter also grants Describe and an Allow of AlterConfigs grants DescribeConfigs.

A refused action is audited on ``kafka.authorizer.logger`` in ``AclAuthorizer.logAuditMessage``'s
words, ending with the request's API name and the action's reference count (the times the
request names the resource): INFO, or DEBUG for a check that only filters (``log_denied``).

``authorize_by_resource_type`` is Kafka's ``authorizeByResourceType`` (is the principal allowed
the operation on at least one resource of a type, with no Deny dominating it), used by
InitProducerId for idempotent producers (KIP-679).

Writes (CreateAcls, DeleteAcls) go through the store, conditionally on each resource's stored
version (retried on conflict, as ``updateResourceAcls``), one request at a time; the store
notifies the other brokers, whose caches follow (``coordinator.acl_store``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

from coordinator.acl_model import (
    IMPLYING_OPERATIONS,
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    WILDCARD_RESOURCE,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
    binding_problem,
)
from coordinator.acl_store import ACL_FILE, UNKNOWN_VERSION, AclStore, FileAclStore, VersionedAcls, ZkAclStore
from coordinator.principal import KafkaPrincipal
from coordinator.zookeeper import ZooKeeperClient
from protocol.messages import ApiKey

log = logging.getLogger(__name__)
audit = logging.getLogger("kafka.authorizer.logger")

# authorizer.class.name values that select the ACL authorizer.
ACL_AUTHORIZER_CLASSES = frozenset(
    {"kafka.security.authorizer.AclAuthorizer", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}
)
MAX_UPDATE_RETRIES = 10  # AclAuthorizer.maxUpdateRetries
_ALL_OPS = (AclOperation.ALL,)


class AclError(Exception):
    """A create or delete that failed; ``invalid`` ones are answered INVALID_REQUEST."""

    def __init__(self, message: str, *, invalid: bool = False) -> None:
        super().__init__(message)
        self.invalid = invalid


class Authorizer(Protocol):
    """What handlers ask; ``enabled`` is false when no authorizer is configured."""

    enabled: bool

    def authorize(
        self,
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
        *,
        log_denied: bool = True,
        api_key: int | None = None,
        ref_count: int = 1,
    ) -> bool: ...

    def audits(self, log_denied: bool) -> bool: ...

    def authorize_by_resource_type(
        self, principal: KafkaPrincipal, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> bool: ...

    def acls(self, acl_filter: AclBindingFilter) -> list[AclBinding]: ...

    async def create_acls(self, bindings: Sequence[AclBinding]) -> list[AclError | None]: ...

    async def delete_acls(
        self, filters: Sequence[AclBindingFilter]
    ) -> list[list[tuple[AclBinding, AclError | None]]]: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


class AllowAll:
    """No ``authorizer.class.name``: Kafka authorizes nothing, so everything is allowed."""

    enabled = False

    def authorize(
        self,
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
        *,
        log_denied: bool = True,
        api_key: int | None = None,
        ref_count: int = 1,
    ) -> bool:
        return True

    def audits(self, log_denied: bool) -> bool:
        return False

    def authorize_by_resource_type(
        self, principal: KafkaPrincipal, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> bool:
        return True

    def acls(self, acl_filter: AclBindingFilter) -> list[AclBinding]:
        return []

    async def create_acls(self, bindings: Sequence[AclBinding]) -> list[AclError | None]:
        raise AclError("No Authorizer is configured on the broker")

    async def delete_acls(
        self, filters: Sequence[AclBindingFilter]
    ) -> list[list[tuple[AclBinding, AclError | None]]]:
        raise AclError("No Authorizer is configured on the broker")

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass


def parse_super_users(text: str | None) -> frozenset[KafkaPrincipal]:
    """``super.users``: principals separated by semicolons (ValueError if one is malformed)."""
    if not text:
        return frozenset()
    return frozenset(KafkaPrincipal.parse(p.strip()) for p in text.split(";") if p.strip())


class AclAuthorizer:
    """Kafka's AclAuthorizer over an ``AclStore`` (ZooKeeper or a local file)."""

    enabled = True

    def __init__(
        self,
        store: AclStore,
        *,
        super_users: Iterable[KafkaPrincipal] = (),
        allow_everyone_if_no_acl_found: bool = False,
    ) -> None:
        self.store = store
        self.super_users = frozenset(super_users)
        self.allow_everyone_if_no_acl_found = allow_everyone_if_no_acl_found
        self._acls: dict[ResourcePattern, VersionedAcls] = {}
        # prefixed patterns by type, and the lengths of their prefixes (lookups per length)
        self._prefix_lengths: dict[ResourceType, frozenset[int]] = {}
        self._write_lock = asyncio.Lock()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Load every stored ACL, then follow the changes other brokers make."""
        loop = asyncio.get_running_loop()
        loaded = await loop.run_in_executor(None, self.store.load_all)
        self._apply(loaded)
        await self.store.watch(self._apply)
        log.info("ACL authorizer started with ACLs on %d resources", len(self._acls))

    async def close(self) -> None:
        await self.store.close()

    def _apply(self, changed: dict[ResourcePattern, VersionedAcls]) -> None:
        """``updateCache`` for each changed resource (on the loop)."""
        for resource, (acls, version) in changed.items():
            if acls:
                self._acls[resource] = (acls, version)
            else:
                self._acls.pop(resource, None)
        lengths: dict[ResourceType, set[int]] = defaultdict(set)
        for resource in self._acls:
            if resource.pattern_type == PatternType.PREFIXED:
                lengths[resource.resource_type].add(len(resource.name))
        self._prefix_lengths = {t: frozenset(ls) for t, ls in lengths.items()}

    # ------------------------------------------------------------------ authorization

    def matching_acls(self, resource_type: ResourceType, name: str) -> list[AccessControlEntry]:
        """Every ACL that applies to the resource, whoever it names (``matchingAcls``)."""
        out: list[AccessControlEntry] = []
        cache = self._acls
        literals = (WILDCARD_RESOURCE,) if name == WILDCARD_RESOURCE else (WILDCARD_RESOURCE, name)
        for literal in literals:
            found = cache.get(ResourcePattern(resource_type, literal, PatternType.LITERAL))
            if found is not None:
                out.extend(found[0])
        for length in self._prefix_lengths.get(resource_type, ()):
            if length <= len(name):
                found = cache.get(ResourcePattern(resource_type, name[:length], PatternType.PREFIXED))
                if found is not None:
                    out.extend(found[0])
        return out

    def authorize(
        self,
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
        *,
        log_denied: bool = True,
        api_key: int | None = None,
        ref_count: int = 1,
    ) -> bool:
        """``log_denied`` false for checks that only filter or describe (Kafka's ``logIfDenied``):
        their refusals are audited at DEBUG, not INFO. ``api_key`` (the request's) and
        ``ref_count`` (Kafka's ``Action.resourceReferenceCount``) only end the audit line."""
        if principal in self.super_users:
            return True
        acls = self.matching_acls(resource_type, name)
        if not acls:
            allowed = self.allow_everyone_if_no_acl_found
        else:
            who = (str(principal), WILDCARD_PRINCIPAL)
            hosts = (host, WILDCARD_HOST)
            denied = any(
                e.permission_type == AclPermissionType.DENY
                and e.principal in who
                and e.host in hosts
                and (e.operation == operation or e.operation == AclOperation.ALL)
                for e in acls
            )
            granting = IMPLYING_OPERATIONS.get(operation, (operation,))
            allowed = not denied and any(
                e.permission_type == AclPermissionType.ALLOW
                and e.principal in who
                and e.host in hosts
                and (e.operation in granting or e.operation == AclOperation.ALL)
                for e in acls
            )
        if not allowed and self.audits(log_denied):
            self._audit_denied(
                principal, host, operation, resource_type, name, log_denied, api_key, ref_count
            )
        return allowed

    def audits(self, log_denied: bool) -> bool:
        """Would a refusal be written to the audit log (callers count references only then)?"""
        return audit.isEnabledFor(logging.INFO if log_denied else logging.DEBUG)

    @staticmethod
    def _audit_denied(
        principal: KafkaPrincipal,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
        log_denied: bool,
        api_key: int | None,
        ref_count: int,
    ) -> None:
        """``AclAuthorizer.logAuditMessage`` for a refusal: the API is named as ``ApiKeys``
        does (its id when unknown); an action outside any request has no such tail."""
        level = logging.INFO if log_denied else logging.DEBUG
        line = "Principal = %s is Denied Operation = %s from host = %s on resource = %s:LITERAL:%s"
        args: tuple[object, ...] = (principal, operation.pascal, host, resource_type.pascal, name)
        if api_key is not None:
            try:
                api: object = ApiKey(api_key).name
            except ValueError:
                api = api_key
            line += " for request = %s with resourceRefCount = %d"
            args += (api, ref_count)
        audit.log(level, line, *args)

    def authorize_by_resource_type(
        self, principal: KafkaPrincipal, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> bool:
        """Kafka's ``AclAuthorizer.authorizeByResourceType``."""
        if principal in self.super_users:
            return True
        who = (str(principal), WILDCARD_PRINCIPAL)
        hosts = (host, WILDCARD_HOST)
        ops = (operation,) if operation == AclOperation.ALL else (operation, AclOperation.ALL)
        names: dict[tuple[AclPermissionType, PatternType], set[str]] = defaultdict(set)
        for resource, (acls, _) in self._acls.items():
            if resource.resource_type != resource_type:
                continue
            for e in acls:
                if e.principal in who and e.host in hosts and e.operation in ops:
                    names[(e.permission_type, resource.pattern_type)].add(resource.name)
        deny_literals = names[(AclPermissionType.DENY, PatternType.LITERAL)]
        deny_prefixes = names[(AclPermissionType.DENY, PatternType.PREFIXED)]
        allow_literals = names[(AclPermissionType.ALLOW, PatternType.LITERAL)]
        allow_prefixes = names[(AclPermissionType.ALLOW, PatternType.PREFIXED)]
        if WILDCARD_RESOURCE in deny_literals:
            return False
        if self.allow_everyone_if_no_acl_found:
            return True

        def dominated(name: str) -> bool:  # a Deny prefix covers this name
            return any(name[:n] in deny_prefixes for n in range(len(name) + 1))

        if any(not dominated(p) for p in allow_prefixes):
            return True
        return any(
            lit == WILDCARD_RESOURCE or (lit not in deny_literals and not dominated(lit))
            for lit in allow_literals
        )

    # ------------------------------------------------------------------ ACL management

    def acls(self, acl_filter: AclBindingFilter) -> list[AclBinding]:
        """The stored ACLs matching ``acl_filter`` (DescribeAcls), from this broker's cache."""
        return [
            AclBinding(resource, e)
            for resource, (acls, _) in sorted(self._acls.items())
            if acl_filter.matches_pattern(resource)
            for e in sorted(acls)
            if acl_filter.matches_entry(e)
        ]

    async def create_acls(self, bindings: Sequence[AclBinding]) -> list[AclError | None]:
        results: list[AclError | None] = [None] * len(bindings)
        by_resource: dict[ResourcePattern, list[int]] = defaultdict(list)
        for i, binding in enumerate(bindings):
            problem = binding_problem(binding)
            if problem is not None:
                results[i] = AclError(problem, invalid=True)
            else:
                by_resource[binding.pattern].append(i)
        async with self._write_lock:
            for resource, indexes in by_resource.items():
                new = frozenset(bindings[i].entry for i in indexes)
                try:
                    await self._update(resource, lambda current, new=new: current | new)
                except Exception as exc:
                    log.warning("cannot create ACLs on %s: %s", resource, exc)
                    for i in indexes:
                        results[i] = AclError(str(exc))
        return results

    async def delete_acls(
        self, filters: Sequence[AclBindingFilter]
    ) -> list[list[tuple[AclBinding, AclError | None]]]:
        deleted: list[dict[AclBinding, AclError | None]] = [{} for _ in filters]
        async with self._write_lock:
            resources = dict.fromkeys(self._acls)
            for f in filters:
                resources.update(dict.fromkeys(f.exact_patterns()))
            for resource in resources:
                matching = [(i, f) for i, f in enumerate(filters) if f.matches_pattern(resource)]
                if not matching:
                    continue
                removed: dict[AclBinding, int] = {}

                def remove(
                    current: frozenset[AccessControlEntry],
                    resource=resource,
                    matching=matching,
                    removed=removed,
                ):
                    removed.clear()
                    for e in current:
                        for i, f in matching:
                            if f.matches_entry(e):
                                removed.setdefault(AclBinding(resource, e), i)
                                break
                    return current - {b.entry for b in removed}

                error: AclError | None = None
                try:
                    await self._update(resource, remove)
                except Exception as exc:
                    log.warning("cannot delete ACLs of %s: %s", resource, exc)
                    error = AclError(str(exc))
                for binding, i in removed.items():
                    deleted[i][binding] = error
        return [sorted(d.items()) for d in deleted]

    async def _update(
        self,
        resource: ResourcePattern,
        change: Callable[[frozenset[AccessControlEntry]], frozenset[AccessControlEntry]],
    ) -> None:
        """``updateResourceAcls``: apply ``change`` to the stored ACLs of ``resource``, written
        conditionally on the version read (re-read and retried on a conflict), then cached
        and announced to the other brokers."""
        cached = self._acls.get(resource)
        loop = asyncio.get_running_loop()
        acls, version, changed = await loop.run_in_executor(
            None, self._update_blocking, resource, change, cached
        )
        self._apply({resource: (acls, version)})
        if changed:
            log.info("updated ACLs of %s: %d now", resource, len(acls))

    def _update_blocking(
        self,
        resource: ResourcePattern,
        change: Callable[[frozenset[AccessControlEntry]], frozenset[AccessControlEntry]],
        cached: VersionedAcls | None,
    ) -> tuple[frozenset[AccessControlEntry], int, bool]:
        current, version = cached if cached is not None else self.store.read(resource)
        for _ in range(MAX_UPDATE_RETRIES + 1):
            new = change(current)
            if not new and version == UNKNOWN_VERSION:
                return new, UNKNOWN_VERSION, False
            written = self.store.write(resource, new, version)
            if written is not None:
                if new != current:
                    self.store.notify(resource)
                return new, written, new != current
            time.sleep((100 + random.randrange(50)) / 1000)  # retryBackoffMs + jitter, off the loop
            current, version = self.store.read(resource)
        raise AclError(
            f"Failed to update ACLs for {resource} after trying a maximum of {MAX_UPDATE_RETRIES} times"
        )


def create_authorizer(
    class_name: str | None,
    *,
    super_users: str | None,
    allow_everyone_if_no_acl_found: bool,
    zookeeper: ZooKeeperClient | None,
    data_dir: Path,
    time_ms: Callable[[], int],
) -> Authorizer:
    """The authorizer ``authorizer.class.name`` asks for (ValueError for an unknown class)."""
    if not class_name:
        return AllowAll()
    if class_name not in ACL_AUTHORIZER_CLASSES:
        raise ValueError(
            f"authorizer.class.name: {class_name} is not supported (use one of {', '.join(sorted(ACL_AUTHORIZER_CLASSES))})"
        )
    store: AclStore = (
        ZkAclStore(zookeeper, time_ms=time_ms) if zookeeper is not None else FileAclStore(data_dir / ACL_FILE)
    )
    return AclAuthorizer(
        store,
        super_users=parse_super_users(super_users),
        allow_everyone_if_no_acl_found=allow_everyone_if_no_acl_found,
    )
