"""The broker's side of controlled shutdown (Kafka's ``KafkaServer.controlledShutdown``, ZooKeeper mode).

Before a ZooKeeper-mode broker stops (``controlled.shutdown.enable``, default true), it asks
the controller to move away the leadership of its partitions, so clients switch to other
replicas at once instead of waiting for the session to expire (ZK_CLUSTER_FACTS §5):

- Each attempt reads the controller id from the metadata cache (it may have moved since
  the last attempt) and its endpoint on the inter-broker listener, and sends
  ControlledShutdown v3 ``{BrokerId, BrokerEpoch}`` (the epoch is the czxid of this
  broker's ``/brokers/ids/<id>`` znode).
- The attempt succeeds when the answer is NONE with no ``RemainingPartitions``. An error
  (STALE_CONTROLLER_EPOCH from a broker that is no longer the controller, ...), partitions
  remaining, no known controller, or a network failure (connect, timeout, lost connection)
  make it fail; after a failed attempt the broker waits
  ``controlled.shutdown.retry.backoff.ms`` and tries again, ``controlled.shutdown.max.retries``
  attempts in all.
- It returns whether the shutdown was controlled; when the attempts run out the caller
  stops anyway (Kafka's "unclean" shutdown).

A client of its own (client id ``broker-<id>``) carries the requests, as Kafka's
``KafkaServer`` makes a ``NetworkClient`` for it; a connection to a controller that moved
(another id, or the same id at another address) is closed before the next attempt.

Differences: Kafka's client id is the bare broker id; here it is ``broker-<id>``, the
convention of every inter-broker client of Moldau. Kafka waits up to
``controller.socket.timeout.ms`` for the connection, then ``request.timeout.ms`` for the
answer; here one ``request_timeout_ms`` bounds both.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from broker.network_client import REQUEST_TIMEOUT_MS, InterBrokerClient, NetworkClientError
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from coordinator.cluster_state import BrokerEndpoint
from protocol.errors import ErrorCode
from protocol.messages import ControlledShutdownRequest, ControlledShutdownResponse

log = logging.getLogger(__name__)

CONTROLLED_SHUTDOWN_VERSION = 3  # what a Kafka 2.4+ (IBP >= 2.4-IV1) broker sends


class ControllerLocator(Protocol):
    """What controlled shutdown reads from the metadata cache (``MetadataCache`` is one)."""

    @property
    def controller_id(self) -> int: ...

    def endpoint(self, broker_id: int, listener: str) -> BrokerEndpoint | None: ...


async def controlled_shutdown(
    metadata: ControllerLocator,
    *,
    listener: str,
    broker_id: int,
    broker_epoch: int,
    max_retries: int,
    retry_backoff_ms: int,
    request_timeout_ms: int = REQUEST_TIMEOUT_MS,
    security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER,
) -> bool:
    """Ask the controller (found in ``metadata``, reached on ``listener``) to move this
    broker's leaders, up to ``max_retries`` attempts ``retry_backoff_ms`` apart; True once
    it answered NONE with nothing remaining."""
    endpoints: dict[int, tuple[str, int]] = {}  # the address each attempt resolved
    client = InterBrokerClient(
        f"broker-{broker_id}", endpoints.get, request_timeout_ms=request_timeout_ms, security=security
    )
    request = ControlledShutdownRequest(broker_id=broker_id, broker_epoch=broker_epoch)
    previous: tuple[int, tuple[str, int]] | None = None
    log.info("broker %d: starting controlled shutdown", broker_id)
    try:
        for attempt in range(1, max_retries + 1):
            target = _controller(metadata, listener, broker_id)
            if target is not None:
                if previous is not None and previous != target:
                    client.forget(previous[0])  # the controller moved: a fresh connection
                previous = target
                endpoints.clear()
                endpoints[target[0]] = target[1]
                if await _attempt(client, request, target[0], broker_id):
                    return True
            remaining = max_retries - attempt
            if remaining > 0:
                await asyncio.sleep(retry_backoff_ms / 1000)  # Kafka's fixed backoff between attempts
                log.info(
                    "broker %d: retrying controlled shutdown (%d retries remaining)", broker_id, remaining
                )
        log.info("broker %d: controlled shutdown did not succeed after %d attempts", broker_id, max_retries)
        return False
    finally:
        await client.close()


def _controller(
    metadata: ControllerLocator, listener: str, broker_id: int
) -> tuple[int, tuple[str, int]] | None:
    controller_id = metadata.controller_id
    if controller_id < 0:
        log.info("broker %d: no controller present in the metadata cache", broker_id)
        return None
    endpoint = metadata.endpoint(controller_id, listener)
    if endpoint is None:
        log.info(
            "broker %d: broker registration for controller %d is not available in the metadata cache",
            broker_id,
            controller_id,
        )
        return None
    return controller_id, (endpoint.host, endpoint.port)


async def _attempt(
    client: InterBrokerClient, request: ControlledShutdownRequest, controller_id: int, broker_id: int
) -> bool:
    try:
        response: ControlledShutdownResponse = await client.send(
            controller_id, request, CONTROLLED_SHUTDOWN_VERSION
        )
    except NetworkClientError as exc:
        log.warning(
            "broker %d: error during controlled shutdown (controller %d): %s", broker_id, controller_id, exc
        )
        client.disconnect(controller_id)
        return False
    if response.error_code != ErrorCode.NONE.code:
        log.info(
            "broker %d: controlled shutdown request to controller %d returned error %s (%d)",
            broker_id,
            controller_id,
            ErrorCode.for_code(response.error_code).name,
            response.error_code,
        )
        return False
    if response.remaining_partitions:
        log.info(
            "broker %d: controlled shutdown request to controller %d returned with %d partitions remaining to move",
            broker_id,
            controller_id,
            len(response.remaining_partitions),
        )
        log.debug(
            "broker %d: remaining partitions: %s",
            broker_id,
            [(p.topic_name, p.partition_index) for p in response.remaining_partitions],
        )
        return False
    log.info("broker %d: controlled shutdown request to controller %d succeeded", broker_id, controller_id)
    return True
