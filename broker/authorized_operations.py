"""Authorized-operations bit sets (KIP-430): Metadata, DescribeCluster and DescribeGroups.

Kafka answers ``include_*_authorized_operations`` with a bit per ``AclOperation`` code the
principal may do on the resource, among the operations the resource type supports
(``AuthHelper.authorizedOperations`` over ``AclEntry.supportedOperations``): each is asked of
the authorizer; without one every supported operation is allowed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordinator.acl_model import CLUSTER_NAME, SUPPORTED_OPERATIONS, AclOperation, ResourceType

if TYPE_CHECKING:
    from broker.handlers import RequestContext

NOT_REQUESTED = -(1 << 31)  # Integer.MIN_VALUE, the field's default


def authorized_operations(ctx: RequestContext, resource_type: ResourceType, name: str = CLUSTER_NAME) -> int:
    bits = 0
    for op in SUPPORTED_OPERATIONS[resource_type]:
        if ctx.authorize(op, resource_type, name, log_denied=False):
            bits |= 1 << op
    return bits


def topic(ctx: RequestContext, name: str) -> int:
    return authorized_operations(ctx, ResourceType.TOPIC, name)


def group(ctx: RequestContext, name: str) -> int:
    return authorized_operations(ctx, ResourceType.GROUP, name)


def cluster(ctx: RequestContext) -> int:
    return authorized_operations(ctx, ResourceType.CLUSTER)


def cluster_if_describable(ctx: RequestContext) -> int:
    """Metadata v8-v10 and DescribeCluster: the cluster's operations, 0 without Describe on it."""
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        return 0
    return cluster(ctx)
