"""A ZooKeeper-mode broker's first Metadata answers wait for the controller's view.

Until the controller's first UpdateMetadata the broker knows only itself and no controller;
librdkafka, given such an answer, waits for a controller until its metadata refresh interval
(minutes). So Metadata is held (up to a few seconds) for the first UpdateMetadata.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from broker.handlers import RequestContext
from broker.handlers.metadata import handle_metadata
from broker.metadata_cache import MetadataCache
from coordinator.acl_authorizer import AllowAll
from coordinator.cluster_state import BrokerEndpoint, LiveBroker
from protocol.messages import MetadataRequest


def _ctx(cache: MetadataCache) -> RequestContext:
    broker = SimpleNamespace(
        authorizer=AllowAll(),
        metadata_cache=cache,
        config={"auto.create.topics.enable": False, "max.partitions.per.request": 1000},
    )
    return RequestContext(broker, 3, 12, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]


def _broker(i: int) -> LiveBroker:
    return LiveBroker(i, (BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9090 + i),), None)


def test_metadata_waits_for_the_first_update_metadata() -> None:
    async def scenario() -> None:
        cache = MetadataCache(1, "cluster")  # ZooKeeper mode: no controller known yet
        cache.on_brokers_changed([_broker(1)])
        assert not cache.has_cluster_view
        answer = asyncio.ensure_future(handle_metadata(_ctx(cache), MetadataRequest(topics=[])))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not answer.done()
        cache.update_metadata(2, [_broker(0), _broker(1), _broker(2)], {}, [])
        response = await asyncio.wait_for(answer, 10)
        assert response.controller_id == 2
        assert sorted(b.node_id for b in response.brokers) == [0, 1, 2]

    asyncio.run(scenario())


def test_an_embedded_broker_answers_at_once() -> None:
    async def scenario() -> None:
        cache = MetadataCache(0, "cluster", controller_id=0)
        cache.on_brokers_changed([_broker(0)])
        response = await asyncio.wait_for(handle_metadata(_ctx(cache), MetadataRequest(topics=[])), 1)
        assert response.controller_id == 0

    asyncio.run(scenario())
