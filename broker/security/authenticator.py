"""Authentication of one client connection (Kafka's ``SaslServerAuthenticator`` and the TLS
half of ``SslTransportLayer`` / ``DefaultKafkaPrincipalBuilder``).

PLAINTEXT: authenticated at once as ``User:ANONYMOUS``. SSL: authenticated when the TLS
handshake is done, as ``User:<certificate DN>`` (``User:ANONYMOUS`` without a client
certificate). SASL_PLAINTEXT / SASL_SSL: until the SASL exchange completes, only ApiVersions
and SaslHandshake are served (anything else closes the connection, Kafka's
"Unexpected Kafka request of type ... during SASL handshake"); after a SaslHandshake v1 only
SaslAuthenticate (KIP-152): any other request is answered with its error response
(ILLEGAL_SASL_STATE), then the connection is closed; after a v0 handshake the frames are raw
SASL tokens, answered with raw size-prefixed tokens (the pre-KIP-152 protocol). While the
exchange is under way, a frame larger than ``sasl.server.max.receive.size`` closes the
connection on its size prefix, before its body is buffered (``limit_frames``).

Failure: SaslAuthenticate is answered SASL_AUTHENTICATION_FAILED with a message (the
mechanism's own when it is safe to show, else Kafka's generic "Authentication failed during
authentication due to invalid credentials with SASL mechanism X"), then the connection is
closed; a raw-token exchange is just closed (those clients have no way to read an error).

Session lifetime (KIP-368): with ``connections.max.reauth.ms`` > 0 the SaslAuthenticate
response carries it as ``session_lifetime_ms``; a client that speaks SaslAuthenticate v1+
re-authenticates within it (a new SaslHandshake and SaslAuthenticate on the same connection,
same mechanism and principal, else SASL_AUTHENTICATION_FAILED); a request arriving after the
session expired closes the connection. Without a session lifetime (the default 0) there is no
re-authentication: a SaslHandshake on an authenticated connection is answered
ILLEGAL_SASL_STATE, as any SaslHandshake on a non-SASL listener.
"""

from __future__ import annotations

import logging
import math
import struct
from collections.abc import Callable
from typing import Any, Protocol

from broker.security.listener_security import ListenerSecurity
from broker.security.sasl_server import SaslAuthenticationError, SaslError, SaslServer
from broker.security.scram import CredentialLookup
from broker.security.ssl_factory import peer_principal_name
from coordinator.principal import ANONYMOUS, USER_TYPE, KafkaPrincipal
from protocol.errors import ErrorCode
from protocol.headers import (
    API_VERSIONS_KEY,
    decode_request_header,
    peek_request_header,
    response_header_bytes,
    response_header_version,
)
from protocol.messages import REQUESTS, RESPONSES, ApiKey, SaslAuthenticateResponse, SaslHandshakeResponse
from protocol.primitives import DecodeError, EncodeError

log = logging.getLogger(__name__)

_SIZE = struct.Struct(">i")
_HANDSHAKE_KEY = int(ApiKey.SASL_HANDSHAKE)
_AUTHENTICATE_KEY = int(ApiKey.SASL_AUTHENTICATE)

READY = "ready"  # authenticated
HANDSHAKE = "handshake"  # SASL: waiting for ApiVersions / SaslHandshake
AUTHENTICATE = "authenticate"  # SASL: SaslAuthenticate requests (KIP-152)
RAW_TOKENS = "raw_tokens"  # SASL: raw token frames (SaslHandshake v0)
FAILED = "failed"  # answered the failure; closing


class AuthenticationRefused(Exception):
    """The connection must be closed (``reason`` is logged); raised by ``screen``."""


class ClientConnection(Protocol):
    """What the authenticator needs of the connection (``broker.server.KafkaConnection``)."""

    def close(self, reason: str | None, *, level: int = ...) -> None: ...


class ConnectionAuthenticator:
    """One connection's authentication state; ``gated`` is false once nothing is left to check."""

    def __init__(
        self,
        listener: ListenerSecurity,
        credentials: CredentialLookup,
        monotonic: Callable[[], float],
        close_soon: Callable[[str], None],  # closes the connection shortly (after the response)
        # The connection's frame size limit while SASL authentication is under way (None: back
        # to socket.request.max.bytes), called when the state changes, never per frame.
        limit_frames: Callable[[int | None], None] | None = None,
    ) -> None:
        self.listener = listener
        self._credentials = credentials
        self._monotonic = monotonic
        self._close_soon = close_soon
        self._limit_frames = limit_frames
        self.principal: KafkaPrincipal = ANONYMOUS
        self.state = HANDSHAKE if listener.is_sasl else READY
        self.expires_at = math.inf  # monotonic seconds (KIP-368 session expiry)
        self.gated = self.state != READY
        self.mechanism = ""
        self._server: SaslServer | None = None
        self._reauthenticating = False
        self._supports_reauth = False  # the client spoke SaslAuthenticate v1+ (Kafka's test)
        self._bad_reauth_mechanism = ""
        self.reauthentications = 0  # completed KIP-368 re-authentications (tests, logs)
        if limit_frames is not None and self.gated:
            limit_frames(listener.max_receive_size)

    # ------------------------------------------------------------------ transport

    def connection_made(self, transport: Any) -> None:
        if self.listener.uses_client_certificates:
            dn = peer_principal_name(transport.get_extra_info("ssl_object"))
            if dn is not None:
                self.principal = KafkaPrincipal(USER_TYPE, dn)

    # ------------------------------------------------------------------ the gate

    def screen(self, frame: memoryview) -> bytes | None:
        """Before dispatch, while ``gated``: None lets the request through, bytes answer a raw
        SASL token; AuthenticationRefused means close."""
        state = self.state
        if state == RAW_TOKENS:
            return self._raw_token(bytes(frame))
        if state == FAILED:
            raise AuthenticationRefused("authentication failed")
        try:
            api_key = peek_request_header(frame)[0]
        except DecodeError:
            raise AuthenticationRefused("unreadable request header during SASL authentication") from None
        if state == READY:
            if self._monotonic() >= self.expires_at and api_key != _HANDSHAKE_KEY:
                raise AuthenticationRefused(
                    f"SASL session of {self.principal} expired (connections.max.reauth.ms)"
                )
            return None
        if len(frame) > self.listener.max_receive_size:
            raise AuthenticationRefused(
                f"request of {len(frame)} bytes during SASL authentication"
                f" (sasl.server.max.receive.size={self.listener.max_receive_size})"
            )
        if state == HANDSHAKE and api_key in (API_VERSIONS_KEY, _HANDSHAKE_KEY):
            return None
        if state == AUTHENTICATE and api_key == _AUTHENTICATE_KEY:
            return None
        phase = "handshake" if state == HANDSHAKE else "authentication"
        reason = f"Unexpected Kafka request of type {api_key} during SASL {phase}"
        if state == HANDSHAKE:
            # SaslServerAuthenticator.handleKafkaRequest: InvalidRequestException, closed unanswered.
            raise AuthenticationRefused(reason)
        # SaslServerAuthenticator.handleSaslToken: IllegalSaslStateException, the request's own
        # error response first (buildResponseOnAuthenticateFailure), then the connection closes.
        answer = _error_response(frame, ErrorCode.ILLEGAL_SASL_STATE)
        if answer is None:  # not a request Kafka could parse: closed at once
            raise AuthenticationRefused(reason)
        self._fail(reason)
        return answer

    def _update_gate(self) -> None:
        authenticated = self.state == READY
        self.gated = not authenticated or self.expires_at != math.inf
        if self._limit_frames is not None:
            self._limit_frames(None if authenticated else self.listener.max_receive_size)

    # ------------------------------------------------------------------ SaslHandshake

    def handshake(self, mechanism: str, version: int) -> SaslHandshakeResponse:
        listener = self.listener
        if self.state == READY:
            # KafkaChannel.maybeBeginServerReauthentication: no re-authentication for a session
            # without expiry (connections.max.reauth.ms=0); the handshake then reaches
            # KafkaApis.handleSaslHandshakeRequest: the channel is already authenticated.
            if not (
                listener.is_sasl and self._supports_reauth and version >= 1 and self.expires_at != math.inf
            ):
                return SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms=[])
            # KIP-368 re-authentication: the same mechanism, then SaslAuthenticate as before.
            self._reauthenticating = True
            self._bad_reauth_mechanism = mechanism if mechanism != self.mechanism else ""
        elif self.state != HANDSHAKE:
            return SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms=[])
        if mechanism not in listener.mechanisms:
            self._fail(f"Unsupported SASL mechanism {mechanism}")
            return SaslHandshakeResponse(
                error_code=ErrorCode.UNSUPPORTED_SASL_MECHANISM.code, mechanisms=list(listener.mechanisms)
            )
        if not self._reauthenticating:
            self.mechanism = mechanism
        self._server = listener.sasl_server(mechanism, self._credentials)
        self.state = AUTHENTICATE if version >= 1 else RAW_TOKENS
        self._update_gate()
        return SaslHandshakeResponse(error_code=ErrorCode.NONE.code, mechanisms=list(listener.mechanisms))

    # ------------------------------------------------------------------ SaslAuthenticate

    def authenticate(self, token: bytes, version: int) -> SaslAuthenticateResponse:
        if self.state != AUTHENTICATE:
            # KafkaApis.handleSaslAuthenticateRequest on an authenticated (or non-SASL) channel.
            return SaslAuthenticateResponse(
                error_code=ErrorCode.ILLEGAL_SASL_STATE.code,
                error_message="SaslAuthenticate request received after successful authentication",
            )
        self._supports_reauth = self._supports_reauth or version > 0
        try:
            answer = self._evaluate(token)
        except SaslError as exc:
            return self._failure_response(exc)
        assert self._server is not None
        lifetime_ms = self._complete() if self._server.is_complete else 0
        return SaslAuthenticateResponse(
            error_code=ErrorCode.NONE.code, auth_bytes=answer, session_lifetime_ms=lifetime_ms
        )

    def _evaluate(self, token: bytes) -> bytes:
        if self._bad_reauth_mechanism:
            raise SaslAuthenticationError(
                f"SASL mechanism '{self._bad_reauth_mechanism}' requested by client is not supported for"
                f" re-authentication of mechanism '{self.mechanism}'"
            )
        server = self._server
        assert server is not None
        answer = server.evaluate(token)
        if server.is_complete and self._reauthenticating:
            new = KafkaPrincipal(USER_TYPE, server.authorization_id)
            if new != self.principal:
                raise SaslAuthenticationError(
                    f"Cannot change principals during re-authentication from {self.principal.principal_type}"
                    f".{self.principal.name}: {new.principal_type}.{new.name}"
                )
        return answer

    def _complete(self) -> int:
        """Authenticated: the principal, the session expiry; returns the session lifetime (ms)."""
        server = self._server
        assert server is not None
        self.principal = KafkaPrincipal(USER_TYPE, server.authorization_id)
        lifetime_ms = self.listener.max_reauth_ms
        self.expires_at = self._monotonic() + lifetime_ms / 1000 if lifetime_ms > 0 else math.inf
        self.state = READY
        self._server = None
        if self._reauthenticating:
            self.reauthentications += 1
        self._reauthenticating = False
        self._update_gate()
        log.debug("authenticated as %s with %s", self.principal, self.mechanism)
        return lifetime_ms

    def _failure_response(self, exc: SaslError) -> SaslAuthenticateResponse:
        if isinstance(exc, SaslAuthenticationError):
            message = str(exc)
        else:
            # Kafka shows no SaslException text to the client: it may tell which users exist.
            phase = "re-authentication" if self._reauthenticating else "authentication"
            message = f"Authentication failed during {phase} due to invalid credentials with SASL mechanism {self.mechanism}"
        self._fail(f"{message} ({exc})")
        return SaslAuthenticateResponse(
            error_code=ErrorCode.SASL_AUTHENTICATION_FAILED.code, error_message=message
        )

    def _fail(self, reason: str) -> None:
        """The response is written, then the connection closes (later frames are refused)."""
        self.state = FAILED
        self._update_gate()
        self._close_soon(reason)

    # ------------------------------------------------------------------ raw tokens

    def _raw_token(self, token: bytes) -> bytes:
        server = self._server
        assert server is not None
        try:
            answer = self._evaluate(token)
        except SaslError as exc:
            self.state = FAILED
            self._update_gate()
            raise AuthenticationRefused(f"SASL authentication failed: {exc}") from None
        if server.is_complete:
            self._complete()
        return _SIZE.pack(len(answer)) + answer


def _error_response(frame: memoryview, error: ErrorCode) -> bytes | None:
    """The response frame answering the request in ``frame`` with ``error`` (Kafka's
    ``AbstractRequest.getErrorResponse``), or None if the request does not parse (unknown API
    key or version, a body that does not decode: Kafka's ``RequestContext.parseRequest`` fails).

    Generic: the response's top-level error code when it has one at that version, every other
    field its default (Kafka's getErrorResponse of a request without a top-level error code
    repeats the error for each entry asked; here the entries are left out).
    """
    try:
        api_key, version, correlation_id = peek_request_header(frame)
        request_cls, response_cls = REQUESTS.get(api_key), RESPONSES.get(api_key)
        if request_cls is None or response_cls is None:
            return None
        low, high = request_cls.VALID_VERSIONS
        if not low <= version <= high:
            return None
        _, pos = decode_request_header(frame)
        request_cls.decode(frame, version, pos, exact=False)
    except DecodeError:
        return None
    response = response_cls()
    for f in response_cls.FIELDS:
        if f.attr == "error_code" and f.versions is not None and f.versions[0] <= version <= f.versions[1]:
            response.error_code = error.code
    w = bytearray(4) + response_header_bytes(correlation_id, response_header_version(api_key, version))
    try:
        response.write(w, version)
    except EncodeError:
        return None
    _SIZE.pack_into(w, 0, len(w) - 4)
    return bytes(w)


def _no_close(reason: str) -> None:
    raise AssertionError(f"a PLAINTEXT connection never fails authentication: {reason}")


class _NoCredentials(CredentialLookup):
    def scram_credential(self, mechanism: str, username: str) -> None:
        return None


# A PLAINTEXT connection's authenticator (stateless: shared), also the RequestContext default.
PLAINTEXT_AUTHENTICATOR = ConnectionAuthenticator(
    ListenerSecurity("PLAINTEXT", "PLAINTEXT"), _NoCredentials(), lambda: 0.0, _no_close
)
