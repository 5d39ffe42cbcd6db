"""SCRAM credentials: where they are stored, and the cache the SCRAM server reads.

As Kafka (ZooKeeper mode) stores them: the config of entity ``users/<user>``, i.e. the znode
``/config/users/<sanitized user>`` holding ``{"version":1,"config":{"SCRAM-SHA-256":
"salt=...,stored_key=...,server_key=...,iterations=4096"}}``, followed by a change notification
``/config/changes/config_change_<n>`` with ``entity_path`` ``users/<sanitized user>``, so every
broker's ``ZkConfigManager`` hands the new config to its ``CredentialCache`` (Kafka's
``UserConfigHandler`` updating its ``CredentialCache``). User names are sanitized as Kafka's
``Sanitizer`` does (URL encoding, ``*`` as ``%2A``, space as ``%20``).

Without ZooKeeper the credentials live in ``scram-credentials.json`` in the first log dir
(Moldau's own file: ``{"version":1,"users":{"<user>":{"SCRAM-SHA-256":"salt=..."}}}``),
written atomically; the broker reads it at start and after each change it makes.
"""

from __future__ import annotations

import json
import logging
import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from broker.security.scram import MECHANISMS, CredentialLookup, ScramCredential

log = logging.getLogger(__name__)

CREDENTIALS_FILE = "scram-credentials.json"
CREDENTIALS_VERSION = 1


def sanitize(name: str) -> str:
    """Kafka's ``Sanitizer.sanitize``: Java's URLEncoder, with ``*`` and space encoded as %2A and %20."""
    return urllib.parse.quote(name, safe="-._*").replace("*", "%2A").replace("~", "%7E")


def desanitize(name: str) -> str:
    return urllib.parse.unquote(name)


def credentials_of(config: Mapping[str, str]) -> dict[str, ScramCredential]:
    """The SCRAM credentials in a user's entity config (other keys, quotas, are left alone)."""
    out: dict[str, ScramCredential] = {}
    for mechanism in MECHANISMS:
        text = config.get(mechanism)
        if text is None:
            continue
        try:
            out[mechanism] = ScramCredential.from_text(text)
        except ValueError as exc:
            log.warning("ignoring the %s credential of a user: %s", mechanism, exc)
    return out


class CredentialCache(CredentialLookup):
    """user -> mechanism -> credential, as read from the store (Kafka's ``CredentialCache``)."""

    def __init__(self) -> None:
        self.users: dict[str, dict[str, ScramCredential]] = {}

    def scram_credential(self, mechanism: str, username: str) -> ScramCredential | None:
        return self.users.get(username, {}).get(mechanism)

    def update_user(self, user: str, credentials: Mapping[str, ScramCredential]) -> None:
        if credentials:
            self.users[user] = dict(credentials)
        else:
            self.users.pop(user, None)

    def process_config_changes(self, entity_name: str, config: Mapping[str, str]) -> None:
        """``ConfigChangeHandler`` of entity type ``users`` (ZooKeeper mode)."""
        self.update_user(desanitize(entity_name), credentials_of(config))


class CredentialStore(Protocol):
    """Blocking calls: run off the event loop."""

    def load(self) -> dict[str, dict[str, ScramCredential]]: ...

    def write_user(self, user: str, credentials: Mapping[str, ScramCredential]) -> None:
        """Replace the user's SCRAM credentials (all mechanisms) with ``credentials``."""
        ...


class FileCredentialStore:
    """A broker without ZooKeeper: ``scram-credentials.json`` in the first log dir."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        users = data.get("users") if isinstance(data, dict) else None
        if data.get("version") != CREDENTIALS_VERSION or not isinstance(users, dict):
            raise ValueError(f"{self.path}: unsupported content")
        return {str(u): {str(m): str(c) for m, c in creds.items()} for u, creds in users.items()}

    def load(self) -> dict[str, dict[str, ScramCredential]]:
        return {user: credentials_of(creds) for user, creds in self._read().items()}

    def write_user(self, user: str, credentials: Mapping[str, ScramCredential]) -> None:
        users = self._read()
        if credentials:
            users[user] = {m: c.to_text() for m, c in sorted(credentials.items())}
        else:
            users.pop(user, None)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps({"version": CREDENTIALS_VERSION, "users": users}, indent=1), encoding="utf-8"
        )
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


class UserConfigWriter(Protocol):
    """The ZooKeeper side (``coordinator.zk_admin.AdminZkClient``)."""

    def entity_config(self, entity_type: str, name: str) -> dict[str, str]: ...

    def change_user_config_blocking(self, sanitized_user: str, config: Mapping[str, str]) -> None: ...


class ZkCredentialStore:
    """ZooKeeper mode: ``/config/users/<user>`` with a change notification (see the module doc).
    The cache is filled by the broker's ``ZkConfigManager`` (entity type ``users``), at start
    and on every notification, so ``load`` has nothing to add."""

    def __init__(self, admin: UserConfigWriter) -> None:
        self.admin = admin

    def load(self) -> dict[str, dict[str, ScramCredential]]:
        return {}

    def write_user(self, user: str, credentials: Mapping[str, ScramCredential]) -> None:
        name = sanitize(user)
        config = {k: v for k, v in self.admin.entity_config("users", name).items() if k not in MECHANISMS}
        config.update({m: c.to_text() for m, c in credentials.items()})
        self.admin.change_user_config_blocking(name, config)
