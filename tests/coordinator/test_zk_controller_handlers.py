"""The broker handlers of ControlledShutdown, AlterPartition and ElectLeaders in front of the
real ZooKeeper-mode controller (real ZooKeeper, fake brokers): the answers a client sees
for each path, and ElectLeaders completing once the controller's UpdateMetadata reaches
the broker that took the request."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace
from typing import Any

import pytest

from broker.handlers import RequestContext
from broker.handlers.alter_partition import handle_alter_partition
from broker.handlers.controlled_shutdown import handle_controlled_shutdown
from broker.handlers.elect_leaders import handle_elect_leaders
from broker.handlers.update_metadata import handle_update_metadata
from broker.metadata_cache import MetadataCache
from broker.purgatory import DelayedOperationPurgatory
from coordinator.acl_authorizer import AllowAll
from coordinator.zk_admin import AdminZkClient
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterPartitionRequest,
    ControlledShutdownRequest,
    ElectLeadersRequest,
    UpdateMetadataRequest,
)
from tests.coordinator.zk_cluster_fakes import FakeBroker, FakeChannel, until
from tests.support.zookeeper_server import zookeeper_shared

pytestmark = pytest.mark.zookeeper
__all__ = ["zookeeper_shared"]  # the module's ZooKeeper fixture


@pytest.fixture
def connect(zookeeper_shared, request) -> str:
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:80]
    return zookeeper_shared.connect(f"/{name}_{uuid.uuid4().hex[:8]}")


class BrokerSide:
    """What the handlers see of one broker: its controller, metadata cache, purgatory."""

    def __init__(self, fake: FakeBroker) -> None:
        self.fake = fake
        self.ns = SimpleNamespace(
            authorizer=AllowAll(),
            config={"zookeeper.connect": "set"},
            kafka_controller=fake.controller,
            metadata_cache=MetadataCache(fake.broker_id, "cluster"),
            replica_manager=SimpleNamespace(
                controller_epoch=0,
                elect_leader_purgatory=DelayedOperationPurgatory("ElectLeader"),
                under_state_change_lock=lambda fn: fn(),
            ),
            zookeeper=fake.zk,
            groups=SimpleNamespace(remove_offsets_of_topic=lambda topic: None),
        )

    def ctx(self, api_key: int, version: int) -> RequestContext:
        return RequestContext(self.ns, api_key, version, 1, "broker-x", "peer", 1, "INTERNAL")  # type: ignore[arg-type]

    async def call(self, fn: Any, api_key: int, version: int, request: Any) -> Any:
        """``request`` as this broker decodes it at ``version``, the answer as the peer does."""
        response = await fn(self.ctx(api_key, version), wire(request, version))
        return wire(response, version)


def wire(message: Any, version: int) -> Any:
    w = bytearray()
    message.write(w, version)
    return type(message).decode(w, version)


class DeliveringChannel(FakeChannel):
    """Also hands the UpdateMetadata meant for ``side`` to its handler, at once or (``hold``)
    when the test says."""

    def __init__(self) -> None:
        super().__init__()
        self.side: BrokerSide | None = None
        self.hold = False
        self.pending: list[UpdateMetadataRequest] = []

    def send(self, broker_id: int, request: Any, version: int) -> asyncio.Future:
        fut = super().send(broker_id, request, version)
        side = self.side
        if (
            isinstance(request, UpdateMetadataRequest)
            and side is not None
            and broker_id == side.fake.broker_id
        ):
            if self.hold:
                self.pending.append(request)
            else:
                self.deliver(request)
        return fut

    def deliver(self, request: UpdateMetadataRequest) -> None:
        assert self.side is not None
        assert handle_update_metadata(self.side.ctx(6, 8), request).error_code == 0

    def release(self) -> None:
        self.hold = False
        pending, self.pending = self.pending, []
        for request in pending:
            self.deliver(request)


def elect(partitions: dict[str, list[int]] | None, election_type: int = 0) -> ElectLeadersRequest:
    return ElectLeadersRequest(
        election_type=election_type,
        topic_partitions=None
        if partitions is None
        else [ElectLeadersRequest.TopicPartitions(topic=t, partitions=ps) for t, ps in partitions.items()],
        timeout_ms=20_000,
    )


def results(resp: Any) -> dict[tuple[str, int], int]:
    return {
        (r.topic, p.partition_id): p.error_code
        for r in resp.replica_election_results
        for p in r.partition_result
    }


def test_handlers_in_front_of_the_real_controller(connect):
    async def scenario():
        channel = DeliveringChannel()
        one = FakeBroker(connect, 1)
        one.channel = channel
        two = await FakeBroker(connect, 2).start()
        three = await FakeBroker(connect, 3).start()
        await one.start(controller=True, auto_leader_rebalance_enable=False)
        controller = one.controller
        assert controller is not None
        await until(lambda: controller.active and set(controller.ctx.brokers) == {1, 2, 3}, what="controller")
        side1 = BrokerSide(one)
        channel.side = side1
        cache = side1.ns.metadata_cache

        admin = AdminZkClient(three.zk)
        for topic, replicas in (("t", [2, 1]), ("solo", [3])):
            await admin.create_topic(
                topic, -1, -1, {}, default_partitions=1, default_replication=1, assignments=[(0, replicas)]
            )
        await until(
            lambda: cache.partition_state("t", 0) and cache.partition_state("solo", 0),
            what="metadata of the topics",
        )
        assert (cache.partition_state("t", 0).leader, cache.partition_state("t", 0).isr) == (2, (2, 1))

        # ---- ControlledShutdown
        def shutdown(broker_id: int, epoch: int) -> ControlledShutdownRequest:
            return ControlledShutdownRequest(broker_id=broker_id, broker_epoch=epoch)

        resp = await side1.call(handle_controlled_shutdown, 7, 3, shutdown(9, -1))
        assert (resp.error_code, resp.remaining_partitions) == (ErrorCode.BROKER_NOT_AVAILABLE.code, [])
        resp = await side1.call(handle_controlled_shutdown, 7, 3, shutdown(3, three.epoch - 1))
        assert (resp.error_code, resp.remaining_partitions) == (ErrorCode.STALE_BROKER_EPOCH.code, [])
        resp = await side1.call(handle_controlled_shutdown, 7, 3, shutdown(3, three.epoch))
        # solo-0 has no other replica: broker 3 still leads it, yet no election could move it,
        # so it does not count as remaining (Kafka's partitionLeadersOnBroker)
        assert resp.error_code == 0
        assert [(p.topic_name, p.partition_index) for p in resp.remaining_partitions] == []
        resp = await side1.call(handle_controlled_shutdown, 7, 1, shutdown(2, 0))  # v1: epoch -1
        assert (resp.error_code, resp.remaining_partitions) == (0, [])
        # t-0 moved to broker 1, without broker 2 in the ISR, and this broker's metadata shows it
        assert (cache.partition_state("t", 0).leader, cache.partition_state("t", 0).isr) == (1, (1,))

        # broker 2 comes back (a new registration), now with a controller that loses the election
        await two.kill()
        await until(lambda: 2 not in controller.ctx.brokers, what="broker 2 gone")
        two = await FakeBroker(connect, 2).start(controller=True)
        await until(lambda: 2 in controller.ctx.live(), what="broker 2 back")
        side2 = BrokerSide(two)
        resp = await side2.call(handle_controlled_shutdown, 7, 3, shutdown(3, three.epoch))
        assert (resp.error_code, resp.remaining_partitions) == (ErrorCode.STALE_CONTROLLER_EPOCH.code, [])

        # ---- ElectLeaders: the preferred replica is live but out of sync
        resp = await side1.call(handle_elect_leaders, 43, 2, elect({"t": [0, 5], "solo": [0]}))
        assert results(resp) == {
            ("t", 0): ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE.code,
            ("t", 5): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
            ("solo", 0): ErrorCode.ELECTION_NOT_NEEDED.code,
        }
        # ... and on a broker that is not the controller
        resp = await side2.call(handle_elect_leaders, 43, 1, elect({"t": [0]}))
        assert (resp.error_code, results(resp)) == (0, {("t", 0): ErrorCode.NOT_CONTROLLER.code})

        # ---- AlterPartition: the leader adds broker 2 back to the ISR
        state = controller.ctx.states[("t", 0)]

        def alter(broker_epoch: int, partition_epoch: int) -> AlterPartitionRequest:
            return AlterPartitionRequest(
                broker_id=1,
                broker_epoch=broker_epoch,
                topics=[
                    AlterPartitionRequest.TopicData(
                        topic_id=controller.ctx.topic_ids["t"],
                        partitions=[
                            AlterPartitionRequest.PartitionData(
                                partition_index=0,
                                leader_epoch=state.leader_epoch,
                                new_isr_with_epochs=[
                                    AlterPartitionRequest.BrokerState(broker_id=b) for b in (1, 2)
                                ],
                                partition_epoch=partition_epoch,
                            )
                        ],
                    )
                ],
            )

        resp = await side2.call(handle_alter_partition, 56, 3, alter(one.epoch, state.partition_epoch))
        assert (resp.error_code, resp.topics) == (ErrorCode.NOT_CONTROLLER.code, [])
        resp = await side1.call(handle_alter_partition, 56, 3, alter(one.epoch - 1, state.partition_epoch))
        assert resp.error_code == ErrorCode.STALE_BROKER_EPOCH.code
        resp = await side1.call(handle_alter_partition, 56, 3, alter(one.epoch, state.partition_epoch))
        [p] = resp.topics[0].partitions
        assert (resp.error_code, p.error_code, p.leader_id, p.isr) == (0, 0, 1, [1, 2])
        assert p.partition_epoch == state.partition_epoch + 1
        assert cache.partition_state("t", 0).isr == (1, 2)  # published with UpdateMetadata

        # ---- ElectLeaders: now broker 2 can lead; the answer waits for the UpdateMetadata
        channel.hold = True
        task = asyncio.ensure_future(side1.call(handle_elect_leaders, 43, 2, elect({"t": [0]})))
        purgatory = side1.ns.replica_manager.elect_leader_purgatory
        await until(lambda: len(purgatory) == 1, what="the election parked")
        assert not task.done() and controller.ctx.states[("t", 0)].leader == 2
        channel.release()
        assert len(purgatory) == 0
        assert results(await task) == {("t", 0): 0}
        assert cache.partition_state("t", 0).leader == 2
        # every partition: all led by their preferred replica, nothing to report
        resp = await side1.call(handle_elect_leaders, 43, 2, elect(None))
        assert (resp.error_code, resp.replica_election_results) == (0, [])

        for b in (two, three, one):
            await b.kill()

    asyncio.run(asyncio.wait_for(scenario(), 90))
