"""API handlers: one module per Kafka API key, registered with the versions it serves.

A handler module declares itself with the ``handler`` decorator::

    @handler(ApiKey.METADATA, versions=(0, 12))
    def handle_metadata(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse: ...

The registry is the single source of what the broker serves: the connection
layer dispatches through it and the ApiVersions handler advertises exactly
its ranges (``advertise_from`` lets Produce advertise v0 as Kafka 4 does, while
only accepting v3+, KAFKA-18659). Handlers may be ``async def``; returning
``None`` sends no response (acks=0 produce).

``served_when`` makes an API depend on how the broker runs (the controller-to-broker
APIs exist only in ZooKeeper mode): ``served_handlers(broker)`` evaluates the predicates
once, when the server starts, so dispatch stays one dict lookup and an API a broker does
not serve is neither advertised nor accepted (the connection is closed as for an unknown
key, as Kafka does for an API outside its ``ApiVersions`` scope).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import ipaddress
import pkgutil
import socket
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from broker.security.authenticator import PLAINTEXT_AUTHENTICATOR, ConnectionAuthenticator
from coordinator.acl_model import CLUSTER_NAME, AclOperation, ResourceType
from coordinator.principal import ANONYMOUS, KafkaPrincipal
from protocol.messages import REQUESTS, RESPONSES

if TYPE_CHECKING:
    from broker.broker import Broker


@functools.lru_cache(maxsize=1024)
def java_host_address(ip: str) -> str:
    """An IP address as Java's ``InetAddress.getHostAddress`` writes it, the text Kafka's
    authorizer compares ACL hosts with (and JoinGroup's client host, after a "/"). IPv4 is
    unchanged. IPv6 (``Inet6Address``): all 8 groups, lowercase hex without leading zeros,
    never "::" (``::1`` is ``0:0:0:0:0:0:0:1``), a scope as its interface index (Java's
    socket addresses carry the scope id, not the name); an IPv4-mapped address is the IPv4
    client of a dual-stack socket, which Java sees as an ``Inet4Address``."""
    address, _, scope = ip.partition("%")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return ip
    if not isinstance(parsed, ipaddress.IPv6Address):
        return str(parsed)
    if parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    packed = parsed.packed
    text = ":".join(format(int.from_bytes(packed[i : i + 2], "big"), "x") for i in range(0, 16, 2))
    if scope and not scope.isdigit():
        with contextlib.suppress(OSError):  # no such interface here: the name as Python gave it
            scope = str(socket.if_nametoindex(scope))
    return f"{text}%{scope}" if scope else text


@dataclass(slots=True)
class RequestContext:
    """What a handler knows about the request besides its body."""

    broker: Broker
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    peer: str
    connection_id: int
    listener: str
    # who the connection authenticated as (User:ANONYMOUS on PLAINTEXT), for the authorizer
    principal: KafkaPrincipal = ANONYMOUS
    # the connection's authentication state (SaslHandshake / SaslAuthenticate drive it)
    authenticator: ConnectionAuthenticator = PLAINTEXT_AUTHENTICATOR
    # the connection's response writer sends FileRecords (records left in the segment
    # files, broker/response_writer.py); handlers called directly get bytes
    sends_file_records: bool = False

    @property
    def client_host(self) -> str:
        """The client's IP address (``peer`` without its port), as ACL hosts name it: Java's
        ``InetAddress.getHostAddress`` text (``java_host_address``)."""
        host, sep, _ = self.peer.rpartition(":")
        if not sep:
            return self.peer
        return java_host_address(host.strip("[]")) if ":" in host else host

    def authorize(
        self,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str = CLUSTER_NAME,
        *,
        log_denied: bool = True,
    ) -> bool:
        """May this request's principal do ``operation`` on the resource (Kafka's
        ``AuthHelper.authorize``)? Always true without ``authorizer.class.name``. A check that
        only filters or describes passes ``log_denied=False`` (not audited at INFO)."""
        authorizer = self.broker.authorizer
        if not authorizer.enabled:
            return True
        return authorizer.authorize(
            self.principal,
            self.client_host,
            operation,
            resource_type,
            name,
            log_denied=log_denied,
            api_key=self.api_key,
        )

    def authorized(
        self,
        operation: AclOperation,
        resource_type: ResourceType,
        names: Iterable[str],
        *,
        log_denied: bool = True,
    ) -> set[str]:
        """The names among ``names`` this principal may do ``operation`` on (``filterByAuthorized``:
        one action per distinct name, its reference count the times ``names`` holds it, counted
        only when a refusal would be audited)."""
        authorizer = self.broker.authorizer
        if not authorizer.enabled:
            return set(names)
        counts = Counter(names) if authorizer.audits(log_denied) else dict.fromkeys(names, 1)
        principal, host, api_key = self.principal, self.client_host, self.api_key
        return {
            n
            for n, count in counts.items()
            if authorizer.authorize(
                principal,
                host,
                operation,
                resource_type,
                n,
                log_denied=log_denied,
                api_key=api_key,
                ref_count=count,
            )
        }


@dataclass(frozen=True)
class HandlerSpec:
    api_key: int
    min_version: int
    max_version: int
    advertised_min: int
    fn: Callable[..., Any]
    is_async: bool
    request_cls: type
    response_cls: type
    name: str
    served_when: Callable[[Broker], bool] | None = None
    # Its deferred answer is stepped where the purgatory completes it (broker.inline_answer):
    # the handler's first step must need no Task.
    answers_inline: bool = False

    def accepts(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version


REGISTRY: dict[int, HandlerSpec] = {}


class CloseConnection(Exception):
    """Raised by a handler to close the client's connection without a response
    (Kafka does this, for example, when an acks=0 produce fails)."""


def handler(
    api_key: int,
    versions: tuple[int, int],
    *,
    advertise_from: int | None = None,
    served_when: Callable[[Broker], bool] | None = None,
    answers_inline: bool = False,
) -> Callable:
    """Register ``fn`` as the handler of ``api_key`` for ``versions`` (inclusive); with
    ``served_when``, only on brokers for which it is true; ``answers_inline``: see
    ``HandlerSpec``."""
    lo, hi = versions
    request_cls = REQUESTS[int(api_key)]
    response_cls = RESPONSES[int(api_key)]
    vlo, vhi = request_cls.VALID_VERSIONS
    if not (vlo <= lo <= hi <= vhi):
        raise ValueError(f"{request_cls.NAME}: versions {lo}-{hi} outside the spec's {vlo}-{vhi}")

    def register(fn: Callable) -> Callable:
        if int(api_key) in REGISTRY:
            raise ValueError(f"two handlers for API key {int(api_key)}")
        REGISTRY[int(api_key)] = HandlerSpec(
            api_key=int(api_key),
            min_version=lo,
            max_version=hi,
            advertised_min=lo if advertise_from is None else advertise_from,
            fn=fn,
            is_async=inspect.iscoroutinefunction(fn),
            request_cls=request_cls,
            response_cls=response_cls,
            name=request_cls.NAME.removesuffix("Request"),
            served_when=served_when,
            answers_inline=answers_inline,
        )
        return fn

    return register


def load_handlers() -> dict[int, HandlerSpec]:
    """Import every handler module of this package (each registers itself)."""
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
    return REGISTRY


def served_handlers(broker: Broker) -> dict[int, HandlerSpec]:
    """The handlers ``broker`` serves: the registry less those whose ``served_when`` is false."""
    return {k: s for k, s in REGISTRY.items() if s.served_when is None or s.served_when(broker)}


def zookeeper_mode(broker: Broker) -> bool:
    """``served_when`` of the controller-to-broker APIs: ``zookeeper.connect`` is set."""
    return bool(broker.config["zookeeper.connect"])
