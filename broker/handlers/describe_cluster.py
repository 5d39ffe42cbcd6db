"""DescribeCluster (key 60), versions 0-1.

Behaviour: the cluster id, this broker as controller, and this broker's
advertised endpoint for the listener the request came in on. Authorized
operations on request (no authorizer: everything a cluster supports).
An endpoint_type of 2 (controllers, KIP-919) sent to a broker answers
MISMATCHED_ENDPOINT_TYPE, as Kafka's brokers do.

Version notes: v1 adds endpoint_type. v2 (fenced brokers) is not served.
"""

from __future__ import annotations

from broker import authorized_operations as ops
from broker.handlers import RequestContext, handler
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DescribeClusterRequest, DescribeClusterResponse

BROKERS_ENDPOINT = 1


@handler(ApiKey.DESCRIBE_CLUSTER, versions=(0, 1))
def handle_describe_cluster(ctx: RequestContext, request: DescribeClusterRequest) -> DescribeClusterResponse:
    broker = ctx.broker
    if ctx.api_version >= 1 and request.endpoint_type != BROKERS_ENDPOINT:
        return DescribeClusterResponse(
            error_code=ErrorCode.MISMATCHED_ENDPOINT_TYPE.code,
            error_message="The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER",
            endpoint_type=request.endpoint_type,
            cluster_id=broker.cluster_id,
        )
    endpoint = broker.endpoint_for(ctx.listener)
    return DescribeClusterResponse(
        throttle_time_ms=0,
        error_code=0,
        endpoint_type=BROKERS_ENDPOINT,
        cluster_id=broker.cluster_id,
        controller_id=broker.broker_id,
        brokers=[
            DescribeClusterResponse.DescribeClusterBroker(
                broker_id=broker.broker_id,
                host=endpoint.host,
                port=endpoint.port,
                rack=broker.config["broker.rack"],
            )
        ],
        cluster_authorized_operations=ops.CLUSTER
        if request.include_cluster_authorized_operations
        else ops.NOT_REQUESTED,
    )
