"""Who sent a request: Kafka's ``KafkaPrincipal`` (type and name, shown as ``User:alice``).

A PLAINTEXT connection is ``User:ANONYMOUS``, as in Kafka; an authenticated connection (SASL, or
TLS with a client certificate) carries the principal its authentication established. The
authorizer matches ACLs against it.
"""

from __future__ import annotations

from typing import NamedTuple

USER_TYPE = "User"


class KafkaPrincipal(NamedTuple):
    principal_type: str
    name: str

    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> KafkaPrincipal:
        """``User:alice`` -> KafkaPrincipal("User", "alice") (Kafka's ``SecurityUtils.parseKafkaPrincipal``)."""
        principal_type, sep, name = text.partition(":")
        if not sep or not principal_type or not name:
            raise ValueError(f"expected a principal of the form Type:name, got {text!r}")
        return cls(principal_type, name)


ANONYMOUS = KafkaPrincipal(USER_TYPE, "ANONYMOUS")
