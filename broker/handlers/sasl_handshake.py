"""SaslHandshake (key 17), versions 0-1.

Behaviour (Kafka's ``SaslServerAuthenticator.handleHandshakeRequest``): on a SASL_PLAINTEXT or
SASL_SSL listener, before authentication, the client names its mechanism; if the listener
enables it (``sasl.enabled.mechanisms``) the answer is NONE with the enabled mechanisms and
the SASL exchange follows; otherwise UNSUPPORTED_SASL_MECHANISM with the enabled mechanisms,
and the connection is closed. On an authenticated connection a new handshake starts a
re-authentication (KIP-368) when the client has shown it supports it (SaslAuthenticate v1+);
otherwise, and on PLAINTEXT and SSL listeners, the answer is ILLEGAL_SASL_STATE with no
mechanisms (``KafkaApis.handleSaslHandshakeRequest``).

Version notes: v1 announces that the SASL tokens that follow are framed as SaslAuthenticate
requests (KIP-152); after v0 they come as raw size-prefixed frames (answered by the
connection's authenticator, see ``broker/security/authenticator.py``).

Not implemented: the GSSAPI and OAUTHBEARER mechanisms.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from protocol.messages import ApiKey, SaslHandshakeRequest, SaslHandshakeResponse


@handler(ApiKey.SASL_HANDSHAKE, versions=(0, 1))
def handle_sasl_handshake(ctx: RequestContext, request: SaslHandshakeRequest) -> SaslHandshakeResponse:
    return ctx.authenticator.handshake(request.mechanism, ctx.api_version)
