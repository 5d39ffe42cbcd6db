"""The controller's per-broker request queue (Kafka's ``ControllerChannelManager`` /
``RequestSendThread``): its ``messageQueue`` is an unbounded ``LinkedBlockingQueue``, so
every LeaderAndIsr / UpdateMetadata / StopReplica for a registered broker that cannot be
reached for a while is delivered, in order, once it can."""

from __future__ import annotations

import asyncio
import socket

from broker.controller_channel import NetworkControllerChannel
from coordinator.cluster_state import BrokerEndpoint
from coordinator.zk_data import BrokerInfo
from protocol.messages import UpdateMetadataRequest

# More than the 10,000 requests the controller's channels used to hold before refusing more.
QUEUED = 10_005


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_requests_to_an_unreachable_registered_broker_are_not_dropped():
    """``ControllerChannelManager.sendRequest`` puts every request in the broker's unbounded
    queue: a broker cut off from the controller (its ZooKeeper session alive) during a burst
    of state changes gets them all once the link heals. (A bounded queue refused them with
    ``ChannelQueueFull``, which the controller's ``_send`` only logged: never resent.)"""

    async def scenario() -> None:
        channel = NetworkControllerChannel(0, "INTERNAL")
        try:
            channel.add_broker(
                BrokerInfo(1, (BrokerEndpoint("INTERNAL", "127.0.0.1", _closed_port()),), epoch=5)
            )
            request = UpdateMetadataRequest(controller_id=0, controller_epoch=1, broker_epoch=5)
            futures, refused = [], []
            for _ in range(QUEUED):
                try:
                    futures.append(asyncio.ensure_future(channel.send(1, request, 8)))
                except Exception as exc:  # what the controller's _send turns into a logged failure
                    refused.append(exc)
            await asyncio.sleep(0)  # one loop turn: a refusal would have failed its future
            refused += [f.exception() for f in futures if f.done() and f.exception() is not None]
            for f in futures:
                f.add_done_callback(lambda f: f.cancelled() or f.exception())
            assert refused == [], f"{len(refused)} requests refused, e.g. {refused[0]!r}"
            assert len(channel.channels.channels[1]) == QUEUED
        finally:
            await channel.close()

    asyncio.run(scenario())
