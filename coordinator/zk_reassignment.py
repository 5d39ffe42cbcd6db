"""Partition reassignment (KIP-455) in the ZooKeeper-mode controller: Kafka 3.9's algorithm.

``KafkaController.onPartitionReassignment``, with RS the full replica set, ORS the original
replicas, TRS the target ones, AR = TRS - ORS (adding) and RR = ORS - TRS (removing):

- **Start** (``updateCurrentReassignment``): ``/brokers/topics/<t>`` gets RS = TRS + ORS with
  ``adding_replicas`` / ``removing_replicas`` (the v3 topic znode); replicas a superseded
  reassignment was adding and the new one does not want are stopped and deleted.
- **Not complete** (TRS not all in the ISR): the leader epoch is bumped in the state znode and
  LeaderAndIsr (with RS, AR, RR) goes to ORS (isNew false) and AR (isNew true): the new
  replicas create their logs and fetch from the leader, which adds them to the ISR once
  caught up (AlterPartition).
- **Complete** (checked when an AlterPartition of the partition succeeds, when a broker with
  one of its replicas starts, and at the start): RS = TRS in memory; a leader not in TRS
  (or dead) is replaced by the first live TRS member of the ISR
  (``ReassignPartitionLeaderElectionStrategy``), else the epoch is bumped; RR replicas go
  offline (out of the ISR, StopReplica) and are deleted (StopReplica with delete); the
  znode is written with RS = TRS and no AR/RR; UpdateMetadata to every broker.
- **Cancellation** (null replicas): the target becomes ORS, so the adding replicas are
  stopped and deleted and the partition completes back on its original replicas. A
  partition not being reassigned answers NO_REASSIGNMENT_IN_PROGRESS.
- **Legacy trigger** ``/admin/reassign_partitions`` (``{"version":1,"partitions":[{"topic",
  "partition","replicas"}]}``): read when it is created, at controller start and right after
  the controller deletes it (one written meanwhile is not missed); each partition is
  reassigned as by the API (an API call for a partition takes it out of the znode), and the
  znode loses each partition as it completes (deleted when empty).
- A topic with a partition being reassigned is not deleted until it completes.

A mixin of ``KafkaController`` (its event queue, fenced writes and request batches).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from kazoo.exceptions import BadVersionError, NoNodeError

from coordinator import zk_data as zd
from coordinator.zk_controller_channel import RequestBatch
from coordinator.zk_election import ControllerContext, ReplicaAssignment, Strategy, TopicPartition
from coordinator.zookeeper import ControllerMovedError, ZooKeeperClient, get_data_watched
from protocol.errors import ErrorCode

log = logging.getLogger(__name__)

ReassignmentResult = tuple[ErrorCode, str | None]
NOT_FOUND = "The partition does not exist."  # KafkaController.maybeTriggerPartitionReassignment
# the default messages of Kafka's Errors (``new ApiError(Errors.X)``), which
# KafkaApis.handleAlterPartitionReassignmentsRequest puts on the wire
NO_REASSIGNMENT = "No partition reassignment is in progress."
UNEXPECTED_ERROR = "The server experienced an unexpected error when processing the request."


class ReassignmentFailed(Exception):
    """A state change of a reassignment could not be made (Kafka's StateChangeFailedException)."""


class PartitionReassignments:
    """AlterPartitionReassignments / ListPartitionReassignments and their state changes."""

    broker_id: int
    zk: ZooKeeperClient
    ctx: ControllerContext
    active: bool
    _call: Callable[..., Awaitable[Any]]
    _put: Callable[..., None]
    _put_threadsafe: Callable[..., None]
    _zk: Callable[..., Awaitable[Any]]
    _fenced: Callable[..., Awaitable[list[Any]]]
    _batch: Callable[[], RequestBatch]
    _send: Callable[[RequestBatch], None]
    _elect_partitions: Callable[..., Awaitable[Any]]
    _replicas_offline: Callable[..., Awaitable[None]]
    _read_states: Callable[..., list[zd.LeaderIsrAndEpoch | None]]
    _resume_deletions: Callable[[], Awaitable[None]]

    # ------------------------------------------------------------------ requests

    async def alter_partition_reassignments(
        self, reassignments: Mapping[TopicPartition, Sequence[int] | None]
    ) -> dict[TopicPartition, ReassignmentResult] | ErrorCode:
        """AlterPartitionReassignments (``processApiPartitionReassignment``): per partition
        (error, message), or NOT_CONTROLLER for the whole request. None cancels."""
        try:
            return await self._call(
                "ApiPartitionReassignment", lambda: self._do_alter_reassignments(reassignments)
            )
        except ControllerMovedError:
            return ErrorCode.NOT_CONTROLLER

    async def list_partition_reassignments(
        self, partitions: Sequence[TopicPartition] | None
    ) -> dict[TopicPartition, ReplicaAssignment] | ErrorCode:
        """ListPartitionReassignments (``processListPartitionReassignments``): the partitions
        being reassigned (of ``partitions``, or all), or NOT_CONTROLLER."""
        try:
            return await self._call("ListPartitionReassignments", lambda: self._do_list(partitions))
        except ControllerMovedError:
            return ErrorCode.NOT_CONTROLLER

    async def _do_list(
        self, partitions: Sequence[TopicPartition] | None
    ) -> dict[TopicPartition, ReplicaAssignment] | ErrorCode:
        if not self.active:
            return ErrorCode.NOT_CONTROLLER
        wanted = sorted(self.ctx.being_reassigned) if partitions is None else list(dict.fromkeys(partitions))
        out = {}
        for tp in wanted:
            assignment = self.ctx.full_assignment(tp)
            if assignment.being_reassigned:
                out[tp] = assignment
        return out

    async def _do_alter_reassignments(
        self, reassignments: Mapping[TopicPartition, Sequence[int] | None]
    ) -> dict[TopicPartition, ReassignmentResult] | ErrorCode:
        if not self.active:
            return ErrorCode.NOT_CONTROLLER
        results: dict[TopicPartition, ReassignmentResult] = {}
        to_reassign: dict[TopicPartition, ReplicaAssignment] = {}
        for tp, target in reassignments.items():
            error = self._validate_replicas(tp, target) if target is not None else None
            if error is not None:
                results[tp] = error
                continue
            built = self._build_reassignment(tp, target)
            if built is None:
                results[tp] = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, NO_REASSIGNMENT)
            else:
                to_reassign[tp] = built
        # the latest reassignment (API or znode) wins: out of the znode
        await self._maybe_remove_from_zk_reassignment(lambda tp, _r: tp in to_reassign)
        results.update(await self._trigger_reassignments(to_reassign))
        return results

    def _validate_replicas(self, tp: TopicPartition, replicas: Sequence[int]) -> ReassignmentResult | None:
        """``validateReplicas``, with Kafka's messages."""
        shown = f"ArrayBuffer({', '.join(map(str, replicas))})"
        if not replicas:
            return (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "Empty replica list specified in partition reassignment.",
            )
        if len(set(replicas)) != len(replicas):
            return (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Duplicate replica ids in partition reassignment replica list: {shown}",
            )
        if any(r < 0 for r in replicas):
            return ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"Invalid broker id in replica list: {shown}"
        adding = self.ctx.full_assignment(tp).reassign_to(replicas).adding
        live = self.ctx.live()
        if not set(adding) <= live:
            return (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "Replica assignment has brokers that are not alive. Replica list: "
                f"ArrayBuffer({', '.join(map(str, adding))}), live broker list: Set({', '.join(map(str, sorted(live)))})",
            )
        return None

    def _build_reassignment(
        self, tp: TopicPartition, target: Sequence[int] | None
    ) -> ReplicaAssignment | None:
        """``maybeBuildReassignment``: None cancels (back to ORS); None back when there is
        nothing to cancel."""
        current = self.ctx.full_assignment(tp)
        if current.being_reassigned:
            return current.reassign_to(current.origin if target is None else target)
        return None if target is None else current.reassign_to(target)

    async def _trigger_reassignments(
        self, reassignments: Mapping[TopicPartition, ReplicaAssignment]
    ) -> dict[TopicPartition, ReassignmentResult]:
        """``maybeTriggerPartitionReassignment``."""
        results: dict[TopicPartition, ReassignmentResult] = {}
        for tp, assignment in reassignments.items():
            if tp[0] in self.ctx.topics_to_delete or not self.ctx.replicas(tp):
                results[tp] = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, NOT_FOUND)
                continue
            try:
                await self._on_partition_reassignment(tp, assignment)
            except ControllerMovedError:
                raise
            except Exception:
                log.exception("controller %d: reassigning %s-%d failed", self.broker_id, *tp)
                results[tp] = (ErrorCode.UNKNOWN_SERVER_ERROR, UNEXPECTED_ERROR)
            else:
                results[tp] = (ErrorCode.NONE, None)
        return results

    # ------------------------------------------------------------------ the state changes

    async def _on_partition_reassignment(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        """``onPartitionReassignment`` (see the module docstring)."""
        if tp[0] in self.ctx.topics_to_delete:
            self.ctx.deletion_ineligible.add(tp[0])
        await self._update_current_reassignment(tp, assignment)
        if not await self._is_complete(tp, assignment):
            # A1 (A2, the NewReplica transition, sends the adding replicas the same state again)
            await self._update_leader_epoch_and_send(tp, assignment)
            return
        completed = ReplicaAssignment(assignment.target)
        self.ctx.set_full_assignment(tp, completed)  # B2
        await self._move_leader_if_required(tp, completed)  # B3
        await self._stop_removed_replicas(tp, assignment.removing)  # B4, B5
        await self._write_assignment(tp[0])  # B6
        self.ctx.being_reassigned.discard(tp)  # B7
        await self._maybe_remove_from_zk_reassignment(
            lambda p, replicas: p == tp and tuple(replicas) == completed.replicas
        )
        batch = self._batch()  # B8
        batch.add_update_metadata(self.ctx.brokers, [tp])
        self._send(batch)
        log.info(
            "controller %d: reassignment of %s-%d to %s completed",
            self.broker_id,
            *tp,
            list(completed.replicas),
        )
        if tp[0] in self.ctx.topics_to_delete and not any(p[0] == tp[0] for p in self.ctx.being_reassigned):
            self.ctx.deletion_ineligible.discard(tp[0])  # resumeDeletionForTopics
            await self._resume_deletions()

    async def _update_current_reassignment(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        current = self.ctx.full_assignment(tp)
        if current != assignment:
            self.ctx.set_full_assignment(tp, assignment)
            try:
                await self._write_assignment(tp[0])  # U1
            except BaseException:
                self.ctx.set_full_assignment(tp, current)
                raise
            unneeded = [r for r in current.replicas if r not in assignment.replicas]
            if unneeded:
                await self._stop_removed_replicas(tp, unneeded)
        self.ctx.being_reassigned.add(tp)

    async def _is_complete(self, tp: TopicPartition, assignment: ReplicaAssignment) -> bool:
        """``isReassignmentComplete``: TRS within the ISR of the state znode."""
        if not assignment.being_reassigned:
            return True
        (state,) = await self._zk(self._read_states, [tp])
        return state is not None and set(assignment.target) <= set(state.isr)

    async def _update_leader_epoch(self, tp: TopicPartition) -> zd.LeaderIsrAndEpoch:
        """``updateLeaderEpoch``: the same leader and ISR with the leader epoch bumped (so the
        leader takes the new replica list), retried on a concurrent change."""
        while True:
            (cur,) = await self._zk(self._read_states, [tp])
            if cur is None:
                raise ReassignmentFailed(f"{tp[0]}-{tp[1]} has no leader and ISR in ZooKeeper")
            if cur.controller_epoch > self.ctx.epoch:
                raise ReassignmentFailed(
                    f"the state of {tp[0]}-{tp[1]} was written by a newer controller epoch "
                    f"({cur.controller_epoch}); aborting the leader epoch update"
                )
            new = cur.new_leader_and_isr(cur.leader, cur.isr, self.ctx.epoch)
            new = zd.LeaderIsrAndEpoch(
                new.leader,
                new.leader_epoch,
                new.isr,
                new.controller_epoch,
                cur.leader_recovery_state,
                cur.partition_epoch,
            )
            (result,) = await self._fenced(
                [("set", zd.partition_state_path(*tp), zd.encode_partition_state(new), cur.partition_epoch)]
            )
            if isinstance(result, BadVersionError):
                continue
            if isinstance(result, Exception):
                raise ReassignmentFailed(f"updating the leader epoch of {tp[0]}-{tp[1]}: {result!r}")
            new = zd.LeaderIsrAndEpoch(
                new.leader,
                new.leader_epoch,
                new.isr,
                new.controller_epoch,
                new.leader_recovery_state,
                result.version,
            )
            self.ctx.states[tp] = new
            return new

    async def _update_leader_epoch_and_send(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        try:
            state = await self._update_leader_epoch(tp)
        except ReassignmentFailed as exc:
            log.error("controller %d: reassignment of %s-%d: %s", self.broker_id, *tp, exc)
            return
        batch = self._batch()
        batch.add_leader_and_isr(assignment.origin, tp, state)
        batch.add_leader_and_isr(assignment.adding, tp, state, is_new=True)
        self._send(batch)

    async def _move_leader_if_required(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        """``moveReassignedPartitionLeaderIfRequired``."""
        state = self.ctx.states.get(tp)
        leader = state.leader if state is not None else zd.NO_LEADER
        if leader in assignment.replicas and leader in self.ctx.live():
            await self._update_leader_epoch_and_send(tp, assignment)  # shrink RS, bump the epoch
        else:
            await self._elect_partitions([tp], Strategy.REASSIGN)

    async def _stop_removed_replicas(self, tp: TopicPartition, removed: Sequence[int]) -> None:
        """``stopRemovedReplicasOfReassignedPartition``: OfflineReplica (out of the ISR,
        StopReplica), then ReplicaDeletionStarted (StopReplica with delete)."""
        if not removed:
            return
        await self._replicas_offline([(tp, b) for b in removed])
        state = self.ctx.states.get(tp)
        batch = self._batch()
        for b in removed:
            batch.add_stop_replica(
                b, tp, delete=True, leader_epoch=state.leader_epoch if state else zd.EPOCH_DURING_DELETE
            )
        self._send(batch)

    async def _write_assignment(self, topic: str) -> None:
        """``updateReplicaAssignmentForPartition``: the topic znode from the context, fenced."""
        parts = self.ctx.assignments.get(topic, {})
        adding = {p: ar[0] for (t, p), ar in self.ctx.adding_removing.items() if t == topic}
        removing = {p: ar[1] for (t, p), ar in self.ctx.adding_removing.items() if t == topic}
        data = zd.encode_topic(parts, self.ctx.topic_ids.get(topic), adding, removing)
        (result,) = await self._fenced([("set", zd.topic_path(topic), data, -1)])
        if isinstance(result, Exception):
            raise ReassignmentFailed(f"writing the assignment of topic {topic}: {result!r}")

    async def _maybe_complete_reassignment(self, tp: TopicPartition) -> None:
        """After the ISR of a reassigning partition changed (``maybeCompleteReassignment``)."""
        if not self.active or tp not in self.ctx.being_reassigned:
            return
        assignment = self.ctx.full_assignment(tp)
        if await self._is_complete(tp, assignment):
            log.info(
                "controller %d: target replicas %s of %s-%d have caught up",
                self.broker_id,
                list(assignment.target),
                *tp,
            )
            await self._on_partition_reassignment(tp, assignment)

    def _after_isr_change(self, tps: Sequence[TopicPartition]) -> None:
        """Queue the completion check of the reassigning ones among ``tps`` (after the
        AlterPartition answer, as Kafka checks once it has answered)."""
        for tp in tps:
            if tp in self.ctx.being_reassigned:
                self._put(
                    "PartitionReassignmentIsrChange", lambda tp=tp: self._maybe_complete_reassignment(tp)
                )

    async def _resume_reassignments_on_brokers(self, new_brokers: Sequence[int]) -> None:
        """``onBrokerStartup``: reassignments with a target replica on a (re)started broker go
        on (one being removed changes nothing: Kafka checks ``targetReplicas``)."""
        for tp in sorted(self.ctx.being_reassigned):
            target = self.ctx.full_assignment(tp).target
            if any(b in target for b in new_brokers):
                await self._resume(tp)

    async def _initialize_reassignments(self) -> None:
        """``initializePartitionReassignments`` at failover: the znode's first, then those of
        the topic znodes (API reassignments in progress)."""
        from_znode = await self._process_zk_reassignment()
        for tp in sorted(self.ctx.being_reassigned):
            if tp not in from_znode:
                await self._resume(tp)

    async def _resume(self, tp: TopicPartition) -> None:
        """Go on with a move in flight; a failure is logged (retried at the next trigger)."""
        try:
            await self._on_partition_reassignment(tp, self.ctx.full_assignment(tp))
        except ControllerMovedError:
            raise
        except Exception:
            log.exception("controller %d: resuming the reassignment of %s-%d failed", self.broker_id, *tp)

    # ------------------------------------------------------------------ /admin/reassign_partitions

    def _on_reassign_partitions(self, event: Any) -> None:
        # created or deleted: processZkPartitionReassignment watches the znode when it is
        # absent and reads it when present (one written right after a deletion is not lost);
        # a data change only re-arms the watch (Kafka's PartitionReassignmentHandler ignores it)
        if event.type in ("CREATED", "DELETED"):
            self._put_threadsafe("ZkPartitionReassignment", self._process_zk_reassignment)
        elif event.type != "NONE":
            self._put_threadsafe("ZkPartitionReassignmentWatch", self._watch_zk_reassignment)

    async def _watch_zk_reassignment(self) -> tuple[bytes, Any] | None:
        if not self.active:
            return None
        return await self._zk(
            get_data_watched, self.zk, zd.REASSIGN_PARTITIONS_PATH, self._on_reassign_partitions
        )

    async def _process_zk_reassignment(self) -> set[TopicPartition]:
        """``processZkPartitionReassignment``: returns the partitions it reassigned."""
        found = await self._watch_zk_reassignment()
        if found is None:
            return set()
        try:
            wanted = zd.decode_reassignment(found[0])
        except ValueError as exc:
            log.error("controller %d: %s: %s; deleting it", self.broker_id, zd.REASSIGN_PARTITIONS_PATH, exc)
            await self._fenced([("delete", zd.REASSIGN_PARTITIONS_PATH, -1)])
            return set()
        results: dict[TopicPartition, ReassignmentResult] = {}
        to_reassign: dict[TopicPartition, ReplicaAssignment] = {}
        for tp, target in wanted.items():
            built = self._build_reassignment(tp, target)
            if built is None:
                results[tp] = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, NO_REASSIGNMENT)
            else:
                to_reassign[tp] = built
        results.update(await self._trigger_reassignments(to_reassign))
        failed = {tp for tp, (error, _) in results.items() if error is not ErrorCode.NONE}
        if failed:
            log.warning(
                "controller %d: failed reassignment through ZooKeeper: %s",
                self.broker_id,
                {f"{t}-{p}": results[(t, p)][0].name for t, p in sorted(failed)},
            )
            await self._maybe_remove_from_zk_reassignment(lambda tp, _r: tp in failed)
        return set(results) - failed

    async def _maybe_remove_from_zk_reassignment(
        self, should_remove: Callable[[TopicPartition, Sequence[int]], bool]
    ) -> None:
        """``maybeRemoveFromZkReassignment``: rewrite the znode without those partitions
        (delete it when none is left)."""
        found = await self._zk(self._read_zk_reassignment)
        if found is None:
            return
        kept = {tp: r for tp, r in found.items() if not should_remove(tp, r)}
        if kept == found:
            return
        if kept:
            ops = [("set", zd.REASSIGN_PARTITIONS_PATH, zd.encode_reassignment(kept), -1)]
        else:
            ops = [("delete", zd.REASSIGN_PARTITIONS_PATH, -1)]
        (result,) = await self._fenced(ops)
        if isinstance(result, Exception) and not isinstance(result, NoNodeError):
            log.warning("controller %d: updating %s: %r", self.broker_id, zd.REASSIGN_PARTITIONS_PATH, result)
        if not kept:
            # KafkaController.maybeRemoveFromZkReassignment: "Ensure we detect future
            # reassignments" -- a znode written since the delete is read, else watched
            self._put("ZkPartitionReassignment", self._process_zk_reassignment)

    def _read_zk_reassignment(self) -> dict[TopicPartition, tuple[int, ...]] | None:
        try:
            data, _stat = self.zk.get_data(zd.REASSIGN_PARTITIONS_PATH)
        except NoNodeError:
            return None
        try:
            return zd.decode_reassignment(data)
        except ValueError:
            return {}
