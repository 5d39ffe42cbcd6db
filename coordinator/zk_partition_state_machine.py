"""The ZooKeeper-mode controller's partition and replica state changes.

Kafka's ``ZkPartitionStateMachine`` and ``ZkReplicaStateMachine`` (what the controller does
to partitions and replicas; the election algorithms themselves are ``zk_election``):

- new partitions (``initializeLeaderAndIsrForPartitions``): the first live replica leads,
  ISR = live replicas, leader epoch 0, LeaderAndIsr (isNew) to the ISR;
- elections (``doElectLeaderForPartitions``) under a strategy (offline: ISR first, out-of-sync
  replicas only with ``unclean.leader.election.enable``; preferred; controlled shutdown;
  reassignment), retried when a partition's state changed meanwhile (BADVERSION);
- replicas going offline (OfflineReplica): StopReplica (no delete), ISR shrink keeping the
  last member, leader -1 when the leader died.

Every state write is a fenced multi (``KafkaController._fenced``). A mixin of
``KafkaController``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from kazoo.exceptions import BadVersionError

from coordinator import zk_data as zd
from coordinator.zk_controller_channel import RequestBatch
from coordinator.zk_election import ControllerContext, Strategy, TopicPartition, elect, live_replicas
from coordinator.zookeeper import ZooKeeperClient, get_many

log = logging.getLogger(__name__)

UNCLEAN_CONFIG = "unclean.leader.election.enable"


class PartitionStateMachine:
    """Partition initialization, leader election and offline replicas (needs KafkaController's
    internals)."""

    broker_id: int
    zk: ZooKeeperClient
    ctx: ControllerContext
    unclean_default: bool
    _zk: Callable[..., Awaitable[Any]]
    _fenced: Callable[..., Awaitable[list[Any]]]
    _batch: Callable[[], RequestBatch]
    _send: Callable[[RequestBatch], None]
    _read_states: Callable[..., list[zd.LeaderIsrAndEpoch | None]]

    async def _trigger_online_partition_state_change(self) -> None:
        """New partitions get initialized, offline ones (leader gone) an election."""
        deleting = self.ctx.topics_to_delete
        new = [tp for tp in self.ctx.all_partitions() if tp not in self.ctx.states and tp[0] not in deleting]
        registered = set(self.ctx.brokers)
        offline = [
            tp
            for tp, s in sorted(self.ctx.states.items())
            if s.leader not in registered and tp[0] not in deleting
        ]
        if new:
            await self._init_new_partitions(new)
        if offline:
            await self._elect_partitions(offline, Strategy.OFFLINE)

    async def _init_new_partitions(self, tps: Sequence[TopicPartition]) -> None:
        """``initializeLeaderAndIsrForPartitions``: state znodes, LeaderAndIsr (isNew) to the ISR."""
        live = self.ctx.live()
        planned: dict[TopicPartition, zd.LeaderIsrAndEpoch] = {}
        for tp in tps:
            alive = live_replicas(self.ctx.replicas(tp), live)
            if not alive:
                log.error("controller %d: no live replica for new partition %s-%d", self.broker_id, *tp)
                continue
            planned[tp] = zd.LeaderIsrAndEpoch(alive[0], 0, alive, self.ctx.epoch)
        if not planned:
            return
        topics = sorted({t for t, _ in planned})
        await self._fenced(
            [("create", zd.topic_partitions_path(t), b"") for t in topics]
        )  # NodeExists is fine
        await self._fenced([("create", zd.topic_partition_path(t, p), b"") for t, p in planned])
        keys = list(planned)
        results = await self._fenced(
            [
                ("create", zd.partition_state_path(t, p), zd.encode_partition_state(planned[(t, p)]))
                for t, p in keys
            ]
        )
        batch = self._batch()
        for tp, result in zip(keys, results, strict=True):
            if isinstance(result, Exception):
                log.error(
                    "controller %d: creating the state of %s-%d failed: %r", self.broker_id, *tp, result
                )
                continue
            self.ctx.states[tp] = planned[tp]
            batch.add_leader_and_isr(planned[tp].isr, tp, planned[tp], is_new=True)
        self._send(batch)

    def _topic_unclean(self, topics: Sequence[str]) -> dict[str, bool]:
        found = get_many(self.zk, [zd.config_entity_path("topics", t) for t in topics])
        out = {}
        for t, r in zip(topics, found, strict=True):
            value = zd.decode_config(r[0]).get(UNCLEAN_CONFIG) if r is not None else None
            out[t] = self.unclean_default if value is None else value.strip().lower() == "true"
        return out

    async def _elect_partitions(
        self, tps: Sequence[TopicPartition], strategy: Strategy, *, allow_unclean: bool = False
    ) -> tuple[dict[TopicPartition, zd.LeaderIsrAndEpoch], dict[TopicPartition, str]]:
        """``doElectLeaderForPartitions`` with its retry on BADVERSION: (elected, failed: why)."""
        elected: dict[TopicPartition, zd.LeaderIsrAndEpoch] = {}
        failed: dict[TopicPartition, str] = {}
        unclean: dict[str, bool] = {}
        if strategy is Strategy.OFFLINE and not allow_unclean:
            unclean = await self._zk(self._topic_unclean, sorted({t for t, _ in tps}))
        batch = self._batch()
        remaining = list(tps)
        while remaining:
            current = await self._zk(self._read_states, remaining)
            writes: list[tuple[TopicPartition, zd.LeaderIsrAndEpoch, tuple[int, ...]]] = []
            for tp, cur in zip(remaining, current, strict=True):
                if cur is None:
                    failed[tp] = f"Partition {tp[0]}-{tp[1]} has no state in ZooKeeper"
                    continue
                if cur.controller_epoch > self.ctx.epoch:
                    failed[tp] = (
                        f"Aborted leader election for partition {tp[0]}-{tp[1]}: the state was written by "
                        f"controller epoch {cur.controller_epoch}, newer than {self.ctx.epoch}"
                    )
                    continue
                result = elect(
                    strategy,
                    self.ctx.replicas(tp),
                    cur,
                    self.ctx.live(),
                    self.ctx.shutting_down,
                    unclean=allow_unclean or unclean.get(tp[0], False),
                )
                if result is None:
                    # PartitionStateMachine: the strategy as Scala prints its case class
                    name = strategy.value
                    if strategy is Strategy.OFFLINE:
                        name += "(true)" if allow_unclean else "(false)"
                    failed[tp] = f"Failed to elect leader for partition {tp[0]}-{tp[1]} under strategy {name}"
                    continue
                new = replace(
                    cur.new_leader_and_isr(result.leader, result.isr, self.ctx.epoch),
                    leader_recovery_state=result.recovery_state,
                )
                writes.append((tp, new, result.recipients))
            results = await self._fenced(
                [
                    ("set", zd.partition_state_path(*tp), zd.encode_partition_state(n), n.partition_epoch)
                    for tp, n, _ in writes
                ]
            )
            remaining = []
            for (tp, new, recipients), result in zip(writes, results, strict=True):
                if isinstance(result, BadVersionError):
                    remaining.append(tp)  # changed meanwhile (AlterPartition): read again
                elif isinstance(result, Exception):
                    failed[tp] = f"Updating the state of {tp[0]}-{tp[1]} failed: {result!r}"
                else:
                    new = replace(new, partition_epoch=result.version)
                    self.ctx.states[tp] = new
                    elected[tp] = new
                    batch.add_leader_and_isr(recipients, tp, new)
        self._send(batch)
        if failed:
            # One line per election round, not per partition (10,000 partitions may fail at once).
            shown = "; ".join(list(failed.values())[:3])
            more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
            log.info(
                "controller %d: %d partitions without a leader under %s: %s%s",
                self.broker_id,
                len(failed),
                strategy.value,
                shown,
                more,
            )
        return elected, failed

    async def _replicas_offline(self, replicas: Sequence[tuple[TopicPartition, int]]) -> None:
        """``ReplicaStateMachine`` -> OfflineReplica: StopReplica (no delete) to the replica if it
        is still up, then remove it from the ISR (leader -1 if it led; the last ISR member stays)."""
        if not replicas:
            return
        batch = self._batch()
        by_broker: dict[int, list[TopicPartition]] = {}
        for tp, b in replicas:
            by_broker.setdefault(b, []).append(tp)
            state = self.ctx.states.get(tp)
            batch.add_stop_replica(b, tp, delete=False, leader_epoch=state.leader_epoch if state else -1)
        for b, tps in sorted(by_broker.items()):
            remaining = [tp for tp in tps if tp in self.ctx.states]
            untouched: list[TopicPartition] = []
            while remaining:
                current = await self._zk(self._read_states, remaining)
                writes = []
                for tp, cur in zip(remaining, current, strict=True):
                    if cur is None or b not in cur.isr or cur.controller_epoch > self.ctx.epoch:
                        untouched.append(tp)
                        continue
                    leader = zd.NO_LEADER if cur.leader == b else cur.leader
                    isr = cur.isr if len(cur.isr) == 1 else tuple(r for r in cur.isr if r != b)
                    writes.append((tp, cur.new_leader_and_isr(leader, isr, self.ctx.epoch)))
                results = await self._fenced(
                    [
                        ("set", zd.partition_state_path(*tp), zd.encode_partition_state(n), n.partition_epoch)
                        for tp, n in writes
                    ]
                )
                remaining = []
                for (tp, new), result in zip(writes, results, strict=True):
                    if isinstance(result, BadVersionError):
                        remaining.append(tp)
                    elif isinstance(result, Exception):
                        log.warning(
                            "controller %d: removing %d from the ISR of %s-%d failed: %r",
                            self.broker_id,
                            b,
                            *tp,
                            result,
                        )
                    else:
                        new = replace(new, partition_epoch=result.version)
                        self.ctx.states[tp] = new
                        batch.add_leader_and_isr([r for r in self.ctx.replicas(tp) if r != b], tp, new)
            batch.add_update_metadata(self.ctx.brokers, untouched)
        self._send(batch)
