"""Metadata answers from encoded topic entries: byte-identical to the generic encoding of
Topic and Partition objects (what the handler built before ``TopicEntryEncoder``)."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

import pytest

from broker.handlers import RequestContext
from broker.handlers.metadata import EncodedTopicsResponse, TopicEntryEncoder, encode_topic, handle_metadata
from broker.metadata_cache import MetadataCache
from coordinator.acl_authorizer import AllowAll
from coordinator.cluster_state import NO_LEADER, BrokerEndpoint, LiveBroker, PartitionState, TopicMetadata
from protocol.errors import ErrorCode
from protocol.messages import MetadataRequest, MetadataResponse

Topic = MetadataResponse.MetadataResponseTopic
Partition = MetadataResponse.MetadataResponsePartition


def topics(n: int) -> list[Topic]:
    return [
        Topic(
            error_code=0,
            name=f"t{t}",
            topic_id=uuid.uuid4(),
            is_internal=t == 0,
            partitions=[
                Partition(
                    partition_index=p,
                    leader_id=p % 2,
                    leader_epoch=3,
                    replica_nodes=[0, 1],
                    isr_nodes=[p % 2],
                    offline_replicas=[],
                )
                for p in range(3)
            ],
            topic_authorized_operations=1234,
        )
        for t in range(n)
    ]


@pytest.mark.parametrize("version", range(13))
@pytest.mark.parametrize("count", [0, 1, 130])  # 130: a compact array length of two bytes
def test_encoded_entries_give_the_plain_encoding(version, count):
    ts = topics(count)
    fields = dict(
        throttle_time_ms=5,
        brokers=[MetadataResponse.MetadataResponseBroker(node_id=0, host="h", port=1, rack="r")],
        cluster_id="c",
        controller_id=0,
        topics=ts,
        cluster_authorized_operations=7,
    )
    plain = bytes(MetadataResponse(**fields).encode(version))
    del fields["topics"]
    # Entries as bytes (encoded ahead) and as Topic objects, mixed.
    entries = [encode_topic(t, version) if i % 2 else t for i, t in enumerate(ts)]
    assert bytes(EncodedTopicsResponse(topic_entries=entries, **fields).encode(version)) == plain
    assert bytes(EncodedTopicsResponse(topic_entries=list(ts), **fields).encode(version)) == plain


def reference_partitions(cache: MetadataCache, topic: str, listener: str, version: int) -> list[Partition]:
    """The handler's Partition objects before TopicEntryEncoder (ZkMetadataCache.getPartitionMetadata)."""
    out = []
    for state in cache.partition_states(topic):
        replicas, isr = list(state.replicas), list(state.isr)
        if version == 0:
            replicas = [b for b in replicas if cache.endpoint(b, listener) is not None]
            isr = [b for b in isr if cache.endpoint(b, listener) is not None]
        leader = NO_LEADER
        if cache.endpoint(state.leader, listener) is None:
            if not cache.is_alive(state.leader) or version < 6:
                error = ErrorCode.LEADER_NOT_AVAILABLE
            else:
                error = ErrorCode.LISTENER_NOT_FOUND
        else:
            leader = state.leader
            if len(replicas) < len(state.replicas) or len(isr) < len(state.isr):
                error = ErrorCode.REPLICA_NOT_AVAILABLE
            else:
                error = ErrorCode.NONE
        out.append(
            Partition(
                error_code=error.code,
                partition_index=state.partition,
                leader_id=leader,
                leader_epoch=state.leader_epoch,
                replica_nodes=replicas,
                isr_nodes=isr,
                offline_replicas=list(state.offline_replicas),
            )
        )
    return out


@pytest.mark.parametrize("version", range(13))
@pytest.mark.parametrize("ops_bits", [-(1 << 31), 0x5F8])
def test_topic_entry_encoder_gives_the_generic_encoding(version, ops_bits):
    # Broker 0 and 1 on PLAINTEXT, broker 2 only on another listener, broker 3 not alive.
    cache = MetadataCache(0, "cluster", controller_id=0)
    cache.on_brokers_changed(
        [
            LiveBroker(0, (BrokerEndpoint("PLAINTEXT", "h0", 9090),), None),
            LiveBroker(1, (BrokerEndpoint("PLAINTEXT", "h1", 9091), BrokerEndpoint("SSL", "h1", 9191)), "r1"),
            LiveBroker(2, (BrokerEndpoint("SSL", "h2", 9192),), None),
        ]
    )
    shapes = [
        dict(leader=0, leader_epoch=7, isr=(0,), replicas=(0,)),
        dict(leader=1, leader_epoch=0, isr=(1, 0), replicas=(0, 1)),
        dict(leader=0, leader_epoch=3, isr=(0, 2), replicas=(0, 1, 2)),  # 2: no endpoint here
        dict(leader=2, leader_epoch=1, isr=(2,), replicas=(2, 0)),  # leader without the listener
        dict(leader=3, leader_epoch=2, isr=(3,), replicas=(3, 1), offline_replicas=(3,)),  # dead
        dict(leader=NO_LEADER, leader_epoch=5, isr=(), replicas=(1,), offline_replicas=(1,)),
        dict(leader=1, leader_epoch=(1 << 31) - 1, isr=tuple(range(40)), replicas=tuple(range(200))),
    ]
    topics = {
        "t": TopicMetadata("t", uuid.uuid4(), 130),  # 130 partitions: a compact length of 2 bytes
        "__consumer_offsets": TopicMetadata("__consumer_offsets", uuid.uuid4(), len(shapes)),
        "ünïcode-" + "x" * 120: TopicMetadata("ünïcode-" + "x" * 120, uuid.uuid4(), 1),
    }
    states = [PartitionState("t", p, **shapes[p % len(shapes)]) for p in range(130)]
    states += [PartitionState("__consumer_offsets", p, **shape) for p, shape in enumerate(shapes)]
    states += [PartitionState("ünïcode-" + "x" * 120, 0, **shapes[0])]
    cache.on_topics_changed(topics, states)
    for listener in ("PLAINTEXT", "SSL"):
        encoder = TopicEntryEncoder(cache, listener, version)
        for t in topics.values():
            reference = Topic(
                error_code=0,
                name=t.name,
                topic_id=t.topic_id,
                is_internal=t.is_internal,
                partitions=reference_partitions(cache, t.name, listener, version),
                topic_authorized_operations=ops_bits,
            )
            assert encoder.encode(t, ops_bits) == encode_topic(reference, version), (listener, t.name)


def test_reused_entries_follow_every_change_of_the_cluster_view():
    def broker(i: int, port: int = 9090) -> LiveBroker:
        return LiveBroker(i, (BrokerEndpoint("PLAINTEXT", "127.0.0.1", port + i),), None)

    cache = MetadataCache(0, "cluster", controller_id=0)
    cache.on_brokers_changed([broker(0), broker(1)])
    ctx = RequestContext(
        SimpleNamespace(
            metadata_cache=cache,
            config={"auto.create.topics.enable": False, "max.partitions.per.request": 1000},
            authorizer=AllowAll(),
            topic_admin=SimpleNamespace(is_busy=lambda name: False),
        ),  # type: ignore[arg-type]
        3,
        12,
        1,
        "test",
        "peer",
        1,
        "PLAINTEXT",
    )

    def view() -> dict:
        response = asyncio.run(handle_metadata(ctx, MetadataRequest(topics=None)))
        encoded = bytes(response.encode(12))
        decoded = MetadataResponse.decode(encoded, 12)
        # The kept entries give what asking for every topic by name (encoded afresh) gives.
        by_name = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in cache.topic_names()]
        )
        assert bytes(asyncio.run(handle_metadata(ctx, by_name)).encode(12)) == encoded
        return {
            (t.name, p.partition_index): (p.error_code, p.leader_id, p.leader_epoch, list(p.isr_nodes))
            for t in decoded.topics
            for p in t.partitions
        }

    def state(topic: str, p: int, leader: int, epoch: int) -> PartitionState:
        return PartitionState(topic, p, leader=leader, leader_epoch=epoch, isr=(leader,), replicas=(0, 1))

    a, b = TopicMetadata("a", uuid.uuid4(), 2), TopicMetadata("b", uuid.uuid4(), 1)
    cache.on_topics_changed({"a": a, "b": b}, [state("a", 0, 0, 0), state("a", 1, 1, 0), state("b", 0, 0, 0)])
    assert view() == view() == {("a", 0): (0, 0, 0, [0]), ("a", 1): (0, 1, 0, [1]), ("b", 0): (0, 0, 0, [0])}
    # A leader change of one partition (UpdateMetadata, the other topic untouched).
    cache.update_metadata(0, [broker(0), broker(1)], {"a": a.topic_id}, [state("a", 1, 0, 1)])
    assert view()[("a", 1)] == (0, 0, 1, [0])
    # A broker gone: its partitions answer LEADER_NOT_AVAILABLE with leader -1.
    cache.update_metadata(0, [broker(0)], {}, [])
    assert view()[("a", 0)] == (0, 0, 0, [0]) and view()[("b", 0)][:2] == (0, 0)
    cache.update_metadata(0, [broker(1)], {}, [])
    assert view()[("b", 0)][:2] == (5, -1)  # LEADER_NOT_AVAILABLE
    # A deleted topic goes, a new one comes.
    cache.on_topic_deleted(b)
    c = TopicMetadata("c", uuid.uuid4(), 1)
    cache.on_topics_changed({"c": c}, [state("c", 0, 1, 0)])
    assert sorted({t for t, _ in view()}) == ["a", "c"]
