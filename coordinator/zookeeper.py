"""The broker's ZooKeeper session (kazoo): chroot, Kafka's znodes, broker registration.

What a ZK-mode Kafka broker does at start (``KafkaServer.initZkClient``,
``KafkaZkClient``, ``ZkData`` of Kafka 2.x-3.x), kept to what Moldau needs:

- ``zookeeper.connect`` is ``host:port[,host:port...][/chroot]``; a chroot is
  created first (with a separate chroot-less session, as Kafka does) and every
  path below is then relative to it.
- ``zookeeper.connection.timeout.ms`` (default: the session timeout) bounds the
  first connect; failing it stops the broker's start-up, as in Kafka.
  ``zookeeper.session.timeout.ms`` is the session timeout asked for.
- Kafka's persistent paths (``ZkData.PersistentZkPaths``) are created if
  missing, so ZK-mode tools find the layout they expect.
- The broker registers as the ephemeral ``/brokers/ids/<id>`` in Kafka's JSON
  (``BrokerIdZNode.encode``, version 5). Its czxid is the broker epoch. The
  start returns once registered. A node left by another session is waited for
  with a warning, where Kafka refuses to start at once: the same broker before a
  kill -9, whose session has not expired yet, is gone within the session timeout
  (plus a tick); a node still held then is a live broker with the same id, and
  the start fails with Kafka's message (BrokerIdInUseError).
- After a session expiry kazoo builds a new session; the registration is then
  created again (in a thread, waiting out a foreign node without limit).

kazoo runs its own threads. Every blocking call here is made off the event
loop (the ProducerIdManager's executor or a registration thread). State changes
are logged once each, at WARNING when ZooKeeper goes away and INFO when it returns.

The pipelined helpers (``get_many``, ``get_children``, ``get_data_watched``, ``multi``,
``fenced_multi_many``) are Kafka's ``KafkaZkClient.retryRequestsUntilConnected``: a
request failing with ConnectionLoss (in flight when the connection dropped) is sent again
once kazoo has reconnected, and one queued while disconnected is waited for; only a
session expiry (kazoo's SessionExpiredError), closing the client, or a connected server
silent for the session timeout (ZooKeeperError) ends them. The single requests
(``get_data``, ``set_data``, ``create_node``) wait at most the session timeout.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import (
    ConnectionLoss,
    KazooException,
    NodeExistsError,
    NoNodeError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.retry import KazooRetry

from coordinator.cluster_state import BrokerEndpoint
from coordinator.zk_data import decode_config
from storage.config_def import ConfigError

log = logging.getLogger(__name__)

BROKER_IDS_PATH = "/brokers/ids"  # BrokerIdsZNode.path
CLUSTER_ID_PATH = "/cluster/id"  # ClusterIdZNode.path
BROKER_JSON_VERSION = 5  # BrokerInfo for IBP >= 2.7-IV0
# Back-off between retries of a request that failed with ConnectionLoss again right after
# a reconnection (the first retry goes at once; kazoo backs off its reconnections itself).
RETRY_BACKOFF_S = 0.05
RETRY_BACKOFF_MAX_S = 1.0
# How long past zookeeper.session.timeout.ms a start waits for a node of another session at
# /brokers/ids/<id> (ZooKeeperClient.stale_registration_wait_ms): one tick of the server, which
# rounds a session's expiry up to its next tick; 3000 ms is ZooKeeper's default tickTime
# (ZooKeeperServer.DEFAULT_TICK_TIME, kept by Kafka's config/zookeeper.properties).
STALE_SESSION_MARGIN_MS = 3000
CONFIG_TYPES = ("topics", "clients", "users", "brokers", "ips")  # ConfigType.ALL

# ZkData.PersistentZkPaths, created at broker start (KafkaZkClient.createTopLevelPaths).
PERSISTENT_PATHS: tuple[str, ...] = (
    "/consumers",
    BROKER_IDS_PATH,
    "/brokers/topics",
    "/config/changes",
    "/admin/delete_topics",
    "/brokers/seqid",
    "/isr_change_notification",
    "/latest_producer_id_block",
    "/log_dir_event_notification",
    *(f"/config/{t}" for t in CONFIG_TYPES),
)


class _QuietReconnects(logging.Filter):
    """kazoo warns on every failed reconnection attempt (about once a second while ZooKeeper
    is away); this module logs each state change once instead, so those go to DEBUG."""

    NOISY = ("Connection dropped", "Connection time-out", "Transition to CONNECTING", "Session has expired")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and str(record.msg).startswith(self.NOISY):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


_KAZOO_LOG = logging.getLogger("kazoo.client")
if not any(isinstance(f, _QuietReconnects) for f in _KAZOO_LOG.filters):
    _KAZOO_LOG.addFilter(_QuietReconnects())


class ZooKeeperError(Exception):
    """A ZooKeeper request that could not be answered (not connected, timed out)."""


class ZooKeeperConnectionError(ConnectionError):
    """The first connection failed within ``zookeeper.connection.timeout.ms``: the broker cannot start."""


class BrokerIdInUseError(ConfigError):
    """Kafka's NodeExistsException from ``registerBroker``: ``/brokers/ids/<id>`` stays held by
    another live session, so another broker has this ``broker.id`` and this one cannot start
    (a configuration error: the CLI reports its one line and exits 2)."""


@dataclass(frozen=True)
class _Attempt:
    """One try at registering: ``stat`` of this session's node, or the ``owner`` session holding
    it (``session``: ours); neither: try again (the node went meanwhile, or a request failed)."""

    stat: Any = None
    owner: int | None = None
    session: int | None = None


def parse_zookeeper_connect(connect: str) -> tuple[str, str | None]:
    """``host:port,host:port/chroot`` -> (hosts, chroot or None), as Kafka splits it at the first '/'."""
    connect = connect.strip()
    hosts, sep, rest = connect.partition("/")
    if not hosts or any(not h.strip() for h in hosts.split(",")):
        raise ValueError(f"zookeeper.connect {connect!r}: no host:port before the chroot")
    if not sep or rest == "":
        return hosts, None
    chroot = "/" + rest
    if chroot.endswith("/") or "//" in chroot or any(s in (".", "..") for s in chroot.split("/")[1:]):
        raise ValueError(f"zookeeper.connect {connect!r}: invalid chroot path {chroot!r}")
    return hosts, chroot


def connection_string(endpoint: BrokerEndpoint, security_protocol: str = "PLAINTEXT") -> str:
    """Kafka's ``EndPoint.connectionString``: ``LISTENER://host:port``."""
    host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host  # Utils.formatAddress
    return f"{endpoint.name}://{host}:{endpoint.port}"


@dataclass(frozen=True)
class BrokerRegistration:
    """What goes into ``/brokers/ids/<id>`` (Kafka's BrokerInfo)."""

    broker_id: int
    endpoints: Sequence[BrokerEndpoint]
    rack: str | None = None
    jmx_port: int = -1
    # listener name -> security protocol (listener.security.protocol.map); PLAINTEXT if absent
    security_protocols: Mapping[str, str] = field(default_factory=dict)
    # feature name -> (min_version, max_version), as in ApiVersions' SupportedFeatures
    features: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return f"{BROKER_IDS_PATH}/{self.broker_id}"

    def security_protocol(self, endpoint: BrokerEndpoint) -> str:
        return self.security_protocols.get(endpoint.name, "PLAINTEXT")

    def endpoint_strings(self) -> list[str]:
        return [connection_string(e) for e in self.endpoints]

    def to_json(self, timestamp_ms: int) -> bytes:
        """Kafka's ``BrokerIdZNode.encode`` at version 5."""
        # host/port: the first PLAINTEXT endpoint, for old clients that read ZooKeeper
        plaintext = next((e for e in self.endpoints if self.security_protocol(e) == "PLAINTEXT"), None)
        obj: dict[str, Any] = {
            "version": BROKER_JSON_VERSION,
            "host": plaintext.host if plaintext else None,
            "port": plaintext.port if plaintext else -1,
            "endpoints": self.endpoint_strings(),
            "jmx_port": self.jmx_port,
            "timestamp": str(timestamp_ms),
        }
        if self.rack is not None:
            obj["rack"] = self.rack
        obj["listener_security_protocol_map"] = {e.name: self.security_protocol(e) for e in self.endpoints}
        obj["features"] = {
            name: {"min_version": lo, "max_version": hi} for name, (lo, hi) in self.features.items()
        }
        return json.dumps(obj, separators=(",", ":")).encode()


def _session_of(kz: KazooClient | None) -> int | None:
    """The session id while connected (kazoo's client_id is None otherwise)."""
    cid = kz.client_id if kz is not None else None
    return cid[0] if cid else None


class ZooKeeperClient:
    """One kazoo session for the broker, with the chroot applied."""

    def __init__(
        self,
        connect: str,
        *,
        session_timeout_ms: int,
        connection_timeout_ms: int | None = None,
        time_ms: Callable[[], int],
        registration: BrokerRegistration | None = None,
    ) -> None:
        self.connect_string = connect
        self.time_ms = time_ms  # the registration's timestamp
        self.hosts, self.chroot = parse_zookeeper_connect(connect)
        self.session_timeout_ms = session_timeout_ms
        # Kafka: zookeeper.connection.timeout.ms defaults to the session timeout
        self.connection_timeout_ms = connection_timeout_ms or session_timeout_ms
        self.registration = registration
        self.kazoo: KazooClient | None = None
        self.broker_epoch: int | None = None  # czxid of /brokers/ids/<id> (Kafka's broker epoch)
        self._listeners: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._started = False
        self._session_lost = False
        self._registered = False
        self._registering = False
        # Kafka's isConnectedOrExpiredCondition: notified at each kazoo state change and at close.
        self._state_changed = threading.Condition()
        self._session_generation = 0  # bumped at each session expiry (kazoo's LOST)

    # ------------------------------------------------------------------ lifecycle (blocking)

    @property
    def request_timeout_s(self) -> float:
        return self.session_timeout_ms / 1000

    @property
    def connected(self) -> bool:
        return self.kazoo is not None and self.kazoo.connected

    @property
    def session_id(self) -> int | None:
        return _session_of(self.kazoo)

    def _new_kazoo(self, hosts: str) -> KazooClient:
        # kazoo's default reconnect backoff grows to an hour; ZooKeeper's own client retries
        # about every second, which is what a broker wants once ZooKeeper is back.
        return KazooClient(
            hosts=hosts,
            timeout=self.session_timeout_ms / 1000,
            connection_retry=KazooRetry(max_tries=-1, delay=0.1, backoff=2, max_delay=1.0, max_jitter=0.2),
            command_retry=KazooRetry(max_tries=3, delay=0.1, backoff=2, max_delay=1.0),
        )

    def start(self) -> None:
        """Connect (creating the chroot first), create Kafka's paths and register the broker
        (with ``registration``, as ``register``).

        Raises ZooKeeperConnectionError if ZooKeeper does not answer within the
        connection timeout, BrokerIdInUseError as ``register``.
        """
        timeout_s = self.connection_timeout_ms / 1000
        if self.chroot:
            self._ensure_chroot(timeout_s)
        kz = self._new_kazoo(self.hosts + (self.chroot or ""))
        kz.add_listener(self._on_state)
        try:
            kz.start(timeout=timeout_s)
        except KazooTimeoutError:
            raise ZooKeeperConnectionError(
                f"timed out after {self.connection_timeout_ms} ms waiting for a connection to ZooKeeper "
                f"{self.connect_string} (zookeeper.connection.timeout.ms)"
            ) from None
        self.kazoo = kz
        self._started = True
        log.info(
            "connected to ZooKeeper %s (session 0x%x, session timeout %d ms)",
            self.connect_string,
            kz.client_id[0],
            self.session_timeout_ms,
        )
        self.create_persistent_paths()
        if self.registration is not None:
            self._register_at_start()

    def register(self, registration: BrokerRegistration) -> None:
        """Register the broker once its endpoints are known (Kafka's ``registerBroker``, made
        after the socket server has bound its ports). Blocking: call it off the event loop.
        Returns once registered; raises BrokerIdInUseError if another live session holds the
        id (``stale_registration_wait_ms``)."""
        self.registration = registration
        self._register_at_start()

    def _ensure_chroot(self, timeout_s: float) -> None:
        """Kafka's ``createChrootIfNecessary``: make the chroot with a session without it."""
        kz = self._new_kazoo(self.hosts)
        try:
            kz.start(timeout=timeout_s)
        except KazooTimeoutError:
            raise ZooKeeperConnectionError(
                f"timed out after {self.connection_timeout_ms} ms waiting for a connection to ZooKeeper "
                f"{self.hosts} (zookeeper.connection.timeout.ms)"
            ) from None
        try:
            if kz.exists(self.chroot) is None:
                kz.ensure_path(self.chroot)
                log.info("created ZooKeeper chroot %s", self.chroot)
        finally:
            kz.stop()
            kz.close()

    def close(self) -> None:
        """End the session: ZooKeeper removes the ephemeral registration at once."""
        self._closing.set()
        with self._state_changed:  # requests waiting for a reconnection give up
            self._state_changed.notify_all()
        kz, self.kazoo = self.kazoo, None
        if kz is None:
            return
        try:
            kz.stop()
            kz.close()
        except Exception:  # closing must not fail a shutdown
            log.warning("closing the ZooKeeper session failed", exc_info=True)
        log.info("ZooKeeper session closed")

    def add_connection_listener(self, callback: Callable[[], None]) -> None:
        """``callback()`` (from a kazoo thread; it must not block) after each reconnection."""
        self._listeners.append(callback)

    # ------------------------------------------------------------------ requests (blocking, bounded)

    def _client(self) -> KazooClient:
        kz = self.kazoo
        if kz is None:
            raise ZooKeeperError("the ZooKeeper session is closed")
        return kz

    def _wait(self, async_result: Any, what: str) -> Any:
        try:
            return async_result.get(timeout=self.request_timeout_s)
        except KazooTimeoutError:
            raise ZooKeeperError(
                f"no answer from ZooKeeper to {what} within {self.session_timeout_ms} ms"
            ) from None

    @property
    def session_generation(self) -> int:
        """Changes when the session expires: a request of an older generation must not be retried."""
        return self._session_generation

    def wait_until_connected(self, generation: int) -> None:
        """Kafka's ``ZooKeeperClient.waitUntilConnected``: block until kazoo has reconnected
        (as long as that takes, as Kafka's does). Raises kazoo's SessionExpiredError if the
        session of ``generation`` expired meanwhile (its ephemerals and watches are gone),
        ZooKeeperError once the client is closed."""
        with self._state_changed:
            while True:
                if self._closing.is_set() or self.kazoo is None:
                    raise ZooKeeperError("the ZooKeeper session is closed")
                if self._session_generation != generation:
                    raise SessionExpiredError()
                if self.kazoo.connected:
                    return
                self._state_changed.wait()

    def _outcome(self, async_result: Any, what: str) -> Any:
        """The answer to one request: its result, or the exception it failed with. kazoo
        fails a request with ConnectionLoss when the connection drops and sends one queued
        while disconnected once reconnected, so only a connected server's silence for the
        session timeout (or closing) is ZooKeeperError (Kafka's ``handleRequests`` waits)."""
        while True:
            try:
                return async_result.get(timeout=self.request_timeout_s)
            except KazooTimeoutError:
                if self._closing.is_set() or self.connected:
                    raise ZooKeeperError(
                        f"no answer from ZooKeeper to {what} within {self.session_timeout_ms} ms"
                    ) from None
            except Exception as exc:  # kazoo's error for this request
                return exc

    def get_data(self, path: str) -> tuple[bytes, Any]:
        """(data, ZnodeStat); kazoo's NoNodeError if missing."""
        return self._wait(self._client().get_async(path), f"get {path}")

    def set_data(self, path: str, data: bytes, version: int) -> Any:
        """Conditional write; kazoo's BadVersionError if the znode changed. Returns the new ZnodeStat."""
        return self._wait(self._client().set_async(path, data, version=version), f"set {path}")

    def create_node(self, path: str, data: bytes, *, ephemeral: bool = False) -> Any:
        """Create ``path`` (parents must exist); kazoo's NodeExistsError if it does. Returns its ZnodeStat."""
        _, stat = self._wait(
            self._client().create_async(path, data, ephemeral=ephemeral, include_data=True), f"create {path}"
        )
        return stat

    def create_persistent_paths(self) -> None:
        """Kafka's ``createTopLevelPaths``: each of ``ZkData.PersistentZkPaths`` with no data."""
        kz = self._client()
        for path in PERSISTENT_PATHS:
            if kz.exists(path) is None:
                with contextlib.suppress(NodeExistsError):  # another broker made it meanwhile
                    kz.ensure_path(path)

    def get_or_create_cluster_id(self, proposed: str) -> str:
        """``/cluster/id`` (Kafka's ClusterIdZNode ``{"version":"1","id":...}``): the first broker's id wins."""
        kz = self._client()
        data = json.dumps({"version": "1", "id": proposed}, separators=(",", ":")).encode()
        try:
            kz.create(CLUSTER_ID_PATH, data, makepath=True)
            return proposed
        except NodeExistsError:
            existing, _ = kz.get(CLUSTER_ID_PATH)
            return json.loads(existing)["id"]

    # ------------------------------------------------------------------ broker registration

    @property
    def stale_registration_wait_ms(self) -> int:
        """How long a start waits for ``/brokers/ids/<id>`` held by another session to go.

        Kafka fails at once (``checkedEphemeralCreate``). Moldau waits out the node of this
        broker's own previous session (a kill -9 and an immediate restart), which ZooKeeper
        deletes when it expires that session: at most the session timeout after the session's
        last heartbeat, rounded up to the server's next tick (its session tracker expires
        sessions in buckets one ``tickTime`` wide). That heartbeat came before this process
        started, so such a node is gone within ``zookeeper.session.timeout.ms`` (the previous
        process asked for the same) plus one tick: ``STALE_SESSION_MARGIN_MS``. A node still
        held then belongs to a live session: another broker has this id.
        """
        return self.session_timeout_ms + STALE_SESSION_MARGIN_MS

    def _register_at_start(self) -> None:
        """Kafka's ``registerBroker`` at start-up (blocking, off the event loop): returns once
        ``/brokers/ids/<id>`` is this session's. A node held by another session is waited for
        at most ``stale_registration_wait_ms``; BrokerIdInUseError if it is still held then.
        A lost connection is waited for (Kafka's ``retryRequestUntilConnected``)."""
        reg = self.registration
        assert reg is not None
        with self._lock:
            if self._registered:
                return
            self._registering = True  # a reconnection meanwhile leaves the registration to us
        try:
            if not self._register_until_done(reg, self.stale_registration_wait_ms):
                raise ZooKeeperError("the ZooKeeper session is closed")
        except BaseException:
            self.registration = None  # nor does a later reconnection register a refused id
            raise
        finally:
            with self._lock:
                self._registering = False

    def _register_until_done(self, reg: BrokerRegistration, wait_ms: int | None) -> bool:
        """Create ``/brokers/ids/<id>`` until it is this session's (True), or the client closes
        (False). A lost connection is waited for (Kafka's ``retryRequestUntilConnected``). A
        node held by another session is waited for, with one warning, at most ``wait_ms``
        (BrokerIdInUseError then), or without limit (None: a re-registration)."""
        deadline: float | None = None
        gone = threading.Event()

        def on_change(_event: Any) -> None:  # one function: kazoo keeps one watcher per path
            gone.set()

        while not self._closing.is_set():
            kz = self.kazoo
            if kz is None:
                return False
            if not kz.connected:
                self._await_reconnection()
                continue
            attempt = self._attempt_registration(kz, reg)
            if attempt.stat is not None:
                self._registered_with(reg, attempt.stat)
                return True
            if attempt.owner is None:  # the node went meanwhile, or a request failed
                self._closing.wait(RETRY_BACKOFF_S)
                continue
            now = time.monotonic()
            if deadline is None:
                deadline = now + (wait_ms / 1000 if wait_ms is not None else float("inf"))
                self._warn_held(reg, attempt.owner, wait_ms)
            elif now >= deadline:
                # Kafka's getAfterNodeExists message, then why it is final.
                raise BrokerIdInUseError(
                    f"Error while creating ephemeral at {reg.path}, node already exists and owner "
                    f"'0x{attempt.owner:x}' does not match current session '0x{attempt.session:x}' "
                    f"(still after {wait_ms} ms, longer than a previous session of this broker could "
                    f"live: another live broker has broker.id {reg.broker_id})"
                )
            gone.clear()
            try:
                if self._wait(kz.exists_async(reg.path, watch=on_change), f"exists {reg.path}") is None:
                    continue
            except (KazooException, ZooKeeperError):
                pass  # not connected any more: seen at the top
            gone.wait(min(deadline - now, 1.0))  # and closing is seen within a second
        return False

    @staticmethod
    def _warn_held(reg: BrokerRegistration, owner: int, wait_ms: int | None) -> None:
        if wait_ms is None:
            log.warning(
                "%s is held by another ZooKeeper session (0x%x): another broker has id %d; "
                "registering again as soon as it is gone",
                reg.path,
                owner,
                reg.broker_id,
            )
        else:
            log.warning(
                "%s is held by another ZooKeeper session (0x%x): this broker's previous session, "
                "not expired yet, or another live broker with id %d; waiting up to %d ms "
                "(zookeeper.session.timeout.ms + %d ms) for it to go",
                reg.path,
                owner,
                reg.broker_id,
                wait_ms,
                STALE_SESSION_MARGIN_MS,
            )

    def _await_reconnection(self) -> None:
        """Block until kazoo is connected again (with this session or a new one) or closing."""
        with self._state_changed:
            while not self._closing.is_set() and (kz := self.kazoo) is not None and not kz.connected:
                self._state_changed.wait(1.0)

    def _attempt_registration(self, kz: KazooClient, reg: BrokerRegistration) -> _Attempt:
        """One try at creating ``/brokers/ids/<id>`` (Kafka's ``CheckedEphemeral.create``)."""
        try:
            try:
                return _Attempt(stat=self.create_node(reg.path, reg.to_json(self.time_ms()), ephemeral=True))
            except NodeExistsError:
                _, stat = self.get_data(reg.path)
                session = _session_of(kz)
                if session is None:
                    return _Attempt()  # disconnected: whose node it is is asked again
                # Kafka's getAfterNodeExists: a node of our own session is ours.
                if stat.ephemeralOwner == session:
                    return _Attempt(stat=stat)
                return _Attempt(owner=stat.ephemeralOwner, session=session)
        except NoNodeError:
            return _Attempt()  # the node vanished between create and get: try again
        except (KazooException, ZooKeeperError) as exc:
            log.debug("registering %s failed (%s); retrying", reg.path, exc)
            return _Attempt()

    def _registered_with(self, reg: BrokerRegistration, stat: Any) -> None:
        with self._lock:
            self._registered = True
        self.broker_epoch = stat.czxid
        log.info(
            "registered broker %d in ZooKeeper at %s (broker epoch %d): %s",
            reg.broker_id,
            reg.path,
            stat.czxid,
            ", ".join(reg.endpoint_strings()),
        )

    def _reregister(self) -> None:
        """Register again with a new session after the old one expired (a thread started on
        CONNECTED, not kazoo's event thread: the requests block). A node held by another
        session then is waited out without limit, with one warning: the broker runs on
        unregistered meanwhile, as Kafka's (whose controller logs the NodeExistsException of
        its ``RegisterBrokerAndReelect`` and goes on)."""
        with self._lock:
            reg = self.registration
            if reg is None or self._registering or self._registered or self._closing.is_set():
                return
            self._registering = True
        try:
            self._register_until_done(reg, None)
        finally:
            with self._lock:
                self._registering = False

    # ------------------------------------------------------------------ kazoo state (kazoo's thread: no blocking)

    def _on_state(self, state: str) -> None:
        if state == KazooState.LOST:
            self._session_generation += 1
        try:
            self._handle_state(state)
        finally:
            with self._state_changed:  # wait_until_connected
                self._state_changed.notify_all()

    def _handle_state(self, state: str) -> None:
        if self._closing.is_set():
            return
        if state == KazooState.SUSPENDED:
            log.warning(
                "lost the connection to ZooKeeper %s; kazoo is reconnecting (the session survives %d ms)",
                self.connect_string,
                self.session_timeout_ms,
            )
        elif state == KazooState.LOST:
            if self._started:
                self._session_lost = True
                with self._lock:
                    self._registered = False
                log.warning(
                    "ZooKeeper session expired: ephemeral znodes (broker registration) are gone; "
                    "a new session will be created when ZooKeeper answers"
                )
        elif state == KazooState.CONNECTED and self._started:
            session = _session_of(self.kazoo) or 0
            if self._session_lost:
                self._session_lost = False
                log.info("new ZooKeeper session 0x%x established", session)
            else:
                log.info("reconnected to ZooKeeper (session 0x%x)", session)
            if self.registration is not None and not self._registered:
                # Not from kazoo's event thread: registration makes blocking requests.
                threading.Thread(
                    target=self._reregister,
                    name="zk-broker-registration",
                    daemon=True,
                ).start()
            for callback in list(self._listeners):
                try:
                    callback()
                except Exception:
                    log.exception("ZooKeeper connection listener failed")

    # ------------------------------------------------------------------ entity configs (blocking)

    def read_topic_config(self, topic: str) -> dict[str, str]:
        """The overrides in ``/config/topics/<topic>`` (Kafka's ``AdminZkClient.fetchEntityConfig``
        / ``ConfigEntityZNode.decode``): ``{}`` when the znode is missing or has no data.

        Blocking: call it off the event loop. A malformed znode raises ``ZooKeeperError``.
        """
        return self.read_topic_configs([topic])[topic]

    def read_topic_configs(self, topics: Sequence[str]) -> dict[str, dict[str, str]]:
        """``read_topic_config`` of many topics, in one pipelined read (blocking)."""
        found = get_many(self, [f"/config/topics/{t}" for t in topics])
        try:
            return {
                t: decode_config(f[0] if f is not None else None, f"/config/topics/{t}")
                for t, f in zip(topics, found, strict=True)
            }
        except ValueError as exc:
            raise ZooKeeperError(str(exc)) from None


# ---------------------------------------------------------------------- multi-ops and fencing

CONTROLLER_EPOCH_PATH = "/controller_epoch"  # ControllerEpochZNode.path


class ControllerMovedError(Exception):
    """Kafka's ControllerMovedException: the ``/controller_epoch`` check of a fenced write
    failed (another controller was elected since), or this broker is not the controller."""


# One operation of a multi: ("create", path, data, ephemeral) | ("set", path, data, version)
# | ("delete", path, version) | ("check", path, version).
ZkOp = tuple[Any, ...]


def _add_op(tx: Any, op: ZkOp) -> None:
    kind = op[0]
    if kind == "create":
        tx.create(op[1], op[2], ephemeral=bool(op[3]) if len(op) > 3 else False)
    elif kind == "set":
        tx.set_data(op[1], op[2], version=op[3])
    elif kind == "delete":
        tx.delete(op[1], version=op[2] if len(op) > 2 else -1)
    elif kind == "check":
        tx.check(op[1], op[2])
    else:
        raise ValueError(f"unknown ZooKeeper op {kind!r}")


# One request: (what it is, for errors; how to send it on a KazooClient -> its async result).
ZkRequest = tuple[str, Callable[[KazooClient], Any]]


def requests_until_connected(zk: ZooKeeperClient, requests: Sequence[ZkRequest]) -> list[Any]:
    """Send ``requests`` pipelined and return each one's outcome (its result, or the
    exception it failed with), as Kafka's ``KafkaZkClient.retryRequestsUntilConnected``:
    those failing with ConnectionLoss are sent again once kazoo has reconnected
    (``waitUntilConnected``). Blocking. Raises kazoo's SessionExpiredError if the session
    expired meanwhile, ZooKeeperError once the client is closed."""
    outcomes: list[Any] = [None] * len(requests)
    remaining = list(range(len(requests)))
    generation = zk.session_generation
    attempt = 0
    while True:
        kz = zk._client()
        sent = [(i, requests[i][1](kz)) for i in remaining]
        remaining = []
        for i, async_result in sent:
            outcome = zk._outcome(async_result, requests[i][0])
            if isinstance(outcome, ConnectionLoss):
                remaining.append(i)
            else:
                outcomes[i] = outcome
        if not remaining:
            return outcomes
        log.debug(
            "%d ZooKeeper requests lost with the connection; resending once reconnected", len(remaining)
        )
        _retry_pause(zk, generation, attempt)
        attempt += 1


def call_until_connected(zk: ZooKeeperClient, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` (blocking ZooKeeper calls), run again once reconnected when it fails
    with ConnectionLoss: Kafka's controller never sees CONNECTIONLOSS, every
    ``KafkaZkClient`` call retrying until connected. ``fn`` must be safe to run again (reads,
    or writes whose outcome it checks); the same errors as ``requests_until_connected``."""
    generation = zk.session_generation
    attempt = 0
    while True:
        try:
            return fn(*args)
        except ConnectionLoss:
            log.debug("ZooKeeper connection lost during %s; running it again once reconnected", fn)
        _retry_pause(zk, generation, attempt)
        attempt += 1


def _retry_pause(zk: ZooKeeperClient, generation: int, attempt: int) -> None:
    """Wait until reconnected, then back off if this is not the first retry."""
    zk.wait_until_connected(generation)
    if attempt > 0 and zk._closing.wait(min(RETRY_BACKOFF_S * 2 ** (attempt - 1), RETRY_BACKOFF_MAX_S)):
        raise ZooKeeperError("the ZooKeeper session is closed")


def _value(outcome: Any) -> Any:
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


def multi(zk: ZooKeeperClient, ops: Sequence[ZkOp]) -> list[Any]:
    """One atomic ZooKeeper multi (blocking), sent again if the connection drops before its
    answer (the caller checks whether a resent multi had already been applied, as Kafka's
    ``registerControllerAndIncrementControllerEpoch`` does). Returns one result per op: kazoo's result
    (a path for create, a ZnodeStat for set, True for delete/check) or, when the multi
    failed, the failing op's exception instance and RolledBackError for the others."""

    def send(kz: KazooClient) -> Any:
        tx = kz.transaction()
        for op in ops:
            _add_op(tx, op)
        return tx.commit_async()

    (result,) = requests_until_connected(zk, [("multi", send)])
    return _value(result)


def fenced_multi_many(zk: ZooKeeperClient, ops: Sequence[ZkOp], epoch_zk_version: int) -> list[Any]:
    """Each op as its own multi ``[check /controller_epoch version, op]``, pipelined
    (Kafka's ``KafkaZkClient.retryRequestsUntilConnected(requests, expectedControllerEpochZkVersion)``
    with ``wrapRequestWithControllerEpochCheck``). Returns each op's own result (an
    exception instance if it failed). Raises ControllerMovedError if the epoch check
    failed for any (a newer controller exists), KazooException for another check failure.
    """
    from kazoo.exceptions import BadVersionError, RolledBackError

    def fenced(op: ZkOp) -> Callable[[KazooClient], Any]:
        def send(kz: KazooClient) -> Any:
            tx = kz.transaction()
            tx.check(CONTROLLER_EPOCH_PATH, epoch_zk_version)
            _add_op(tx, op)
            return tx.commit_async()

        return send

    results = []
    moved = False
    for outcome in requests_until_connected(zk, [("fenced multi", fenced(op)) for op in ops]):
        check, inner = _value(outcome)
        if isinstance(check, BadVersionError):
            moved = True
        elif isinstance(check, Exception) and not isinstance(check, RolledBackError):
            raise check
        results.append(inner)
    if moved:
        raise ControllerMovedError(
            f"the controller epoch znode's version is no longer {epoch_zk_version}: another controller was elected"
        )
    return results


def get_many(
    zk: ZooKeeperClient,
    paths: Sequence[str],
    watches: Sequence[Callable[[Any], None] | None] | None = None,
) -> list[tuple[bytes, Any] | None]:
    """(data, ZnodeStat) per path, None where missing: pipelined reads (blocking). With
    ``watches``, each read leaves its one-shot data watch (change or deletion) on the znode
    (none where it is missing)."""
    requests: list[ZkRequest] = [
        (f"get {p}", lambda kz, p=p, w=w: kz.get_async(p, watch=w))
        for p, w in zip(paths, watches or [None] * len(paths), strict=True)
    ]
    return [None if isinstance(r, NoNodeError) else _value(r) for r in requests_until_connected(zk, requests)]


def _exists(zk: ZooKeeperClient, path: str, watch: Callable[[Any], None] | None = None) -> Any:
    (stat,) = requests_until_connected(
        zk, [(f"exists {path}", lambda kz: kz.exists_async(path, watch=watch))]
    )
    return _value(stat)


def get_children(zk: ZooKeeperClient, path: str, watch: Callable[[Any], None] | None = None) -> list[str]:
    """Children of ``path`` ([] if it is missing), optionally leaving a one-shot child watch."""
    (found,) = requests_until_connected(
        zk, [(f"children of {path}", lambda kz: kz.get_children_async(path, watch=watch))]
    )
    if isinstance(found, NoNodeError):
        if watch is not None:  # watch its creation instead
            _exists(zk, path, watch)
        return []
    return _value(found)


def get_data_watched(
    zk: ZooKeeperClient, path: str, watch: Callable[[Any], None]
) -> tuple[bytes, Any] | None:
    """(data, stat) with a one-shot watch (data change or deletion); None if missing, then
    watching its creation (Kafka's ``registerZNodeChangeHandlerAndCheckExistence``)."""
    if _exists(zk, path, watch) is None:
        return None
    return get_many(zk, [path])[0]


def delete_recursive_paths(zk: ZooKeeperClient, path: str) -> list[str]:
    """``path`` and every descendant, deepest first (for a fenced recursive delete)."""
    out: list[str] = []
    for child in get_children(zk, path):
        out.extend(delete_recursive_paths(zk, f"{path}/{child}"))
    if _exists(zk, path) is not None:
        out.append(path)
    return out
