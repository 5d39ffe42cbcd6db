"""What brokers ask of the ZooKeeper-mode controller, and preferred leader election.

- ControlledShutdown (``KafkaController.doControlledShutdown``, ZK_CLUSTER_FACTS §5),
- ElectLeaders (``processReplicaLeaderElection``, §8),
- AlterPartition (``tryProcessAlterPartition``, §7),
- a topic's unclean leader election being enabled,
- the legacy ``/admin/preferred_replica_election`` trigger and the auto leader rebalance
  (``checkAndTriggerAutoLeaderRebalance``, §8).

Each request is an event of the controller's queue (``KafkaController._call``), so it sees
and changes the state in order with the ZooKeeper events. A mixin of ``KafkaController``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from kazoo.exceptions import BadVersionError

from coordinator import zk_data as zd
from coordinator.zk_controller_channel import RequestBatch
from coordinator.zk_election import ControllerContext, ElectionType, Strategy, TopicPartition
from coordinator.zookeeper import ControllerMovedError, ZooKeeperClient, get_data_watched
from protocol.errors import ErrorCode
from protocol.messages import AlterPartitionRequest, AlterPartitionResponse

log = logging.getLogger(__name__)


class ControllerRequests:
    """Request handling and preferred elections (needs KafkaController's internals)."""

    broker_id: int
    zk: ZooKeeperClient
    ctx: ControllerContext
    active: bool
    auto_rebalance: bool
    rebalance_interval_s: float
    imbalance_pct: int
    _loop: asyncio.AbstractEventLoop | None
    _rebalance_timer: asyncio.TimerHandle | None
    _call: Callable[..., Awaitable[Any]]
    _put: Callable[..., None]
    _zk: Callable[..., Awaitable[Any]]
    _fenced: Callable[..., Awaitable[list[Any]]]
    _batch: Callable[[], RequestBatch]
    _send: Callable[[RequestBatch], None]
    _elect_partitions: Callable[..., Awaitable[Any]]
    _replicas_offline: Callable[..., Awaitable[None]]
    _on_preferred_election: Callable[[Any], None]
    _after_isr_change: Callable[[Sequence[TopicPartition]], None]

    # ------------------------------------------------------------------ preferred leaders

    async def _process_preferred_election_znode(self) -> None:
        """``/admin/preferred_replica_election`` (legacy trigger): elect, then delete the znode."""
        if not self.active:
            return
        found = await self._zk(
            get_data_watched, self.zk, zd.PREFERRED_REPLICA_ELECTION_PATH, self._on_preferred_election
        )
        if found is None:
            return
        wanted = zd.decode_partitions_list(found[0])
        tps = [
            tp
            for tp in wanted
            if self.ctx.replicas(tp)
            and tp[0] not in self.ctx.topics_to_delete
            and (s := self.ctx.states.get(tp)) is not None
            and s.leader != self.ctx.replicas(tp)[0]
        ]
        if tps:
            await self._elect_partitions(tps, Strategy.PREFERRED)
        await self._fenced([("delete", zd.PREFERRED_REPLICA_ELECTION_PATH, -1)])

    def _schedule_rebalance(self, delay_s: float) -> None:
        assert self._loop is not None
        if self._rebalance_timer is not None:
            self._rebalance_timer.cancel()
        self._rebalance_timer = self._loop.call_later(
            delay_s, self._put, "AutoPreferredReplicaLeaderElection", self._auto_rebalance_event
        )

    async def _auto_rebalance_event(self) -> None:
        if not self.active:
            return
        try:
            await self.check_and_trigger_auto_rebalance()
        finally:
            if self.active and self.auto_rebalance:
                self._schedule_rebalance(self.rebalance_interval_s)

    async def check_and_trigger_auto_rebalance(self) -> list[TopicPartition]:
        """``checkAndTriggerAutoLeaderRebalance`` (call it from the event queue): returns the
        partitions given back to their preferred replica."""
        by_preferred: dict[int, list[TopicPartition]] = {}
        for tp in self.ctx.all_partitions():
            replicas = self.ctx.replicas(tp)
            if replicas and tp[0] not in self.ctx.topics_to_delete:
                by_preferred.setdefault(replicas[0], []).append(tp)
        live = self.ctx.live()
        candidates: list[TopicPartition] = []
        for broker, tps in sorted(by_preferred.items()):
            imbalanced = [
                tp for tp in tps if (s := self.ctx.states.get(tp)) is not None and s.leader != broker
            ]
            if len(imbalanced) / len(tps) > self.imbalance_pct / 100:
                candidates += [
                    tp for tp in imbalanced if broker in live and broker in self.ctx.states[tp].isr
                ]
        if not candidates:
            return []
        elected, _ = await self._elect_partitions(candidates, Strategy.PREFERRED)
        return sorted(elected)

    # ------------------------------------------------------------------ requests from brokers

    async def controlled_shutdown(
        self, broker_id: int, broker_epoch: int
    ) -> tuple[ErrorCode, list[TopicPartition]]:
        """ControlledShutdown (``KafkaController.doControlledShutdown``): (error, partitions the
        broker still leads). STALE_CONTROLLER_EPOCH when not the controller, as Kafka answers."""
        try:
            return await self._call(
                "ControlledShutdown", lambda: self._do_controlled_shutdown(broker_id, broker_epoch)
            )
        except ControllerMovedError:
            return ErrorCode.STALE_CONTROLLER_EPOCH, []

    async def _do_controlled_shutdown(
        self, broker_id: int, broker_epoch: int
    ) -> tuple[ErrorCode, list[TopicPartition]]:
        if not self.active:
            return ErrorCode.STALE_CONTROLLER_EPOCH, []
        info = self.ctx.brokers.get(broker_id)
        if info is not None and broker_epoch != -1 and broker_epoch < info.epoch:
            return ErrorCode.STALE_BROKER_EPOCH, []
        if info is None:
            return ErrorCode.BROKER_NOT_AVAILABLE, []
        log.info("controller %d: controlled shutdown of broker %d", self.broker_id, broker_id)
        self.ctx.shutting_down.add(broker_id)
        to_act = [
            tp
            for tp in self.ctx.partitions_on_broker(broker_id)
            if len(self.ctx.replicas(tp)) > 1
            and tp in self.ctx.states
            and self.ctx.states[tp].leader != zd.NO_LEADER
            and tp[0] not in self.ctx.topics_to_delete
        ]
        led = [tp for tp in to_act if self.ctx.states[tp].leader == broker_id]
        followed = [tp for tp in to_act if self.ctx.states[tp].leader != broker_id]
        if led:
            await self._elect_partitions(led, Strategy.CONTROLLED_SHUTDOWN)
        await self._replicas_offline([(tp, broker_id) for tp in followed])
        # ControllerContext.partitionLeadersOnBroker: what no election can move (one replica,
        # a topic being deleted) does not count as remaining, or the shutdown never succeeds.
        remaining = sorted(
            tp
            for tp, s in self.ctx.states.items()
            if s.leader == broker_id
            and len(self.ctx.replicas(tp)) > 1
            and tp[0] not in self.ctx.topics_to_delete
        )
        return ErrorCode.NONE, remaining

    def enable_topic_unclean_leader_election(self, topic: str) -> None:
        """The topic's ``unclean.leader.election.enable`` is true in ``/config/topics/<t>``
        (every broker's topic config handler calls this on a change): on the active controller,
        queue Kafka's ``TopicUncleanLeaderElectionEnable`` event, which elects for the topic's
        partitions without a leader (``KafkaController.enableTopicUncleanLeaderElection``)."""
        if self.active:
            self._put("TopicUncleanLeaderElectionEnable", lambda: self._do_enable_unclean(topic))

    async def _do_enable_unclean(self, topic: str) -> None:
        if not self.active or topic in self.ctx.topics_to_delete:
            return
        registered = set(self.ctx.brokers)
        offline = [
            tp for tp, s in sorted(self.ctx.states.items()) if tp[0] == topic and s.leader not in registered
        ]
        if offline:
            await self._elect_partitions(offline, Strategy.OFFLINE)

    async def elect_leaders(
        self, election_type: ElectionType | int, partitions: Sequence[TopicPartition] | None
    ) -> dict[TopicPartition, tuple[ErrorCode, str | None]]:
        """ElectLeaders (``processReplicaLeaderElection``): per partition (error, message).
        ``partitions`` None means all, and then ELECTION_NOT_NEEDED results are left out."""
        election_type = ElectionType(
            int(election_type.value if isinstance(election_type, ElectionType) else election_type)
        )
        try:
            return await self._call(
                "ReplicaLeaderElection", lambda: self._do_elect_leaders(election_type, partitions)
            )
        except ControllerMovedError:
            return {tp: (ErrorCode.NOT_CONTROLLER, None) for tp in partitions or ()}

    async def _do_elect_leaders(
        self, election_type: ElectionType, partitions: Sequence[TopicPartition] | None
    ) -> dict[TopicPartition, tuple[ErrorCode, str | None]]:
        if not self.active:
            return {tp: (ErrorCode.NOT_CONTROLLER, None) for tp in partitions or ()}
        wanted = self.ctx.all_partitions() if partitions is None else list(dict.fromkeys(partitions))
        results: dict[TopicPartition, tuple[ErrorCode, str | None]] = {}
        live = self.ctx.live()
        to_elect = []
        for tp in wanted:
            replicas = self.ctx.replicas(tp)
            state = self.ctx.states.get(tp)
            if not replicas:
                results[tp] = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
            elif tp[0] in self.ctx.topics_to_delete:
                results[tp] = (ErrorCode.INVALID_TOPIC_EXCEPTION, "The topic is being deleted")
            elif (
                election_type is ElectionType.PREFERRED and state is not None and state.leader == replicas[0]
            ) or (election_type is ElectionType.UNCLEAN and state is not None and state.leader in live):
                results[tp] = (
                    ErrorCode.ELECTION_NOT_NEEDED,
                    "Leader election not needed for topic partition.",
                )
            else:
                to_elect.append(tp)
        if to_elect:
            if election_type is ElectionType.PREFERRED:
                elected, failed = await self._elect_partitions(to_elect, Strategy.PREFERRED)
                failure = ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE
            else:
                elected, failed = await self._elect_partitions(to_elect, Strategy.OFFLINE, allow_unclean=True)
                failure = ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE
            for tp in to_elect:
                results[tp] = (ErrorCode.NONE, None) if tp in elected else (failure, failed.get(tp))
        if partitions is None:
            results = {tp: r for tp, r in results.items() if r[0] is not ErrorCode.ELECTION_NOT_NEEDED}
        return results

    async def alter_partition(self, request: AlterPartitionRequest, version: int) -> AlterPartitionResponse:
        """AlterPartition from a partition leader (``tryProcessAlterPartition``)."""
        try:
            return await self._call(
                "AlterPartitionReceived", lambda: self._do_alter_partition(request, version)
            )
        except ControllerMovedError:
            return AlterPartitionResponse(error_code=ErrorCode.NOT_CONTROLLER.code)
        except Exception:
            log.exception("controller %d: AlterPartition failed", self.broker_id)
            return AlterPartitionResponse(error_code=ErrorCode.UNKNOWN_SERVER_ERROR.code)

    async def _do_alter_partition(
        self, request: AlterPartitionRequest, version: int
    ) -> AlterPartitionResponse:
        if not self.active:
            return AlterPartitionResponse(error_code=ErrorCode.NOT_CONTROLLER.code)
        info = self.ctx.brokers.get(request.broker_id)
        if info is None or request.broker_epoch != info.epoch:
            return AlterPartitionResponse(error_code=ErrorCode.STALE_BROKER_EPOCH.code)
        by_id = {tid: t for t, tid in self.ctx.topic_ids.items()}
        live = self.ctx.live()
        out_topics = []
        writes: list[tuple[TopicPartition, zd.LeaderIsrAndEpoch, Any]] = []
        for topic_data in request.topics:
            name = by_id.get(topic_data.topic_id) if version >= 2 else topic_data.topic_name
            out_topic = AlterPartitionResponse.TopicData(
                topic_name=topic_data.topic_name, topic_id=topic_data.topic_id
            )
            out_topics.append(out_topic)
            for pd in topic_data.partitions:
                out = AlterPartitionResponse.PartitionData(partition_index=pd.partition_index)
                out_topic.partitions.append(out)
                error = self._check_alter(name, pd, version, live, request.broker_id, out, writes)
                out.error_code = error.code
        results = await self._fenced(
            [
                ("set", zd.partition_state_path(*tp), zd.encode_partition_state(n), n.partition_epoch)
                for tp, n, _ in writes
            ]
        )
        batch = self._batch()
        changed = []
        for (tp, new, out), result in zip(writes, results, strict=True):
            if isinstance(result, BadVersionError):
                out.error_code = ErrorCode.INVALID_UPDATE_VERSION.code
            elif isinstance(result, Exception):
                out.error_code = ErrorCode.UNKNOWN_SERVER_ERROR.code
            else:
                new = replace(new, partition_epoch=result.version)
                self.ctx.states[tp] = new
                _fill(out, new)
                batch.add_update_metadata(self.ctx.brokers, [tp])
                changed.append(tp)
        self._send(batch)
        self._after_isr_change(changed)  # reassignments the new ISRs may complete
        return AlterPartitionResponse(error_code=0, topics=out_topics)

    def _check_alter(
        self,
        topic: str | None,
        pd: Any,
        version: int,
        live: set[int],
        requester: int,
        out: Any,
        writes: list[tuple[TopicPartition, zd.LeaderIsrAndEpoch, Any]],
    ) -> ErrorCode:
        """The per-partition checks of ``tryProcessAlterPartition``, in Kafka's order."""
        if topic is None:
            return ErrorCode.UNKNOWN_TOPIC_ID if version >= 2 else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        tp = (topic, pd.partition_index)
        cur = self.ctx.states.get(tp)
        if cur is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if pd.partition_epoch > cur.partition_epoch or pd.leader_epoch > cur.leader_epoch:
            return ErrorCode.NOT_CONTROLLER
        if pd.leader_epoch < cur.leader_epoch:
            return ErrorCode.FENCED_LEADER_EPOCH
        new_isr = tuple(b.broker_id for b in pd.new_isr_with_epochs) if version >= 3 else tuple(pd.new_isr)
        recovery = pd.leader_recovery_state if version >= 1 else zd.RECOVERED
        if (requester, new_isr, recovery) == (cur.leader, cur.isr, cur.leader_recovery_state):
            _fill(out, cur)  # already so: idempotent success
            return ErrorCode.NONE
        if pd.partition_epoch < cur.partition_epoch:
            return ErrorCode.INVALID_UPDATE_VERSION
        if (recovery == zd.RECOVERING and len(new_isr) > 1) or (
            cur.leader_recovery_state == zd.RECOVERED and recovery == zd.RECOVERING
        ):
            return ErrorCode.INVALID_REQUEST
        if any(b not in live for b in new_isr):
            return ErrorCode.INELIGIBLE_REPLICA if version > 1 else ErrorCode.OPERATION_NOT_ATTEMPTED
        new = zd.LeaderIsrAndEpoch(
            requester, pd.leader_epoch, new_isr, self.ctx.epoch, recovery, pd.partition_epoch
        )
        writes.append((tp, new, out))
        return ErrorCode.NONE


def _fill(out: Any, state: zd.LeaderIsrAndEpoch) -> None:
    out.leader_id = state.leader
    out.leader_epoch = state.leader_epoch
    out.isr = list(state.isr)
    out.leader_recovery_state = state.leader_recovery_state
    out.partition_epoch = state.partition_epoch
