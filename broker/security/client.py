"""What this broker presents when it connects to other brokers (replica fetchers, controller
requests): the inter-broker listener's protocol (``inter.broker.listener.name``, else the
listener named after ``security.inter.broker.protocol``), its TLS client context (trust store,
key store for a client certificate, host name verification per
``ssl.endpoint.identification.algorithm``) and, on SASL, the mechanism
``sasl.mechanism.inter.broker.protocol`` with the ``username``/``password`` of that
listener's JAAS config for the mechanism (Kafka's client-side login modules).

``authenticate(exchange)`` runs the SASL exchange over a connection whose ApiVersions is
done: SaslHandshake v1 then SaslAuthenticate requests (KIP-152); it returns the session
lifetime the broker granted (KIP-368; 0: none).
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from broker.security import ssl_factory
from broker.security.jaas import single_module
from broker.security.plain import PLAIN
from broker.security.sasl_server import SaslError
from broker.security.scram import MECHANISMS as SCRAM_MECHANISMS
from broker.security.scram import ScramSaslClient
from protocol.messages import SaslAuthenticateRequest, SaslHandshakeRequest
from storage.config_def import ConfigError

# sends a request on the connection being set up and returns its decoded response
Exchange = Callable[[Any, int], Awaitable[Any]]


class InterBrokerAuthenticationError(Exception):
    """The other broker refused this broker's credentials (not retriable by reconnecting at once)."""


@dataclass(frozen=True)
class InterBrokerSecurity:
    listener: str
    protocol: str
    ssl_context: ssl.SSLContext | None = None
    mechanism: str = ""
    username: str = ""
    password: str = ""

    async def authenticate(self, exchange: Exchange) -> int:
        if not self.mechanism:
            return 0
        handshake = await exchange(SaslHandshakeRequest(mechanism=self.mechanism), 1)
        if handshake.error_code != 0:
            raise InterBrokerAuthenticationError(
                f"SaslHandshake for {self.mechanism} failed (error {handshake.error_code},"
                f" enabled: {', '.join(handshake.mechanisms)})"
            )
        if self.mechanism == PLAIN:
            response = await self._step(exchange, f"\0{self.username}\0{self.password}".encode())
            return response.session_lifetime_ms
        client = ScramSaslClient(SCRAM_MECHANISMS[self.mechanism], self.username, self.password)
        first = await self._step(exchange, client.first_message())
        try:
            final = client.final_message(first.auth_bytes)
        except SaslError as exc:
            raise InterBrokerAuthenticationError(str(exc)) from None
        response = await self._step(exchange, final)
        try:
            client.check_server_final(response.auth_bytes)
        except SaslError as exc:
            raise InterBrokerAuthenticationError(str(exc)) from None
        return response.session_lifetime_ms

    async def _step(self, exchange: Exchange, token: bytes) -> Any:
        response = await exchange(SaslAuthenticateRequest(auth_bytes=token), 2)
        if response.error_code != 0:
            raise InterBrokerAuthenticationError(
                f"SASL {self.mechanism} authentication as {self.username} failed: {response.error_message}"
            )
        return response


PLAINTEXT_INTER_BROKER = InterBrokerSecurity("PLAINTEXT", "PLAINTEXT")


def build_inter_broker_security(
    listener: str, protocol: str, get: Callable[[str], Any], overrides: Mapping[str, str]
) -> InterBrokerSecurity:
    ssl_context = ssl_factory.client_context(get) if protocol in ("SSL", "SASL_SSL") else None
    if not protocol.startswith("SASL_"):
        return InterBrokerSecurity(listener, protocol, ssl_context)
    mechanism = str(get("sasl.mechanism.inter.broker.protocol")).upper()
    if mechanism != PLAIN and mechanism not in SCRAM_MECHANISMS:
        raise ConfigError(
            f"sasl.mechanism.inter.broker.protocol: {mechanism} is not supported"
            f" (Moldau: {PLAIN}, {', '.join(SCRAM_MECHANISMS)})"
        )
    text = overrides.get(f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config") or get(
        "sasl.jaas.config"
    )
    if not text:
        raise ConfigError(
            f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config: required for the"
            f" inter-broker listener {listener} (username and password of this broker)"
        )
    options = single_module(text, f"inter-broker listener {listener}").options
    if "username" not in options or "password" not in options:
        raise ConfigError(
            f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config: username and password"
            " (this broker's own credentials) are required on the inter-broker listener"
        )
    return InterBrokerSecurity(
        listener, protocol, ssl_context, mechanism, options["username"], options["password"]
    )
