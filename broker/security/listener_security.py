"""What one listener requires of its connections: TLS (its SSL context), SASL (its
mechanisms and their users), the session lifetime (``connections.max.reauth.ms``).

Every key is looked up listener first (``listener.name.<listener>.<key>``), then broker-wide,
as Kafka's ``KafkaConfig.valuesWithPrefixOverride(listenerName.configPrefix)``. Exceptions,
as Kafka: ``ssl.client.auth`` applies to a SASL_SSL listener only when listener-prefixed
(KIP-684); a mechanism's JAAS config is ``listener.name.<l>.<mechanism>.sasl.jaas.config``,
else ``listener.name.<l>.sasl.jaas.config``, else ``sasl.jaas.config``.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from broker.security import ssl_factory
from broker.security.jaas import PLAIN_LOGIN_MODULE, LoginModule, single_module
from broker.security.plain import PLAIN, PlainSaslServer, plain_users
from broker.security.sasl_server import SaslServer
from broker.security.scram import MECHANISMS as SCRAM_MECHANISMS
from broker.security.scram import CredentialLookup, ScramSaslServer
from storage.config_def import ConfigError, ConfigKey

SUPPORTED_MECHANISMS = (PLAIN, *SCRAM_MECHANISMS)


def listener_lookup(
    keys: Mapping[str, ConfigKey], values: Mapping[str, Any], overrides: Mapping[str, str], listener: str
) -> Callable[[str], Any]:
    """``get(key)``: the listener's value of a security key (prefixed override, else broker-wide)."""
    prefix = f"listener.name.{listener.lower()}."

    def get(key: str) -> Any:
        raw = overrides.get(prefix + key)
        if raw is not None:
            return keys[key].parse(raw) if key in keys else raw
        return values.get(key)

    return get


@dataclass
class ListenerSecurity:
    name: str
    protocol: str
    ssl_context: ssl.SSLContext | None = None
    mechanisms: list[str] = field(default_factory=list)
    plain_users: dict[str, str] = field(default_factory=dict)
    jaas: dict[str, LoginModule] = field(default_factory=dict)  # mechanism -> its login module
    max_reauth_ms: int = 0
    max_receive_size: int = 524_288
    # ssl.principal.mapping.rules DEFAULT: the certificate's DN (SSL listeners only)
    uses_client_certificates: bool = False

    @property
    def is_sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    @property
    def is_tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    def sasl_server(self, mechanism: str, credentials: CredentialLookup) -> SaslServer:
        if mechanism == PLAIN:
            return PlainSaslServer(self.plain_users)
        return ScramSaslServer(SCRAM_MECHANISMS[mechanism], credentials)


def build_listener_security(
    name: str,
    protocol: str,
    get: Callable[[str], Any],
    overrides: Mapping[str, str],
    *,
    server_side: bool = True,
) -> ListenerSecurity:
    """A listener's security from its configs (ConfigError, one line, if they are unusable)."""
    sec = ListenerSecurity(name, protocol)
    sec.max_reauth_ms = int(get("connections.max.reauth.ms"))
    sec.max_receive_size = int(get("sasl.server.max.receive.size"))
    if sec.is_tls and server_side:
        prefixed_auth = overrides.get(f"listener.name.{name.lower()}.ssl.client.auth")
        client_auth = get("ssl.client.auth") if protocol == "SSL" or prefixed_auth is not None else "none"
        sec.ssl_context = ssl_factory.server_context(get, client_auth)
        sec.uses_client_certificates = protocol == "SSL" and client_auth != "none"
    if sec.is_sasl:
        sec.mechanisms = [m.strip().upper() for m in get("sasl.enabled.mechanisms") if m.strip()]
        if server_side:
            unsupported = [m for m in sec.mechanisms if m not in SUPPORTED_MECHANISMS]
            if unsupported:
                raise ConfigError(
                    f"sasl.enabled.mechanisms: {', '.join(unsupported)} not supported on listener {name}"
                    f" (Moldau serves {', '.join(SUPPORTED_MECHANISMS)})"
                )
            if not sec.mechanisms:
                raise ConfigError(f"sasl.enabled.mechanisms: no mechanism for the SASL listener {name}")
        for mechanism in sec.mechanisms:
            text = overrides.get(f"listener.name.{name.lower()}.{mechanism.lower()}.sasl.jaas.config") or get(
                "sasl.jaas.config"
            )
            if text:
                sec.jaas[mechanism] = single_module(text, f"listener {name}, mechanism {mechanism}")
        plain = sec.jaas.get(PLAIN)
        if PLAIN in sec.mechanisms and server_side:
            if plain is None or plain.name != PLAIN_LOGIN_MODULE:
                raise ConfigError(
                    f"listener.name.{name.lower()}.plain.sasl.jaas.config: a {PLAIN_LOGIN_MODULE} entry"
                    ' (with user_<name>="<password>" options) is required for PLAIN'
                )
            sec.plain_users = plain_users(plain.options)
    return sec
