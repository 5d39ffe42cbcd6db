"""SASL/PLAIN (RFC 4616) on the broker side, as Kafka's ``PlainSaslServer`` with its default
``PlainServerCallbackHandler``: the users are the ``user_<name>="<password>"`` options of
the listener's ``PlainLoginModule`` configuration.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from broker.security.sasl_server import SaslAuthenticationError, SaslError, SaslServer

PLAIN = "PLAIN"


def plain_users(options: Mapping[str, str]) -> dict[str, str]:
    """The accepted users of a PlainLoginModule entry: ``user_alice="secret"`` -> {alice: secret}."""
    return {k[len("user_") :]: v for k, v in options.items() if k.startswith("user_") and len(k) > 5}


class PlainSaslServer(SaslServer):
    """One exchange: ``authzid NUL authcid NUL password`` in, nothing out."""

    mechanism = PLAIN

    def __init__(self, users: Mapping[str, str]) -> None:
        super().__init__()
        self._users = users

    def evaluate(self, token: bytes) -> bytes:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            raise SaslError("Invalid SASL/PLAIN response: not UTF-8") from None
        parts = text.split("\0")
        if len(parts) != 3:
            raise SaslError(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(parts)}")
        authzid, username, password = parts
        if not username:
            raise SaslError("Authentication failed: username not specified")
        if not password:
            raise SaslError("Authentication failed: password not specified")
        expected = self._users.get(username)
        # Constant time, as PlainServerCallbackHandler's MessageDigest.isEqual.
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslAuthenticationError("Authentication failed: Invalid username or password")
        if authzid and authzid != username:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        self.complete(username)
        return b""
