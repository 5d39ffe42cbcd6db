"""SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka implements them.

``ScramCredential`` is what the broker stores per user and mechanism (salt, StoredKey,
ServerKey, iterations), in Kafka's text form ``salt=<b64>,stored_key=<b64>,server_key=<b64>,
iterations=<n>`` (``ScramCredentialUtils.credentialToString``). ``ScramSaslServer`` follows
Kafka's ``ScramSaslServer``: only the gs2 header ``n`` (no channel binding); an authzid must
equal the user name; extensions are accepted and ignored, except ``tokenauth=true``
(delegation tokens, not supported by Moldau: refused as an unknown token, as Kafka refuses
one it does not know); credentials with fewer iterations than the mechanism's minimum (4096)
are refused; the proof is checked in constant time. ``ScramSaslClient`` is the client side,
used by this broker's inter-broker connections.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from broker.security.sasl_server import SaslAuthenticationError, SaslError, SaslServer


@dataclass(frozen=True)
class ScramMechanism:
    name: str
    hash_name: str
    min_iterations: int = 4096
    # AlterUserScramCredentials refuses more (Kafka's ScramMechanism / ControllerApis check)
    max_iterations: int = 16384
    wire_type: int = 0  # ScramMechanism.type() in the KIP-554 messages

    def hash(self, data: bytes) -> bytes:
        return hashlib.new(self.hash_name, data).digest()

    def hmac(self, key: bytes, data: bytes) -> bytes:
        return hmac.new(key, data, self.hash_name).digest()

    def salted_password(self, password: str, salt: bytes, iterations: int) -> bytes:
        """RFC 5802 Hi(): PBKDF2 with HMAC of the mechanism's hash."""
        return hashlib.pbkdf2_hmac(self.hash_name, password.encode(), salt, iterations)


SCRAM_SHA_256 = ScramMechanism("SCRAM-SHA-256", "sha256", wire_type=1)
SCRAM_SHA_512 = ScramMechanism("SCRAM-SHA-512", "sha512", wire_type=2)
MECHANISMS = {m.name: m for m in (SCRAM_SHA_256, SCRAM_SHA_512)}
MECHANISMS_BY_TYPE = {m.wire_type: m for m in MECHANISMS.values()}


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @classmethod
    def from_salted_password(
        cls, mechanism: ScramMechanism, salted: bytes, salt: bytes, iterations: int
    ) -> ScramCredential:
        client_key = mechanism.hmac(salted, b"Client Key")
        return cls(salt, mechanism.hash(client_key), mechanism.hmac(salted, b"Server Key"), iterations)

    @classmethod
    def from_password(
        cls, mechanism: ScramMechanism, password: str, iterations: int, salt: bytes | None = None
    ) -> ScramCredential:
        salt = salt if salt is not None else secrets.token_bytes(32)
        return cls.from_salted_password(
            mechanism, mechanism.salted_password(password, salt, iterations), salt, iterations
        )

    def to_text(self) -> str:
        b64 = base64.b64encode
        return (
            f"salt={b64(self.salt).decode()},stored_key={b64(self.stored_key).decode()},"
            f"server_key={b64(self.server_key).decode()},iterations={self.iterations}"
        )

    @classmethod
    def from_text(cls, text: str) -> ScramCredential:
        """``ScramCredentialUtils.credentialFromString``; ValueError if malformed."""
        fields = dict(item.split("=", 1) for item in text.split(",") if "=" in item)
        try:
            return cls(
                base64.b64decode(fields["salt"], validate=True),
                base64.b64decode(fields["stored_key"], validate=True),
                base64.b64decode(fields["server_key"], validate=True),
                int(fields["iterations"]),
            )
        except (KeyError, ValueError) as exc:
            raise ValueError(f"invalid SCRAM credential: {exc}") from None


def sasl_name_to_username(name: str) -> str:
    """RFC 5802 saslname: ``=2C`` is ',' and ``=3D`` is '=' (``ScramFormatter.username``)."""
    return name.replace("=2C", ",").replace("=3D", "=")


def username_to_sasl_name(name: str) -> str:
    return name.replace("=", "=3D").replace(",", "=2C")


# Kafka's ScramMessages patterns (only gs2 header "n" is supported).
_SASLNAME = r"(?:[\x01-\x2b\x2d-\x3c\x3e-\x7f]|=2C|=3D)+"
_PRINTABLE = r"[\x21-\x2b\x2d-\x7e]+"
_VALUE = r"[\x01-\x2b\x2d-\x7f]+"
_BASE64 = r"(?:[a-zA-Z0-9/+]{4})*(?:[a-zA-Z0-9/+]{3}=|[a-zA-Z0-9/+]{2}==)?"
_EXTENSIONS = rf"(?:,[A-Za-z]+={_VALUE})*"
_CLIENT_FIRST = re.compile(
    rf"n,(?:a=(?P<authzid>{_SASLNAME}))?,(?P<bare>(?:m={_VALUE},)?n=(?P<saslname>{_SASLNAME}),"
    rf"r=(?P<nonce>{_PRINTABLE})(?P<extensions>{_EXTENSIONS}))"
)
_CLIENT_FINAL = re.compile(
    rf"(?P<without_proof>c=(?P<channel>{_BASE64}),r=(?P<nonce>{_PRINTABLE}){_EXTENSIONS}),p=(?P<proof>{_BASE64})"
)
_SERVER_FIRST = re.compile(
    rf"(?:m={_VALUE},)?r=(?P<nonce>{_PRINTABLE}),s=(?P<salt>{_BASE64}),i=(?P<iterations>[0-9]+){_EXTENSIONS}"
)
_SERVER_FINAL = re.compile(rf"(?:e=(?P<error>[^,]+))|(?:v=(?P<signature>{_BASE64})){_EXTENSIONS}")
TOKEN_AUTH_EXTENSION = "tokenauth"


def _parse_extensions(text: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in text.split(",") if item)


class CredentialLookup:
    """What the SCRAM server asks for a user's credential (the broker's credential cache)."""

    def scram_credential(self, mechanism: str, username: str) -> ScramCredential | None:
        raise NotImplementedError


class ScramSaslServer(SaslServer):
    """Two exchanges: client-first -> server-first, client-final -> server-final."""

    def __init__(self, mechanism: ScramMechanism, credentials: CredentialLookup) -> None:
        super().__init__()
        self.mechanism = mechanism.name
        self._scram = mechanism
        self._credentials = credentials
        self._credential: ScramCredential | None = None
        self._client_first_bare = ""
        self._server_first = ""
        self._nonce = ""
        self.extensions: dict[str, str] = {}

    def evaluate(self, token: bytes) -> bytes:
        if self.is_complete:
            raise SaslError("Unexpected challenge in Sasl server state COMPLETE")
        text = token.decode("utf-8", errors="replace")
        if self._credential is None:
            return self._client_first(text)
        return self._client_final(text)

    def _client_first(self, text: str) -> bytes:
        m = _CLIENT_FIRST.fullmatch(text)
        if m is None:
            raise SaslError(f"Invalid SCRAM client first message format: {text}")
        self.extensions = _parse_extensions(m["extensions"])
        username = sasl_name_to_username(m["saslname"])
        if self.extensions.get(TOKEN_AUTH_EXTENSION, "").lower() == "true":
            # Delegation tokens are not supported: no token is known (Kafka's message for an unknown one).
            raise SaslError(f"Token Authentication failed: Invalid tokenId : {username}")
        credential = self._credentials.scram_credential(self.mechanism, username)
        if credential is None:
            raise SaslError("Authentication failed: Invalid user credentials")
        authzid = m["authzid"] or ""
        if authzid and authzid != username:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        if credential.iterations < self._scram.min_iterations:
            raise SaslError(
                f"Iterations {credential.iterations} is less than the minimum {self._scram.min_iterations}"
                f" for {self.mechanism}"
            )
        self._credential = credential
        self.authorization_id = username
        self._client_first_bare = m["bare"]
        self._nonce = m["nonce"] + base64.b64encode(secrets.token_bytes(24)).decode().replace(",", "")
        self._server_first = (
            f"r={self._nonce},s={base64.b64encode(credential.salt).decode()},i={credential.iterations}"
        )
        return self._server_first.encode()

    def _client_final(self, text: str) -> bytes:
        credential = self._credential
        assert credential is not None
        m = _CLIENT_FINAL.fullmatch(text)
        if m is None:
            raise SaslError(f"Invalid SCRAM client final message format: {text}")
        if m["nonce"] != self._nonce:
            raise SaslError("Invalid client nonce in the final client message.")
        auth_message = f"{self._client_first_bare},{self._server_first},{m['without_proof']}".encode()
        proof = base64.b64decode(m["proof"])
        client_signature = self._scram.hmac(credential.stored_key, auth_message)
        if len(proof) != len(client_signature):
            raise SaslError("Invalid client credentials")
        client_key = bytes(a ^ b for a, b in zip(proof, client_signature, strict=True))
        if not hmac.compare_digest(self._scram.hash(client_key), credential.stored_key):
            raise SaslError("Invalid client credentials")
        server_signature = self._scram.hmac(credential.server_key, auth_message)
        self._credential = None
        self.complete(self.authorization_id)
        return b"v=" + base64.b64encode(server_signature)


class ScramSaslClient:
    """The client side (Kafka's ``ScramSaslClient``), for this broker's own connections."""

    def __init__(self, mechanism: ScramMechanism, username: str, password: str) -> None:
        self._scram = mechanism
        self._username = username
        self._password = password
        self._nonce = base64.b64encode(secrets.token_bytes(24)).decode()
        self._client_first_bare = f"n={username_to_sasl_name(username)},r={self._nonce}"
        self._server_signature = b""

    def first_message(self) -> bytes:
        return f"n,,{self._client_first_bare}".encode()

    def final_message(self, server_first: bytes) -> bytes:
        text = server_first.decode()
        m = _SERVER_FIRST.fullmatch(text)
        if m is None or not m["nonce"].startswith(self._nonce) or len(m["nonce"]) == len(self._nonce):
            raise SaslError(f"Invalid SCRAM server first message: {text}")
        iterations = int(m["iterations"])
        if iterations < self._scram.min_iterations:
            raise SaslError(
                f"Requested iterations {iterations} is less than the minimum {self._scram.min_iterations}"
            )
        salted = self._scram.salted_password(self._password, base64.b64decode(m["salt"]), iterations)
        without_proof = f"c=biws,r={m['nonce']}"
        auth_message = f"{self._client_first_bare},{text},{without_proof}".encode()
        client_key = self._scram.hmac(salted, b"Client Key")
        signature = self._scram.hmac(self._scram.hash(client_key), auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self._server_signature = self._scram.hmac(self._scram.hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def check_server_final(self, server_final: bytes) -> None:
        m = _SERVER_FINAL.fullmatch(server_final.decode(errors="replace"))
        if m is None:
            raise SaslError("Invalid SCRAM server final message")
        if m["error"] is not None:
            raise SaslError(f"Sasl authentication using {self._scram.name} failed with error: {m['error']}")
        if not hmac.compare_digest(base64.b64decode(m["signature"]), self._server_signature):
            raise SaslError("Invalid server signature in server final message")
