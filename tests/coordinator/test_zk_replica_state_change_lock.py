"""Broker-side fencing of control requests: LeaderAndIsr, StopReplica and UpdateMetadata are
serialized by Kafka's ``ReplicaManager.replicaStateChangeLock`` (``becomeLeaderOrFollower``,
``stopReplicas`` and ``maybeUpdateMetadataCache`` all take it), so a control request of a
newer controller never runs in the middle of an older controller's LeaderAndIsr."""

from __future__ import annotations

import asyncio
import inspect
import uuid
from types import SimpleNamespace

from broker.handlers import RequestContext
from broker.handlers.update_metadata import handle_update_metadata
from broker.metadata_cache import MetadataCache
from broker.replica_manager import ReplicaManager
from coordinator.acl_authorizer import AllowAll
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.messages import UpdateMetadataRequest

ME = 0


class _HeldLeaderAndIsr:
    """A LeaderAndIsr of controller epoch 1 creating ``t-0``, held in its topic-config read
    (the ``/config/topics/<t>`` read off the loop) until ``release``."""

    def __init__(self, rm: ReplicaManager) -> None:
        self.in_config_read = asyncio.Event()
        self.released = asyncio.Event()
        state = PartitionState("t", 0, ME, 0, (ME,), (ME,), controller_epoch=1, partition_epoch=0)
        self.task = asyncio.create_task(
            rm.become_leader_or_follower(1, 1, [state], {"t": uuid.uuid4()}, topic_overrides=self._overrides)
        )

    async def _overrides(self, topic: str) -> dict[str, str]:
        self.in_config_read.set()
        await self.released.wait()
        return {}

    async def held(self) -> None:
        await asyncio.wait_for(self.in_config_read.wait(), 10)

    async def release(self) -> None:
        self.released.set()
        top, _ = await asyncio.wait_for(self.task, 10)
        assert top is ErrorCode.NONE


def test_newer_controllers_stop_replica_waits_for_an_older_leader_and_isr_in_progress(log_manager):
    """Kafka's ``ReplicaManager.becomeLeaderOrFollower`` / ``stopReplicas`` hold
    ``replicaStateChangeLock``: a StopReplica(delete) of controller epoch 2 that arrives while
    a LeaderAndIsr of epoch 1 is creating the partition's log runs after it, so the
    partition ends up stopped and its log deleted (run first, it found nothing to delete and
    the older LeaderAndIsr then hosted the partition the newer controller deleted)."""

    async def scenario():
        rm = ReplicaManager(ME, log_manager, lambda: 0)
        lai = _HeldLeaderAndIsr(rm)
        await lai.held()

        async def stop_replica():  # the newer controller (epoch 2) deletes the partition meanwhile
            result = rm.stop_replicas(2, 2, [(("t", 0), -2, True)])
            return await result if inspect.isawaitable(result) else result  # sync before the lock

        stopping = asyncio.create_task(stop_replica())
        await asyncio.sleep(0)  # it starts, and waits for the lock
        await lai.release()
        stop_top, stop_errors = await asyncio.wait_for(stopping, 10)
        assert stop_top is ErrorCode.NONE and stop_errors == {("t", 0): ErrorCode.NONE}
        assert rm.get_partition("t", 0) is None
        assert log_manager.get_log("t", 0) is None

    asyncio.run(scenario())


def test_update_metadata_waits_for_a_leader_and_isr_in_progress(log_manager):
    """``maybeUpdateMetadataCache`` takes ``replicaStateChangeLock`` too: an UpdateMetadata
    arriving during a LeaderAndIsr is applied (and answered) after it, and at once when no
    state change is in progress."""

    async def scenario():
        rm = ReplicaManager(ME, log_manager, lambda: 0)
        cache = MetadataCache(ME, "cluster")
        broker = SimpleNamespace(
            authorizer=AllowAll(),
            config={"zookeeper.connect": "set"},
            metadata_cache=cache,
            replica_manager=rm,
            zookeeper=None,
            groups=SimpleNamespace(remove_offsets_of_topic=lambda topic: None),
        )
        ctx = RequestContext(broker, 6, 8, 1, "broker-1", "peer", 1, "INTERNAL")  # type: ignore[arg-type]
        lai = _HeldLeaderAndIsr(rm)
        await lai.held()
        answer = handle_update_metadata(
            ctx, UpdateMetadataRequest(controller_id=2, controller_epoch=2, broker_epoch=-1)
        )
        assert asyncio.iscoroutine(answer), "answered in the middle of the LeaderAndIsr"
        pending = asyncio.ensure_future(answer)
        await asyncio.sleep(0)
        assert cache.controller_id != 2 and rm.controller_epoch == 1
        await lai.release()
        assert (await asyncio.wait_for(pending, 10)).error_code == 0
        assert cache.controller_id == 2 and rm.controller_epoch == 2
        now = handle_update_metadata(
            ctx, UpdateMetadataRequest(controller_id=3, controller_epoch=3, broker_epoch=-1)
        )
        assert now.error_code == 0 and cache.controller_id == 3

    asyncio.run(scenario())
