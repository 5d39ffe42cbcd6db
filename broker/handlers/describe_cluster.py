"""DescribeCluster (key 60), versions 0-1.

Behaviour: from the broker's MetadataCache (Kafka's ``handleDescribeCluster``): the
cluster id, the controller id, and every alive broker with its endpoint on the listener the
request came in on (brokers without that listener are left out). Authorized
operations on request (KIP-430): what the principal may do on the cluster, 0 without
Describe on it (no authorizer: everything a cluster supports).
An endpoint_type of 2 (controllers, KIP-919) sent to a broker answers
MISMATCHED_ENDPOINT_TYPE, as Kafka's brokers do, any other but 1 UNSUPPORTED_ENDPOINT_TYPE; the
controller id is -1 when the controller has no endpoint on the request's listener (it is
not among the brokers listed).

Version notes: v1 adds endpoint_type. v2 (fenced brokers) is not served.
"""

from __future__ import annotations

from broker import authorized_operations as ops
from broker.handlers import RequestContext, handler
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DescribeClusterRequest, DescribeClusterResponse

BROKERS_ENDPOINT = 1
CONTROLLERS_ENDPOINT = 2  # KIP-919


@handler(ApiKey.DESCRIBE_CLUSTER, versions=(0, 1))
def handle_describe_cluster(ctx: RequestContext, request: DescribeClusterRequest) -> DescribeClusterResponse:
    # AuthHelper.computeDescribeClusterResponse: an endpoint type Kafka does not know, then
    # one of another kind, answer with every other field left at its default.
    if ctx.api_version >= 1 and request.endpoint_type not in (BROKERS_ENDPOINT, CONTROLLERS_ENDPOINT):
        return DescribeClusterResponse(
            error_code=ErrorCode.UNSUPPORTED_ENDPOINT_TYPE.code,
            error_message=f"Unsupported endpoint type {request.endpoint_type}",
        )
    if ctx.api_version >= 1 and request.endpoint_type != BROKERS_ENDPOINT:
        return DescribeClusterResponse(
            error_code=ErrorCode.MISMATCHED_ENDPOINT_TYPE.code,
            error_message="The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER",
        )
    cache = ctx.broker.metadata_cache
    brokers = [
        DescribeClusterResponse.DescribeClusterBroker(
            broker_id=b.broker_id, host=ep.host, port=ep.port, rack=b.rack
        )
        for b, ep in cache.alive_endpoints(ctx.listener)
    ]
    controller_id = cache.controller_id
    if all(b.broker_id != controller_id for b in brokers):
        controller_id = -1  # a controller the answer lists no endpoint of would confuse the client
    return DescribeClusterResponse(
        throttle_time_ms=0,
        error_code=0,
        endpoint_type=BROKERS_ENDPOINT,
        cluster_id=cache.cluster_id,
        controller_id=controller_id,
        brokers=brokers,
        cluster_authorized_operations=ops.cluster_if_describable(ctx)
        if request.include_cluster_authorized_operations
        else ops.NOT_REQUESTED,
    )
