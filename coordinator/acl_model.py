"""ACL vocabulary: Kafka's ``ResourceType``, ``PatternType``, ``AclOperation``,
``AclPermissionType`` (their wire codes), ``ResourcePattern``, ``AccessControlEntry``,
``AclBinding`` and the filters of DescribeAcls/DeleteAcls, with Kafka's names and matching
rules (``org.apache.kafka.common.acl`` / ``common.resource``) and the JSON an ACL set has in
ZooKeeper (``AclEntry.toJsonCompatibleMap``: ``{"version":1,"acls":[{"principal":..,
"permissionType":"Allow","operation":"Read","host":"*"}]}``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from enum import IntEnum
from typing import NamedTuple

from coordinator.principal import KafkaPrincipal

CLUSTER_NAME = "kafka-cluster"  # Resource.CLUSTER_NAME, the one name of the Cluster resource
WILDCARD_RESOURCE = "*"  # ResourcePattern.WILDCARD_RESOURCE (a literal pattern matching every name)
WILDCARD_PRINCIPAL = "User:*"  # AclEntry.WildcardPrincipalString
WILDCARD_HOST = "*"


def _pascal(name: str) -> str:
    """``TRANSACTIONAL_ID`` -> ``TransactionalId`` (Kafka's ``SecurityUtils.toPascalCase``)."""
    return "".join(part.capitalize() for part in name.split("_"))


class ResourceType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7

    @property
    def pascal(self) -> str:
        return _pascal(self.name)


class PatternType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14

    @property
    def pascal(self) -> str:
        return _pascal(self.name)


class AclPermissionType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3

    @property
    def pascal(self) -> str:
        return _pascal(self.name)


# The resource types this broker authorizes (no delegation tokens or user resources).
SUPPORTED_RESOURCE_TYPES = (
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.CLUSTER,
    ResourceType.TRANSACTIONAL_ID,
)

# AclEntry.supportedOperations: the operations that mean something on each resource type
# (also the bits of the KIP-430 authorized-operations fields).
SUPPORTED_OPERATIONS: dict[ResourceType, tuple[AclOperation, ...]] = {
    ResourceType.TOPIC: (
        AclOperation.READ,
        AclOperation.WRITE,
        AclOperation.CREATE,
        AclOperation.DESCRIBE,
        AclOperation.DELETE,
        AclOperation.ALTER,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
    ),
    ResourceType.GROUP: (AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE),
    ResourceType.CLUSTER: (
        AclOperation.CREATE,
        AclOperation.CLUSTER_ACTION,
        AclOperation.DESCRIBE_CONFIGS,
        AclOperation.ALTER_CONFIGS,
        AclOperation.IDEMPOTENT_WRITE,
        AclOperation.ALTER,
        AclOperation.DESCRIBE,
    ),
    ResourceType.TRANSACTIONAL_ID: (AclOperation.DESCRIBE, AclOperation.WRITE),
}

# AclAuthorizer.authorizeAction: an Allow of any of these grants the key operation.
IMPLYING_OPERATIONS: dict[AclOperation, frozenset[AclOperation]] = {
    AclOperation.DESCRIBE: frozenset(
        {
            AclOperation.DESCRIBE,
            AclOperation.READ,
            AclOperation.WRITE,
            AclOperation.DELETE,
            AclOperation.ALTER,
        }
    ),
    AclOperation.DESCRIBE_CONFIGS: frozenset({AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS}),
}


def _parse_named(enum: type[IntEnum], text: str) -> IntEnum:
    """Kafka's ``fromString``: the enum name in any case, with or without underscores."""
    wanted = text.strip().upper().replace("_", "")
    for member in enum:
        if member.name.replace("_", "") == wanted:
            return member
    raise ValueError(f"unknown {enum.__name__} {text!r}")


def parse_resource_type(text: str) -> ResourceType:
    return ResourceType(_parse_named(ResourceType, text))


def parse_pattern_type(text: str) -> PatternType:
    return PatternType(_parse_named(PatternType, text))


class ResourcePattern(NamedTuple):
    resource_type: ResourceType
    name: str
    pattern_type: PatternType

    def __str__(self) -> str:
        return f"{self.resource_type.pascal}:{self.pattern_type.name}:{self.name}"


class AccessControlEntry(NamedTuple):
    principal: str  # "User:alice", or "User:*" for every principal
    host: str  # a client IP address or "*"
    operation: AclOperation
    permission_type: AclPermissionType

    def to_json(self) -> dict[str, str]:
        return {
            "principal": self.principal,
            "permissionType": self.permission_type.pascal,
            "operation": self.operation.pascal,
            "host": self.host,
        }

    @classmethod
    def from_json(cls, obj: dict) -> AccessControlEntry:
        return cls(
            str(obj["principal"]),
            str(obj["host"]),
            AclOperation(_parse_named(AclOperation, str(obj["operation"]))),
            AclPermissionType(_parse_named(AclPermissionType, str(obj["permissionType"]))),
        )


class AclBinding(NamedTuple):
    pattern: ResourcePattern
    entry: AccessControlEntry


def encode_acls(entries: Iterable[AccessControlEntry]) -> bytes:
    """An ACL set as Kafka's ``ResourceZNode.encode`` writes it (sorted, for stable bytes)."""
    return json.dumps(
        {"version": 1, "acls": [e.to_json() for e in sorted(entries)]}, separators=(",", ":")
    ).encode()


def decode_acls(data: bytes) -> frozenset[AccessControlEntry]:
    """Kafka's ``AclEntry.fromBytes``: empty data is no ACL; an unknown version is an error."""
    if not data:
        return frozenset()
    obj = json.loads(data)
    if not isinstance(obj, dict) or obj.get("version") != 1:
        raise ValueError(f"unsupported ACL JSON {data[:80]!r}")
    return frozenset(AccessControlEntry.from_json(e) for e in obj.get("acls", []))


def binding_problem(binding: AclBinding) -> str | None:
    """Why an ACL cannot be created (Kafka: CreateAclsRequest/AclBinding/AclApis validation,
    answered INVALID_REQUEST), or None."""
    pattern, entry = binding
    if pattern.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        return "ACL binding contains unknown elements"
    if pattern.resource_type not in SUPPORTED_RESOURCE_TYPES:
        return f"resource type {pattern.resource_type.pascal} is not supported by this broker"
    if pattern.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        return "ACL binding contains unknown elements"
    if entry.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        return "ACL binding contains unknown elements"
    if entry.permission_type in (AclPermissionType.UNKNOWN, AclPermissionType.ANY):
        return "ACL binding contains unknown elements"
    if pattern.resource_type == ResourceType.CLUSTER and pattern.name != CLUSTER_NAME:
        return f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}"
    if not pattern.name:
        return "Invalid empty resource name"
    if "/" in pattern.name:
        return f"ACL binding contains invalid resource name: {pattern.name}"
    try:
        KafkaPrincipal.parse(entry.principal)
    except ValueError as exc:
        return str(exc)
    if not entry.host:
        return "ACL binding contains an empty host"
    return None


class AclBindingFilter(NamedTuple):
    """A DescribeAcls/DeleteAcls filter: None and ANY match everything; pattern type MATCH
    matches the patterns that would apply to the named resource (Kafka's
    ``ResourcePatternFilter`` and ``AccessControlEntryFilter``)."""

    resource_type: ResourceType
    name: str | None
    pattern_type: PatternType
    principal: str | None
    host: str | None
    operation: AclOperation
    permission_type: AclPermissionType

    @classmethod
    def from_wire(
        cls,
        resource_type: int,
        name: str | None,
        pattern_type: int,
        principal: str | None,
        host: str | None,
        operation: int,
        permission_type: int,
    ) -> AclBindingFilter:
        """A filter from a request's codes (an unknown code becomes UNKNOWN, see ``problem``)."""
        return cls(
            ResourceType(coerce_enum(ResourceType, resource_type)),
            name,
            PatternType(coerce_enum(PatternType, pattern_type)),
            principal,
            host,
            AclOperation(coerce_enum(AclOperation, operation)),
            AclPermissionType(coerce_enum(AclPermissionType, permission_type)),
        )

    def problem(self) -> str | None:
        """Kafka's ``AclBindingFilter.isUnknown`` (an UNKNOWN element): INVALID_REQUEST."""
        if (
            self.resource_type == ResourceType.UNKNOWN
            or self.pattern_type == PatternType.UNKNOWN
            or self.operation == AclOperation.UNKNOWN
            or self.permission_type == AclPermissionType.UNKNOWN
        ):
            return "The filter contains UNKNOWN elements"
        return None

    def matches_pattern(self, pattern: ResourcePattern) -> bool:
        if self.resource_type != ResourceType.ANY and self.resource_type != pattern.resource_type:
            return False
        if (
            self.pattern_type not in (PatternType.ANY, PatternType.MATCH)
            and self.pattern_type != pattern.pattern_type
        ):
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        # MATCH: the patterns that apply to the resource named here
        if pattern.pattern_type == PatternType.LITERAL:
            return pattern.name in (self.name, WILDCARD_RESOURCE)
        return self.name.startswith(pattern.name)

    def matches_entry(self, entry: AccessControlEntry) -> bool:
        return (
            (self.principal is None or self.principal == entry.principal)
            and (self.host is None or self.host == entry.host)
            and (self.operation == AclOperation.ANY or self.operation == entry.operation)
            and (
                self.permission_type == AclPermissionType.ANY or self.permission_type == entry.permission_type
            )
        )

    def exact_patterns(self) -> list[ResourcePattern]:
        """The patterns the filter names exactly (Kafka's ``matchesAtMostOne`` and
        ``filterToResources``): an ACL there may not be in this broker's cache yet."""
        if self.name is None or self.resource_type in (ResourceType.ANY, ResourceType.UNKNOWN):
            return []
        if self.pattern_type in (PatternType.LITERAL, PatternType.PREFIXED):
            return [ResourcePattern(self.resource_type, self.name, self.pattern_type)]
        if self.pattern_type == PatternType.ANY:
            return [
                ResourcePattern(self.resource_type, self.name, PatternType.LITERAL),
                ResourcePattern(self.resource_type, self.name, PatternType.PREFIXED),
            ]
        return []


def coerce_enum(enum: type[IntEnum], code: int) -> IntEnum:
    """A wire code as the enum member, UNKNOWN for a code this broker does not know."""
    try:
        return enum(code)
    except ValueError:
        return enum(0)
