"""What every server-side SASL mechanism implements (Java's ``javax.security.sasl.SaslServer``)."""

from __future__ import annotations


class SaslError(Exception):
    """Authentication failed; the client gets a generic message (Kafka's ``SaslException``:
    its text may name users, so it is only logged)."""


class SaslAuthenticationError(SaslError):
    """Authentication failed; the client gets this message (Kafka's ``SaslAuthenticationException``)."""


class SaslServer:
    mechanism = ""

    def __init__(self) -> None:
        self.is_complete = False
        self.authorization_id = ""

    def complete(self, authorization_id: str) -> None:
        self.is_complete = True
        self.authorization_id = authorization_id

    def evaluate(self, token: bytes) -> bytes:
        """The answer to the client's next token; raises SaslError when authentication fails."""
        raise NotImplementedError
