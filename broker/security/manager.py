"""The broker's security: each listener's requirements, the credential cache and store, and
what this broker presents when it connects to others.

Built from the config before anything listens (a bad key store or JAAS config stops the
start with a one-line ConfigError); the credential store is attached once ZooKeeper (if any)
is up. ``authenticator(listener, connection)`` gives each new connection its state
(``broker.security.authenticator``); PLAINTEXT listeners share one.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable, Mapping

from broker.config import BROKER_KEYS, BrokerConfig
from broker.security.authenticator import ConnectionAuthenticator
from broker.security.client import InterBrokerSecurity, build_inter_broker_security
from broker.security.credential_store import CredentialCache, CredentialStore
from broker.security.listener_security import ListenerSecurity, build_listener_security, listener_lookup
from broker.security.scram import ScramCredential
from storage.config_def import ConfigKey

log = logging.getLogger(__name__)


class BrokerSecurity:
    def __init__(
        self,
        listeners: Mapping[str, ListenerSecurity],
        inter_broker: InterBrokerSecurity,
        monotonic: Callable[[], float],
        failed_authentication_delay_ms: int = 100,
    ) -> None:
        self.listeners = dict(listeners)
        self.inter_broker = inter_broker
        self.monotonic = monotonic
        self.failed_authentication_delay_s = failed_authentication_delay_ms / 1000
        self.credentials = CredentialCache()
        self._store: CredentialStore | None = None
        # PLAINTEXT authenticators never change state: one per listener, shared.
        self._shared = {
            name: ConnectionAuthenticator(sec, self.credentials, monotonic, _never_closes)
            for name, sec in self.listeners.items()
            if sec.protocol == "PLAINTEXT"
        }

    @classmethod
    def from_config(cls, config: BrokerConfig, monotonic: Callable[[], float]) -> BrokerSecurity:
        keys: Mapping[str, ConfigKey] = BROKER_KEYS
        overrides = config.listener_overrides
        values = config.values
        protocols = config.security_protocols
        listeners = {}
        for lst in config.listeners:
            get = listener_lookup(keys, values, overrides, lst.name)
            listeners[lst.name] = build_listener_security(lst.name, protocols[lst.name], get, overrides)
        ib_name = config.inter_broker_listener
        ib_protocol = protocols.get(ib_name, "PLAINTEXT")
        inter_broker = build_inter_broker_security(
            ib_name, ib_protocol, listener_lookup(keys, values, overrides, ib_name), overrides
        )
        return cls(listeners, inter_broker, monotonic, values["connection.failed.authentication.delay.ms"])

    # ------------------------------------------------------------------ connections

    def server_ssl_context(self, listener: str) -> ssl.SSLContext | None:
        sec = self.listeners.get(listener)
        return sec.ssl_context if sec is not None else None

    def authenticator(
        self,
        listener: str,
        close: Callable[[str], None],
        limit_frames: Callable[[int | None], None] | None = None,
    ) -> ConnectionAuthenticator:
        """``close(reason)`` closes the connection; after a failed authentication it is called
        ``connection.failed.authentication.delay.ms`` later (Kafka's delayed close: the client
        reads the error response first, and a client retrying at once is slowed down).
        ``limit_frames(limit)`` sets the connection's frame size limit while a SASL exchange is
        under way (``sasl.server.max.receive.size``; None: back to the usual one)."""
        shared = self._shared.get(listener)
        if shared is not None:
            return shared
        delay = self.failed_authentication_delay_s

        def close_later(reason: str) -> None:
            asyncio.get_running_loop().call_later(delay, close, reason)

        sec = self.listeners[listener]
        return ConnectionAuthenticator(
            sec, self.credentials, self.monotonic, close_later, limit_frames if sec.is_sasl else None
        )

    # ------------------------------------------------------------------ credentials

    @property
    def store(self) -> CredentialStore:
        assert self._store is not None, "attach_store runs before the listeners open"
        return self._store

    async def attach_store(self, store: CredentialStore) -> None:
        """The credential store; its users are loaded (in ZooKeeper mode the config change
        listener fills the cache instead, see ``credential_store``)."""
        self._store = store
        loaded = await asyncio.get_running_loop().run_in_executor(None, store.load)
        for user, creds in loaded.items():
            self.credentials.update_user(user, creds)

    async def write_user(self, user: str, credentials: Mapping[str, ScramCredential]) -> None:
        """Persist the user's whole credential set, then apply it here at once."""
        assert self._store is not None
        await asyncio.get_running_loop().run_in_executor(
            None, self._store.write_user, user, dict(credentials)
        )
        self.credentials.update_user(user, credentials)


def _never_closes(reason: str) -> None:  # a PLAINTEXT authenticator never fails
    log.error("unexpected close request from a PLAINTEXT authenticator: %s", reason)
