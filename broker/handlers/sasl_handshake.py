"""SaslHandshake (key 17), versions 0-1.

Behaviour: every listener of this broker is PLAINTEXT, where a SaslHandshake
is answered as Kafka's ``KafkaApis.handleSaslHandshakeRequest`` answers it on
an already-authenticated (or plaintext) channel: ILLEGAL_SASL_STATE (34) and
an empty mechanism list. A client configured for SASL_PLAINTEXT against this
broker thus fails at once with a named error (kafka-python: "SaslHandshake
failed: IllegalSaslStateError"; librdkafka and the Java client likewise)
instead of seeing its connection dropped.

Version notes: v1 announces that the SASL tokens that follow are framed as
SaslAuthenticate requests (KIP-152); the answer here is the same for both.

Not implemented: SASL itself (no SASL_PLAINTEXT or SASL_SSL listener, no
mechanism, no SaslAuthenticate).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, SaslHandshakeRequest, SaslHandshakeResponse


@handler(ApiKey.SASL_HANDSHAKE, versions=(0, 1))
def handle_sasl_handshake(ctx: RequestContext, request: SaslHandshakeRequest) -> SaslHandshakeResponse:
    return SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms=[])
