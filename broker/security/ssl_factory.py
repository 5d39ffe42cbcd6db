"""TLS contexts from Kafka's ``ssl.*`` configs (Kafka's ``DefaultSslEngineFactory``), with Python's ``ssl``.

Key store: ``ssl.keystore.type=PEM`` (KIP-651) with the certificate chain and private key
either inline (``ssl.keystore.certificate.chain`` and ``ssl.keystore.key``) or in the PEM file
``ssl.keystore.location``; ``ssl.key.password`` decrypts an encrypted key. JKS and PKCS12
are refused with a one-line reason (the standard library reads PEM only; convert with
``openssl pkcs12 -in store.p12 -nodes``). Trust store: ``ssl.truststore.type=PEM`` with ``ssl.truststore.certificates``
or ``ssl.truststore.location``; without one the system's default CAs are trusted (Kafka: the
JVM's). ``ssl.enabled.protocols`` bounds the TLS versions; ``ssl.cipher.suites`` takes
Kafka's (IANA) names of TLS 1.2 suites or OpenSSL's (TLS 1.3 suites are those of OpenSSL's
defaults: Python cannot restrict them). ``ssl.client.auth`` none / requested / required maps
to CERT_NONE / CERT_OPTIONAL / CERT_REQUIRED.

The principal of a client certificate is its subject's distinguished name as Java's
``X500Principal.getName()`` writes it (RFC 2253: most specific RDN first, ``CN=alice,OU=eng,
O=Example,C=US``), the name ``ssl.principal.mapping.rules=DEFAULT`` gives (Kafka's
``DefaultKafkaPrincipalBuilder``).
"""

from __future__ import annotations

import contextlib
import os
import re
import ssl
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from storage.config_def import ConfigError

Lookup = Callable[[str], Any]  # a security config value, listener overrides applied

_TLS_VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
_CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
# RFC 2253 keywords (X500Principal.getName() writes these; other attributes as dotted OIDs)
_RDN_KEYWORDS = {
    "commonName": "CN",
    "countryName": "C",
    "localityName": "L",
    "stateOrProvinceName": "ST",
    "organizationName": "O",
    "organizationalUnitName": "OU",
    "streetAddress": "STREET",
    "domainComponent": "DC",
    "userId": "UID",
}
_RDN_OIDS = {"emailAddress": "1.2.840.113549.1.9.1", "serialNumber": "2.5.4.5", "title": "2.5.4.12"}


@contextlib.contextmanager
def _pem_file(text: str) -> Iterator[str]:
    """Inline PEM for ``ssl`` (which reads files): a private temporary file, removed at once."""
    fd, path = tempfile.mkstemp(prefix="moldau-pem-", suffix=".pem")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        yield path
    finally:
        os.unlink(path)


def _new_context(side: int, get: Lookup) -> ssl.SSLContext:
    ctx = ssl.SSLContext(side)
    enabled = [p for p in get("ssl.enabled.protocols")]
    if not enabled:
        raise ConfigError("ssl.enabled.protocols: at least one protocol is required")
    versions = sorted(_TLS_VERSIONS[p] for p in enabled)
    ctx.minimum_version, ctx.maximum_version = versions[0], versions[-1]
    suites = [s for s in get("ssl.cipher.suites") if s]
    tls12 = [openssl_cipher_name(s) for s in suites if not s.startswith(("TLS_AES_", "TLS_CHACHA20_"))]
    if tls12:
        try:
            ctx.set_ciphers(":".join(tls12))
        except ssl.SSLError:
            raise ConfigError(f"ssl.cipher.suites: none of {', '.join(suites)} is available") from None
    return ctx


def openssl_cipher_name(name: str) -> str:
    """A Kafka/IANA suite name as OpenSSL names it (``TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`` ->
    ``ECDHE-RSA-AES128-GCM-SHA256``); OpenSSL names pass unchanged."""
    if not name.startswith("TLS_") or "_WITH_" not in name:
        return name
    kx, cipher = name[4:].split("_WITH_", 1)
    kx = "" if kx == "RSA" else kx.replace("_", "-") + "-"
    cipher = re.sub(r"AES_(\d+)", r"AES\1", cipher).replace("CHACHA20_POLY1305_SHA256", "CHACHA20-POLY1305")
    return kx + cipher.replace("_", "-")


def _load_keystore(ctx: ssl.SSLContext, get: Lookup, required: bool) -> None:
    kind = str(get("ssl.keystore.type")).upper()
    chain, key, location = (
        get("ssl.keystore.certificate.chain"),
        get("ssl.keystore.key"),
        get("ssl.keystore.location"),
    )
    key_password = get("ssl.key.password")
    if chain is None and key is None and location is None:
        if required:
            raise ConfigError(
                "ssl.keystore.location (or ssl.keystore.certificate.chain and ssl.keystore.key) is required"
            )
        return
    if kind != "PEM":
        # JKS and PKCS12 are not read (Python's ssl reads PEM only; see docs/COMPATIBILITY.md).
        raise ConfigError(
            f"ssl.keystore.type={kind} is not supported: use PEM (ssl.keystore.certificate.chain and"
            " ssl.keystore.key, or a PEM file as ssl.keystore.location)"
        )
    try:
        if chain is not None or key is not None:
            if chain is None or key is None or location is not None:
                raise ConfigError(
                    "ssl.keystore.certificate.chain and ssl.keystore.key go together, without ssl.keystore.location"
                )
            with _pem_file(chain) as chain_path, _pem_file(key) as key_path:
                ctx.load_cert_chain(chain_path, key_path, password=key_password)
        else:
            ctx.load_cert_chain(location, password=key_password)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot load the key store ({location or 'inline PEM'}): {exc}") from None


def _load_truststore(ctx: ssl.SSLContext, get: Lookup, purpose: ssl.Purpose) -> None:
    kind = str(get("ssl.truststore.type")).upper()
    certificates, location = get("ssl.truststore.certificates"), get("ssl.truststore.location")
    if certificates is None and location is None:
        ctx.load_default_certs(purpose)
        return
    if kind != "PEM":
        raise ConfigError(f"ssl.truststore.type={kind} is not supported: use PEM certificates")
    try:
        if certificates is not None:
            ctx.load_verify_locations(cadata=certificates)
        if location is not None:
            ctx.load_verify_locations(cafile=location)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot load the trust store ({location or 'inline PEM'}): {exc}") from None


def server_context(get: Lookup, client_auth: str) -> ssl.SSLContext:
    """The context of an SSL or SASL_SSL listener."""
    ctx = _new_context(ssl.PROTOCOL_TLS_SERVER, get)
    _load_keystore(ctx, get, required=True)
    ctx.verify_mode = _CLIENT_AUTH[client_auth]
    if client_auth != "none":
        _load_truststore(ctx, get, ssl.Purpose.CLIENT_AUTH)
    return ctx


def client_context(get: Lookup) -> ssl.SSLContext:
    """The context of this broker's connections to other brokers' SSL / SASL_SSL listener."""
    ctx = _new_context(ssl.PROTOCOL_TLS_CLIENT, get)
    ctx.check_hostname = str(get("ssl.endpoint.identification.algorithm") or "").lower() == "https"
    _load_truststore(ctx, get, ssl.Purpose.SERVER_AUTH)
    _load_keystore(ctx, get, required=False)
    return ctx


def _escape_rdn_value(value: str) -> str:
    out = re.sub(r'([,+"\\<>;])', r"\\\1", value)
    if out.startswith(("#", " ")):
        out = "\\" + out
    if out.endswith(" ") and not out.endswith("\\ "):
        out = out[:-1] + "\\ "
    return out


def distinguished_name(subject: tuple) -> str:
    """RFC 2253 form of ``SSLSocket.getpeercert()["subject"]`` (RDNs in certificate order)."""
    rdns = []
    for rdn in reversed(subject):
        parts = []
        for attr, value in rdn:
            keyword = _RDN_KEYWORDS.get(attr)
            if keyword is not None:
                parts.append(f"{keyword}={_escape_rdn_value(value)}")
            else:
                # X500Principal writes other attributes as OID=#<DER hex>; Moldau writes the
                # OID with the text value (see docs/COMPATIBILITY.md).
                parts.append(f"{_RDN_OIDS.get(attr, attr)}={_escape_rdn_value(value)}")
        rdns.append("+".join(parts))
    return ",".join(rdns)


def peer_principal_name(ssl_object: Any) -> str | None:
    """The DN of the verified client certificate, None if the client sent none."""
    if ssl_object is None:
        return None
    cert = ssl_object.getpeercert()
    if not cert:
        return None
    return distinguished_name(cert.get("subject", ()))
