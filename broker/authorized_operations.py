"""Authorized-operations bit sets (KIP-430) for a broker without an authorizer.

Kafka answers ``include_*_authorized_operations`` with a bit per
``AclOperation`` code; with no authorizer configured every operation that the
resource type supports is allowed (``KafkaApis`` / ``AclEntry.supportedOperations``).
"""

from __future__ import annotations

# AclOperation codes
READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 3, 4, 5, 6, 7, 8
CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE = 9, 10, 11, 12

NOT_REQUESTED = -(1 << 31)  # Integer.MIN_VALUE, the field's default


def _bits(*ops: int) -> int:
    return sum(1 << op for op in ops)


TOPIC = _bits(READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS)
CLUSTER = _bits(CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE)
GROUP = _bits(READ, DESCRIBE, DELETE)
