"""The broker's security config keys: Kafka's names and defaults (``BrokerSecurityConfigs``,
``SslConfigs``, ``SaslConfigs``, ``SocketServerConfigs``).

Each SSL and SASL key may also be given per listener as ``listener.name.<listener>.<key>``
(listener name in lower case), and a SASL mechanism's JAAS config as
``listener.name.<listener>.<mechanism>.sasl.jaas.config`` (mechanism in lower case), as Kafka's
``ListenerName.configPrefix`` / ``saslMechanismConfigPrefix``; the most specific wins.
"""

from __future__ import annotations

from typing import Any

from storage.config_def import ConfigKey, ConfigType, at_least, each_of, one_of

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
# SocketServerConfigs.LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT: each protocol names a listener.
DEFAULT_PROTOCOL_MAP = ",".join(f"{p}:{p}" for p in SECURITY_PROTOCOLS)
TLS_PROTOCOLS = ("TLSv1.2", "TLSv1.3")


def _k(name: str, ctype: ConfigType, default: Any, doc: str, validator: Any = None, sensitive: bool = False):
    return ConfigKey(name, ctype, default, doc, validator, sensitive)


SECURITY_KEYS: dict[str, ConfigKey] = {
    k.name: k
    for k in [
        _k(
            "security.inter.broker.protocol",
            ConfigType.STRING,
            "PLAINTEXT",
            "Security protocol between brokers (names the inter-broker listener when"
            " inter.broker.listener.name is not set; not both)",
            one_of(*SECURITY_PROTOCOLS),
        ),
        # --- SSL (SslConfigs)
        _k(
            "ssl.protocol",
            ConfigType.STRING,
            "TLSv1.3",
            "TLS protocol of the SSL contexts",
            one_of(*TLS_PROTOCOLS, "TLS"),
        ),
        _k(
            "ssl.enabled.protocols",
            ConfigType.LIST,
            list(TLS_PROTOCOLS),
            "TLS versions enabled (TLSv1.2, TLSv1.3)",
            each_of(*TLS_PROTOCOLS),
        ),
        _k(
            "ssl.cipher.suites",
            ConfigType.LIST,
            [],
            "TLS 1.2 cipher suites (OpenSSL or IANA names; empty: the TLS library's defaults)",
        ),
        _k(
            "ssl.client.auth",
            ConfigType.STRING,
            "none",
            "Client certificates: none, requested or required",
            one_of("none", "requested", "required"),
        ),
        _k(
            "ssl.keystore.type",
            ConfigType.STRING,
            "JKS",
            "Key store format: PEM only (KIP-651; Python's ssl reads PEM, so JKS and PKCS12 are refused)",
        ),
        _k(
            "ssl.keystore.location",
            ConfigType.STRING,
            None,
            "Key store file (PEM: certificate chain and key)",
        ),
        _k("ssl.keystore.password", ConfigType.PASSWORD, None, "Key store password", sensitive=True),
        _k("ssl.key.password", ConfigType.PASSWORD, None, "Password of the private key", sensitive=True),
        _k(
            "ssl.keystore.certificate.chain",
            ConfigType.PASSWORD,
            None,
            "Certificate chain in PEM (KIP-651; ssl.keystore.type=PEM)",
            sensitive=True,
        ),
        _k(
            "ssl.keystore.key",
            ConfigType.PASSWORD,
            None,
            "Private key in PEM (KIP-651; ssl.keystore.type=PEM)",
            sensitive=True,
        ),
        _k("ssl.truststore.type", ConfigType.STRING, "JKS", "Trust store format: PEM (not JKS)"),
        _k("ssl.truststore.location", ConfigType.STRING, None, "Trust store file (PEM certificates)"),
        _k("ssl.truststore.password", ConfigType.PASSWORD, None, "Trust store password", sensitive=True),
        _k(
            "ssl.truststore.certificates",
            ConfigType.PASSWORD,
            None,
            "Trusted certificates in PEM (KIP-651; ssl.truststore.type=PEM)",
            sensitive=True,
        ),
        _k(
            "ssl.endpoint.identification.algorithm",
            ConfigType.STRING,
            "https",
            "Host name verification of the brokers this broker connects to (https; empty: none)",
        ),
        _k(
            "ssl.principal.mapping.rules",
            ConfigType.STRING,
            "DEFAULT",
            "Client certificate subject to principal name (Moldau: DEFAULT only, the full DN)",
            one_of("DEFAULT"),
        ),
        # --- SASL (BrokerSecurityConfigs / SaslConfigs)
        _k(
            "sasl.enabled.mechanisms",
            ConfigType.LIST,
            ["GSSAPI"],
            "SASL mechanisms served (Moldau: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)",
        ),
        _k(
            "sasl.mechanism.inter.broker.protocol",
            ConfigType.STRING,
            "GSSAPI",
            "SASL mechanism between brokers",
        ),
        _k("sasl.jaas.config", ConfigType.PASSWORD, None, "JAAS login module configuration", sensitive=True),
        _k(
            "sasl.server.max.receive.size",
            ConfigType.INT,
            524_288,
            "Largest request accepted before a connection is authenticated",
            at_least(1),
        ),
        _k(
            "connection.failed.authentication.delay.ms",
            ConfigType.INT,
            100,
            "Delay of the close of a connection whose authentication failed (the error response goes first)",
            at_least(0),
        ),
        _k(
            "connections.max.reauth.ms",
            ConfigType.LONG,
            0,
            "Largest lifetime of a SASL session before the client must re-authenticate (KIP-368; 0: forever)",
            at_least(0),
        ),
    ]
}

# Keys that may be given per listener (``listener.name.<l>.<key>``).
LISTENER_PREFIXABLE = frozenset(k for k in SECURITY_KEYS if k.startswith(("ssl.", "sasl.", "connections.")))
