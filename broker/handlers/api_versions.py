"""ApiVersions (key 18), versions 0-4.

Behaviour:
- Advertises exactly the handlers this broker serves (the registry less the APIs whose
  ``served_when`` is false, e.g. the controller-to-broker APIs outside ZooKeeper mode):
  each API key with the range its handler serves (Produce from 0 although v0-2 are
  refused, KAFKA-18659).
- A version above 4 never reaches this handler: the connection layer answers it
  with a v0-encoded response carrying UNSUPPORTED_VERSION and the ApiVersions
  range (KIP-511), so clients retry with a version we speak.
- v3+: ClientSoftwareName / ClientSoftwareVersion must match Kafka's pattern
  ``[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?`` (``ApiVersionsRequest.isValid``),
  else INVALID_REQUEST (42) with no API keys.
- The response header is always v0 (KIP-511); the server takes care of that.

Version notes: v1 adds throttle_time_ms; v3 is flexible and adds the client
software fields and the feature tags; v4 allows SupportedFeatures.MinVersion 0.

Not implemented: supported / finalized features (sent empty, epoch -1): this
broker has no feature flags.
"""

from __future__ import annotations

import re

from broker.handlers import HandlerSpec, RequestContext, handler
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ApiVersionsRequest, ApiVersionsResponse

_SOFTWARE = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")  # fullmatch: Java's matches()


def advertised_api_keys(served: dict[int, HandlerSpec]) -> list[ApiVersionsResponse.ApiVersion]:
    return [
        ApiVersionsResponse.ApiVersion(
            api_key=s.api_key, min_version=s.advertised_min, max_version=s.max_version
        )
        for _, s in sorted(served.items())
    ]


@handler(ApiKey.API_VERSIONS, versions=(0, 4))
def handle_api_versions(ctx: RequestContext, request: ApiVersionsRequest) -> ApiVersionsResponse:
    if ctx.api_version >= 3 and not (
        _SOFTWARE.fullmatch(request.client_software_name)
        and _SOFTWARE.fullmatch(request.client_software_version)
    ):
        return ApiVersionsResponse(error_code=ErrorCode.INVALID_REQUEST.code)
    return ApiVersionsResponse(
        error_code=ErrorCode.NONE.code, api_keys=advertised_api_keys(ctx.broker.server.handlers)
    )
