"""The ZooKeeper-mode controller's connections to the brokers (Kafka's ``ControllerChannelManager``).

Implements ``coordinator.zk_controller_channel.ControllerChannel`` over the inter-broker
client: one ordered queue per registered broker (``BrokerChannelManager``), addressed on
the inter-broker listener of its ``/brokers/ids/<id>`` registration (not the metadata
cache: the controller knows brokers before any UpdateMetadata has told this broker of
them). Requests carry the client id ``broker-<id>`` of this broker. The controller sends to
itself over the network too, as Kafka's does. Requests are never superseded: an
UpdateMetadata carries only the partitions that changed, so each one counts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from broker.network_client import BrokerChannelManager, InterBrokerClient
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from coordinator.zk_data import BrokerInfo

log = logging.getLogger(__name__)


class NetworkControllerChannel:
    """``ControllerChannel`` over ``BrokerChannelManager`` (one sender task per broker)."""

    def __init__(
        self,
        broker_id: int,
        inter_broker_listener: str,
        security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER,
    ) -> None:
        self.listener = inter_broker_listener
        self._endpoints: dict[int, tuple[str, int]] = {}
        self.client = InterBrokerClient(f"broker-{broker_id}", self._endpoints.get, security=security)
        self.channels = BrokerChannelManager(self.client)
        self._removals: set[asyncio.Task] = set()

    def add_broker(self, broker: BrokerInfo) -> None:
        endpoint = next((e for e in broker.endpoints if e.name == self.listener), None)
        if endpoint is None:
            log.warning(
                "broker %d registered no %s listener: the controller cannot reach it",
                broker.broker_id,
                self.listener,
            )
            return
        address = (endpoint.host, endpoint.port)
        if self._endpoints.get(broker.broker_id, address) != address:
            self.client.disconnect(broker.broker_id)  # re-registered elsewhere: reconnect there
        self._endpoints[broker.broker_id] = address
        self.channels.add_broker(broker.broker_id)

    def remove_broker(self, broker_id: int) -> None:
        self._endpoints.pop(broker_id, None)
        channel = self.channels.channels.pop(broker_id, None)
        self.client.forget(broker_id)
        if channel is not None:
            task = asyncio.get_running_loop().create_task(channel.close())
            self._removals.add(task)
            task.add_done_callback(self._removals.discard)

    def send(self, broker_id: int, request: Any, version: int) -> asyncio.Future[Any]:
        return self.channels.enqueue(broker_id, request, version)

    async def close(self) -> None:
        await self.channels.close()
        if self._removals:
            await asyncio.gather(*self._removals, return_exceptions=True)
        await self.client.close()
