"""SaslAuthenticate (key 36), versions 0-2 (KIP-152).

Behaviour (Kafka's ``SaslServerAuthenticator.handleSaslToken``): after a SaslHandshake v1 on
a SASL listener each request carries one SASL token of the client, the response the
server's next token. When the exchange completes the connection is authenticated as
``User:<name>`` (the principal the authorizer sees). A failed exchange is answered
SASL_AUTHENTICATION_FAILED with a message, then the connection is closed. Outside an
exchange (authenticated already, or a PLAINTEXT/SSL listener) the answer is
ILLEGAL_SASL_STATE ("SaslAuthenticate request received after successful authentication",
``KafkaApis.handleSaslAuthenticateRequest``).

Version notes: v1 adds ``session_lifetime_ms`` (KIP-368: ``connections.max.reauth.ms``, 0 when
sessions do not expire); a client sending v1+ is one that re-authenticates. v2 is the
flexible version.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from protocol.messages import ApiKey, SaslAuthenticateRequest, SaslAuthenticateResponse


@handler(ApiKey.SASL_AUTHENTICATE, versions=(0, 2))
def handle_sasl_authenticate(
    ctx: RequestContext, request: SaslAuthenticateRequest
) -> SaslAuthenticateResponse:
    return ctx.authenticator.authenticate(bytes(request.auth_bytes), ctx.api_version)
