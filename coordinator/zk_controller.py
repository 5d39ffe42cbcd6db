"""The ZooKeeper-mode controller (Kafka 3.9's ``KafkaController``, ZK mode), on one broker at a time.

Every broker runs one; the one that creates the ephemeral ``/controller`` is active:

- **Election** (``KafkaZkClient.registerControllerAndIncrementControllerEpoch``): one
  multi creates ``/controller`` and bumps ``/controller_epoch`` (conditional on its
  version); the losers watch ``/controller`` and run again when it goes.
- **Fencing**: every write of the active controller is a multi that first checks
  ``/controller_epoch``'s version; after a newer election the check fails,
  ``ControllerMovedError`` is raised and the controller resigns (``maybeResign``).
  Requests to brokers carry the controller epoch and the target's broker epoch.
- **One event queue** (``ControllerEventManager``): watch callbacks (kazoo threads) and
  broker requests (ControlledShutdown, ElectLeaders, AlterPartition) become events
  processed in order by one asyncio task, so state changes never interleave.
- **Partition state machine** (``PartitionStateMachine`` / ``ReplicaStateMachine`` /
  ``Election``): new partitions (first live replica leads, ISR = live replicas, leader
  epoch 0), offline elections (ISR first; out-of-sync replicas only with
  ``unclean.leader.election.enable``), replicas going offline (ISR shrink keeping the
  last member, leader -1 when the leader died), controlled shutdown, preferred leader
  election (ElectLeaders, ``/admin/preferred_replica_election``, the auto rebalance),
  AlterPartition (ISR changes from leaders), topic deletion (``TopicDeletionManager``),
  partition reassignment (KIP-455 and ``/admin/reassign_partitions``, ``zk_reassignment``).
- **Where**: this module holds the election of the controller, its event queue, fail-over,
  broker and topic changes; ``zk_partition_state_machine`` the partition and replica state
  changes, ``zk_topic_deletion`` topic deletion, ``zk_controller_requests`` what brokers ask
  and preferred elections, ``zk_reassignment`` reassignment (each a mixin of it).
- **Outputs**: LeaderAndIsr v7, UpdateMetadata v8, StopReplica v4 through the injected
  ``ControllerChannel`` (see ``zk_controller_channel``).

ZooKeeper calls are blocking (kazoo); they run on the controller's own one-thread
executor, batched (pipelined) where they concern many partitions. A connection loss delays
them until kazoo has reconnected (Kafka's ``retryRequestsUntilConnected``); any other error
during the failover moves the controller (``triggerControllerMove``: resign, delete
``/controller``, a new election).

Not implemented: ``/isr_change_notification`` (IBP < 2.7), log-dir events, the ``/feature`` znode, broker
endpoint changes without re-registration, restoring the assignment of a topic grown while
being deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from kazoo.client import KazooState
from kazoo.exceptions import NodeExistsError

from coordinator import zk_data as zd
from coordinator.zk_controller_channel import ControllerChannel, ControllerView, RequestBatch
from coordinator.zk_controller_requests import ControllerRequests
from coordinator.zk_election import (
    ControllerContext,
    ElectionType,
    TopicPartition,
    live_replicas,
)
from coordinator.zk_partition_state_machine import PartitionStateMachine
from coordinator.zk_reassignment import PartitionReassignments
from coordinator.zk_topic_deletion import TopicDeletionManager
from coordinator.zookeeper import (
    ControllerMovedError,
    ZooKeeperClient,
    call_until_connected,
    fenced_multi_many,
    get_children,
    get_data_watched,
    get_many,
    multi,
)

__all__ = ["ControllerChannel", "ControllerMovedError", "ElectionType", "KafkaController"]

log = logging.getLogger(__name__)

FIRST_REBALANCE_DELAY_S = 5.0  # KafkaController.onControllerFailover schedules the first check after 5 s
# Back-off of election attempts whose outcome is unknown or whose /controller could not be
# given up (doubling up to the maximum; reset by a completed failover).
ELECTION_RETRY_S = 0.5
# How long a stopping controller waits for its queued requests to reachable brokers.
SHUTDOWN_DRAIN_S = 5.0
ELECTION_RETRY_MAX_S = 10.0


class KafkaController(
    ControllerRequests, PartitionReassignments, PartitionStateMachine, TopicDeletionManager
):
    """The ZooKeeper-mode controller of one broker (active when it holds ``/controller``)."""

    def __init__(
        self,
        broker_id: int,
        zk: ZooKeeperClient,
        channel: ControllerChannel,
        *,
        time_ms: Callable[[], int],
        inter_broker_listener: str,
        unclean_leader_election_enable: bool = False,
        auto_leader_rebalance_enable: bool = True,
        leader_imbalance_check_interval_s: float = 300.0,
        leader_imbalance_per_broker_percentage: int = 10,
        delete_topic_enable: bool = True,
        first_rebalance_delay_s: float = FIRST_REBALANCE_DELAY_S,
    ) -> None:
        self.broker_id = broker_id
        self.zk = zk
        self.channel = channel
        self.time_ms = time_ms
        self.inter_broker_listener = inter_broker_listener
        self.unclean_default = unclean_leader_election_enable
        self.auto_rebalance = auto_leader_rebalance_enable
        self.rebalance_interval_s = leader_imbalance_check_interval_s
        self.imbalance_pct = leader_imbalance_per_broker_percentage
        self.delete_topic_enable = delete_topic_enable
        self.first_rebalance_delay_s = first_rebalance_delay_s
        self.ctx = ControllerContext()
        self.active = False
        self.active_controller_id = -1
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"controller-{broker_id}-zk")
        self._queue: asyncio.Queue[tuple[str, Callable[[], Awaitable[Any]], asyncio.Future | None]] = (
            asyncio.Queue()
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._rebalance_timer: asyncio.TimerHandle | None = None
        self._topic_watches: dict[str, Callable[[Any], None]] = {}
        self._stopped = False
        self._election_retry_s = ELECTION_RETRY_S

    # ------------------------------------------------------------------ lifecycle

    async def startup(self) -> None:
        """Start the event loop and try to become the controller (``KafkaController.startup``)."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._run(), name=f"controller-{self.broker_id}")
        kz = self.zk.kazoo
        if kz is not None:
            kz.add_listener(self._on_session_state)
        self._put("Startup", self._elect)

    async def shutdown(self) -> None:
        """Stop processing; resign if active (the broker's session close removes ``/controller``)."""
        self._stopped = True
        kz = self.zk.kazoo
        if kz is not None:
            kz.remove_listener(self._on_session_state)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.active:
            # What it decided last (its own broker's controlled shutdown: new leaders, smaller
            # ISRs) reaches the brokers before the queues go (Kafka shuts the controller down
            # after the broker's replica and log managers; its send threads run meanwhile).
            await self.channel.drain(SHUTDOWN_DRAIN_S)
        self._resign_locally()
        self._executor.shutdown(wait=False, cancel_futures=True)

    @property
    def epoch(self) -> int:
        return self.ctx.epoch

    # ------------------------------------------------------------------ event queue

    def _put(self, name: str, fn: Callable[[], Awaitable[Any]], fut: asyncio.Future | None = None) -> None:
        if not self._stopped:
            self._queue.put_nowait((name, fn, fut))

    def _put_threadsafe(self, name: str, fn: Callable[[], Awaitable[Any]]) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed() and not self._stopped:
            loop.call_soon_threadsafe(self._put, name, fn)

    async def _call(self, name: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``fn`` as an event and wait for its result."""
        assert self._loop is not None, "startup() first"
        fut = self._loop.create_future()
        self._put(name, fn, fut)
        return await fut

    async def _run(self) -> None:
        while True:
            name, fn, fut = await self._queue.get()
            try:
                result = await fn()
            except ControllerMovedError as exc:
                log.info("controller %d: %s while processing %s; resigning", self.broker_id, exc, name)
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
                try:
                    await self._maybe_resign()
                except Exception:
                    log.exception("controller %d: resigning failed", self.broker_id)
                continue
            except asyncio.CancelledError:
                if fut is not None and not fut.done():
                    fut.cancel()
                raise
            except Exception as exc:
                log.exception("controller %d: processing %s failed", self.broker_id, name)
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
                continue
            if fut is not None and not fut.done():
                fut.set_result(result)

    async def _zk(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run blocking ZooKeeper calls on the controller's thread. A ConnectionLoss runs them
        again once reconnected (each ``KafkaZkClient`` call of Kafka's controller retries
        until connected): an event is delayed by a connection loss, not ended."""
        assert self._loop is not None
        return await self._loop.run_in_executor(self._executor, call_until_connected, self.zk, fn, *args)

    async def _fenced(self, ops: Sequence[Any]) -> list[Any]:
        if not ops:
            return []
        return await self._zk(fenced_multi_many, self.zk, list(ops), self.ctx.epoch_zk_version)

    # ------------------------------------------------------------------ watches (kazoo threads)

    # kazoo drops every watch when the connection drops and fires it with type NONE; those
    # are ignored here and everything is re-watched (and re-read) once reconnected.

    def _on_controller_watch(self, event: Any) -> None:
        if event.type == "DELETED":
            self._put_threadsafe("Reelect", self._reelect)
        elif event.type != "NONE":
            self._put_threadsafe("ControllerChange", self._maybe_resign)

    def _on_broker_change(self, event: Any) -> None:
        if event.type != "NONE":
            self._put_threadsafe("BrokerChange", self._process_broker_change)

    def _on_topic_change(self, event: Any) -> None:
        if event.type != "NONE":
            self._put_threadsafe("TopicChange", self._process_topic_change)

    def _on_topic_deletion(self, event: Any) -> None:
        if event.type != "NONE":
            self._put_threadsafe("TopicDeletion", self._process_topic_deletion)

    def _on_preferred_election(self, event: Any) -> None:
        if event.type != "NONE":
            self._put_threadsafe("ReplicaLeaderElection", self._process_preferred_election_znode)

    def _topic_watch(self, topic: str) -> Callable[[Any], None]:
        watch = self._topic_watches.get(topic)
        if watch is None:  # one callable per topic: kazoo keeps one registration of it

            def watch(event: Any, topic: str = topic) -> None:
                if event.type != "NONE":
                    self._put_threadsafe(
                        "PartitionModifications", lambda: self._process_partition_modifications(topic)
                    )

            self._topic_watches[topic] = watch
        return watch

    def _on_session_state(self, state: str) -> None:
        if state == KazooState.LOST:  # session expired: /controller is gone (processExpire)
            self._put_threadsafe("Expire", self._process_expire)
        elif state == KazooState.CONNECTED:
            self._put_threadsafe("Reconnected", self._process_reconnected)

    async def _process_reconnected(self) -> None:
        """After a reconnection (same or new session): watch everything again and catch up
        with what changed meanwhile; elect if there is no controller."""
        await self._maybe_resign()
        if not self.active:
            # No controller, or this broker's own /controller left by a failover that failed
            # (and could not give it up then): elect, which first gives up a stale registration.
            if self.active_controller_id in (-1, self.broker_id):
                await self._elect()
            return
        await self._process_broker_change()
        await self._process_topic_change()
        for topic in sorted(self.ctx.assignments):
            await self._process_partition_modifications(topic)
        await self._process_topic_deletion()
        await self._process_preferred_election_znode()
        await self._process_zk_reassignment()

    # ------------------------------------------------------------------ election

    def _read_controller(self) -> int:
        found = get_data_watched(self.zk, zd.CONTROLLER_PATH, self._on_controller_watch)
        if found is None:
            return -1
        broker = zd.decode_controller(found[0])
        return -1 if broker is None else broker

    def _register_controller(self) -> tuple[int, int]:
        """``registerControllerAndIncrementControllerEpoch`` (blocking): (new epoch, its zkVersion)."""
        found = get_many(self.zk, [zd.CONTROLLER_EPOCH_PATH])[0]
        if found is None:
            try:
                self.zk.create_node(
                    zd.CONTROLLER_EPOCH_PATH, zd.encode_controller_epoch(zd.INITIAL_CONTROLLER_EPOCH)
                )
                epoch, version = zd.INITIAL_CONTROLLER_EPOCH, 0
            except NodeExistsError:
                data, stat = self.zk.get_data(zd.CONTROLLER_EPOCH_PATH)
                epoch, version = zd.decode_controller_epoch(data), stat.version
        else:
            epoch, version = zd.decode_controller_epoch(found[0]), found[1].version
        new_epoch = epoch + 1
        results = multi(
            self.zk,
            [
                ("create", zd.CONTROLLER_PATH, zd.encode_controller(self.broker_id, self.time_ms()), True),
                ("set", zd.CONTROLLER_EPOCH_PATH, zd.encode_controller_epoch(new_epoch), version),
            ],
        )
        if not any(isinstance(r, Exception) for r in results):
            return new_epoch, results[1].version
        # NODEEXISTS or BADVERSION: checkControllerAndEpoch (we may have won on a retried multi)
        controller, epoch_found = get_many(self.zk, [zd.CONTROLLER_PATH, zd.CONTROLLER_EPOCH_PATH])
        if (
            controller is not None
            and epoch_found is not None
            and zd.decode_controller(controller[0]) == self.broker_id
            and zd.decode_controller_epoch(epoch_found[0]) == new_epoch
        ):
            return new_epoch, epoch_found[1].version
        raise ControllerMovedError(f"controller election lost by broker {self.broker_id}")

    async def _elect(self) -> None:
        """``KafkaController.elect``."""
        self.active_controller_id = await self._zk(self._read_controller)
        if self.active_controller_id == self.broker_id and not self.active:
            # our registration whose answer was lost (a timeout): give it up, its deletion
            # (watched) starts a clean election
            await self._zk(self._delete_own_registration)
            return
        if self.active_controller_id != -1:
            return
        try:
            epoch, version = await self._zk(self._register_controller)
        except ControllerMovedError:
            await self._maybe_resign()
            return
        except NodeExistsError:
            self.active_controller_id = await self._zk(self._read_controller)
            return
        except Exception as exc:  # no answer: whether it happened is unknown, look again soon
            log.warning("controller %d: election attempt failed (%s); retrying", self.broker_id, exc)
            self._retry_election_later()
            return
        self.ctx = ControllerContext(epoch=epoch, epoch_zk_version=version)
        self.active_controller_id = self.broker_id
        log.info("broker %d is the controller (epoch %d)", self.broker_id, epoch)
        try:
            await self._on_controller_failover()
        except ControllerMovedError:
            await self._maybe_resign()
            self._resign_locally()
            if self.active_controller_id == self.broker_id:
                self._retry_election_later()  # ours but stale: _elect gives it up
            return
        except Exception:
            # KafkaController.elect: any other failure of onControllerFailover moves the
            # controller, never leaving /controller held by a broker not acting as one.
            log.exception("controller %d: failover failed; moving the controller", self.broker_id)
            await self._trigger_controller_move()
            return
        self._election_retry_s = ELECTION_RETRY_S

    async def _trigger_controller_move(self) -> None:
        """``KafkaController.triggerControllerMove``: resign, then delete ``/controller``
        (fenced by this controller's epoch): its deletion starts a new election (``Reelect``
        on every broker's watch). If it cannot be deleted now, the election is retried later
        (``_elect`` gives up this broker's stale registration)."""
        version = self.ctx.epoch_zk_version
        try:
            self.active_controller_id = await self._zk(self._read_controller)
            if self.active_controller_id != self.broker_id:
                log.warning("controller %d: the controller already moved", self.broker_id)
                self._resign_locally()
                return
            self.active_controller_id = -1
            self._resign_locally()
            await self._zk(fenced_multi_many, self.zk, [("delete", zd.CONTROLLER_PATH, -1)], version)
        except ControllerMovedError:
            log.warning("controller %d: the controller already moved", self.broker_id)
        except Exception as exc:
            log.warning(
                "controller %d: could not give up %s (%s); retrying", self.broker_id, zd.CONTROLLER_PATH, exc
            )
            self._resign_locally()
            self._retry_election_later()

    def _retry_election_later(self) -> None:
        """A ``Reelect`` event after a back-off (doubling, see ``ELECTION_RETRY_MAX_S``)."""
        delay = self._election_retry_s
        self._election_retry_s = min(delay * 2, ELECTION_RETRY_MAX_S)
        if self._loop is not None and not self._stopped:
            self._loop.call_later(delay, self._put, "Reelect", self._reelect)

    def _delete_own_registration(self) -> None:
        found = get_many(self.zk, [zd.CONTROLLER_PATH])[0]
        if found is not None and found[1].ephemeralOwner == self.zk.session_id:
            multi(self.zk, [("delete", zd.CONTROLLER_PATH, found[1].version)])

    async def _reelect(self) -> None:
        await self._maybe_resign()
        await self._elect()

    async def _maybe_resign(self) -> None:
        """``maybeResign``: re-read (and re-watch) ``/controller``; resign if it is not us any more."""
        was_active = self.active
        self.active_controller_id = await self._zk(self._read_controller)
        if was_active and self.active_controller_id != self.broker_id:
            self._resign_locally()

    async def _process_expire(self) -> None:
        self.active_controller_id = -1
        self._resign_locally()

    def _resign_locally(self) -> None:
        """``onControllerResignation``: drop the context, channels and timers (also those a
        failover that failed had set up before the controller was active)."""
        if self.active:
            log.info("broker %d resigns as controller (epoch %d)", self.broker_id, self.ctx.epoch)
        self.active = False
        if self._rebalance_timer is not None:
            self._rebalance_timer.cancel()
            self._rebalance_timer = None
        for b in list(self.ctx.brokers):
            self.channel.remove_broker(b)
        self.ctx = ControllerContext()

    # ------------------------------------------------------------------ failover

    def _read_brokers(self) -> dict[int, zd.BrokerInfo]:
        ids = get_children(self.zk, zd.BROKER_IDS_PATH, self._on_broker_change)
        ids = sorted(int(i) for i in ids if i.isdigit())
        found = get_many(self.zk, [zd.broker_path(b) for b in ids])
        return {
            b: zd.decode_broker(b, r[0], r[1].czxid) for b, r in zip(ids, found, strict=True) if r is not None
        }

    def _read_topics(self, names: Iterable[str] | None = None) -> dict[str, zd.TopicAssignment]:
        if names is None:
            names = get_children(self.zk, zd.TOPICS_PATH, self._on_topic_change)
        names = list(names)
        found = get_many(self.zk, [zd.topic_path(n) for n in names], [self._topic_watch(n) for n in names])
        return {n: zd.decode_topic(r[0]) for n, r in zip(names, found, strict=True) if r is not None}

    def _read_states(self, tps: Sequence[TopicPartition]) -> list[zd.LeaderIsrAndEpoch | None]:
        found = get_many(self.zk, [zd.partition_state_path(t, p) for t, p in tps])
        return [zd.decode_partition_state(r[0], r[1].version) if r is not None else None for r in found]

    def _read_initial_context(
        self,
    ) -> tuple[dict[int, zd.BrokerInfo], dict[str, zd.TopicAssignment], list[str]]:
        brokers = self._read_brokers()
        topics = self._read_topics()
        deleting = get_children(self.zk, zd.DELETE_TOPICS_PATH, self._on_topic_deletion)
        return brokers, topics, deleting

    async def _on_controller_failover(self) -> None:
        """``onControllerFailover``: watches, context, then the state machines."""
        brokers, topics, deleting = await self._zk(self._read_initial_context)
        self.active = True
        self.ctx.brokers = dict(brokers)
        for info in brokers.values():
            self.channel.add_broker(info)
        await self._add_topics(topics)
        tps = self.ctx.all_partitions()
        for tp, state in zip(tps, await self._zk(self._read_states, tps), strict=True):
            if state is not None:
                self.ctx.states[tp] = state
        # UpdateMetadata (no partitions) to every broker first
        batch = self._batch()
        batch.add_update_metadata(self.ctx.brokers, [])
        self._send(batch)
        # replica state machine startup: every online replica gets its partition's state
        batch = self._batch()
        live = self.ctx.live()
        for tp, state in self.ctx.states.items():
            if tp[0] not in self.ctx.topics_to_delete:
                batch.add_leader_and_isr(live_replicas(self.ctx.replicas(tp), live), tp, state)
        self._send(batch)
        await self._init_topic_deletion(deleting)
        # ReplicaStateMachine.startup: replicas on brokers that are gone become OfflineReplica
        # (out of every ISR), also those of partitions they only followed.
        await self._replicas_offline(
            [
                (tp, b)
                for tp in list(self.ctx.states)
                if tp[0] not in self.ctx.topics_to_delete
                for b in self.ctx.replicas(tp)
                if b not in live
            ]
        )
        await self._trigger_online_partition_state_change()
        await self._initialize_reassignments()
        await self._resume_deletions()
        await self._process_preferred_election_znode()
        if self.auto_rebalance:
            self._schedule_rebalance(self.first_rebalance_delay_s)

    async def _add_topics(self, topics: dict[str, zd.TopicAssignment]) -> None:
        """Put topics in the context, giving an id to those without one (``setTopicIds``)."""
        missing = {t: a for t, a in topics.items() if a.topic_id is None}
        ops = []
        for t, a in missing.items():
            topics[t] = replace(a, topic_id=uuid.uuid4())
            ops.append(("set", zd.topic_path(t), _encode_assignment(topics[t]), -1))
        for result in await self._fenced(ops):
            if isinstance(result, Exception):
                log.warning("could not store a topic id: %s", result)
        for t, a in topics.items():
            self.ctx.assignments[t] = dict(a.partitions)
            assert a.topic_id is not None
            self.ctx.topic_ids[t] = a.topic_id
            for p in set(a.adding_replicas) | set(a.removing_replicas):
                if p in a.partitions:  # a reassignment in progress (resumed by the caller)
                    self.ctx.adding_removing[(t, p)] = (
                        tuple(a.adding_replicas.get(p, ())),
                        tuple(a.removing_replicas.get(p, ())),
                    )
                    self.ctx.being_reassigned.add((t, p))

    # ------------------------------------------------------------------ outputs

    def _batch(self) -> RequestBatch:
        c = self.ctx
        return RequestBatch(
            ControllerView(
                controller_id=self.broker_id,
                epoch=c.epoch,
                brokers=c.brokers,
                live=c.live,
                assignments=c.assignments,
                topic_ids=c.topic_ids,
                states=c.states,
                deleting=c.topics_to_delete,
                inter_broker_listener=self.inter_broker_listener,
                adding_removing=c.adding_removing,
            )
        )

    def _send(self, batch: RequestBatch) -> None:
        if self.active and not batch.empty:
            batch.send(self.channel, self._on_stop_replica_response)

    # ------------------------------------------------------------------ broker changes

    async def _process_broker_change(self) -> None:
        """``processBrokerChange``: new, dead and bounced (same id, newer epoch) brokers."""
        if not self.active:
            return
        current = await self._zk(self._read_brokers)
        known = self.ctx.brokers
        new = sorted(set(current) - set(known))
        dead = sorted(set(known) - set(current))
        bounced = sorted(b for b in set(current) & set(known) if current[b].epoch > known[b].epoch)
        for b in dead + bounced:
            self.channel.remove_broker(b)
            del known[b]
            self.ctx.shutting_down.discard(b)
        for b in new + bounced:
            self.channel.add_broker(current[b])
        if new:
            log.info("controller %d: brokers started: %s", self.broker_id, new)
            known.update((b, current[b]) for b in new)
            await self._on_broker_startup(new)
        if bounced:
            # processBrokerChange: a bounced broker is out of the live set while its failure is
            # handled (the partitions it led get one offline election, no leaderless step),
            # then back in for its start-up.
            log.info("controller %d: brokers restarted: %s", self.broker_id, bounced)
            await self._on_broker_failure(bounced)
            known.update((b, current[b]) for b in bounced)
            await self._on_broker_startup(bounced)
        if dead:
            log.info("controller %d: brokers failed: %s", self.broker_id, dead)
            await self._on_broker_failure(dead)

    async def _on_broker_startup(self, new: list[int]) -> None:
        """``onBrokerStartup``."""
        existing = set(self.ctx.brokers) - set(new)
        batch = self._batch()
        batch.add_update_metadata(existing, [])
        self._send(batch)
        batch = self._batch()
        deleting = self.ctx.topics_to_delete
        batch.add_update_metadata(new, [tp for tp in self.ctx.states if tp[0] not in deleting])
        self._send(batch)
        batch = self._batch()  # the new brokers' replicas become online
        for b in new:
            for tp in self.ctx.partitions_on_broker(b):
                state = self.ctx.states.get(tp)
                if state is not None and tp[0] not in self.ctx.topics_to_delete:
                    batch.add_leader_and_isr([b], tp, state)
        self._send(batch)
        await self._trigger_online_partition_state_change()
        await self._resume_reassignments_on_brokers(new)
        retry: set[str] = set()
        for t in list(self.ctx.deletion_ineligible):
            if any(b in r for r in self.ctx.assignments.get(t, {}).values() for b in new):
                retry.add(t)
        if retry:
            self.ctx.deletion_ineligible -= retry
            self.ctx.deletion_started -= retry
            await self._resume_deletions()

    async def _on_broker_failure(self, dead: list[int]) -> None:
        """``onBrokerFailure`` -> ``onReplicasBecomeOffline``."""
        replicas = [(tp, b) for b in dead for tp in self.ctx.partitions_on_broker(b)]
        await self._on_replicas_become_offline(replicas)

    async def _on_replicas_become_offline(self, replicas: list[tuple[TopicPartition, int]]) -> None:
        deleting = self.ctx.topics_to_delete
        live_or_shutting = set(self.ctx.brokers)
        offline_leaders = [
            tp
            for tp, s in self.ctx.states.items()
            if tp[0] not in deleting and s.leader not in live_or_shutting
        ]
        await self._trigger_online_partition_state_change()
        await self._replicas_offline([(tp, b) for tp, b in replicas if tp[0] not in deleting])
        ineligible = {tp[0] for tp, _ in replicas if tp[0] in deleting}
        self.ctx.deletion_ineligible |= ineligible
        if not offline_leaders:
            batch = self._batch()
            batch.add_update_metadata(self.ctx.brokers, [])
            self._send(batch)

    # ------------------------------------------------------------------ topics

    async def _process_topic_change(self) -> None:
        """``processTopicChange``: new topics get their partitions initialized."""
        if not self.active:
            return
        names = await self._zk(lambda: get_children(self.zk, zd.TOPICS_PATH, self._on_topic_change))
        gone = set(self.ctx.assignments) - set(names)
        for t in gone:  # deleted behind the controller's back
            self._forget_topic(t)
        new = [n for n in names if n not in self.ctx.assignments]
        if not new:
            return
        topics = await self._zk(self._read_topics, new)
        await self._add_topics(topics)
        await self._init_new_partitions(
            [(t, p) for t in sorted(topics) for p in sorted(topics[t].partitions)]
        )

    async def _process_partition_modifications(self, topic: str) -> None:
        """``processPartitionModifications``: partitions added to an existing topic."""
        if not self.active or topic not in self.ctx.assignments:
            return
        found = await self._zk(get_data_watched, self.zk, zd.topic_path(topic), self._topic_watch(topic))
        if found is None:
            return
        assignment = zd.decode_topic(found[0])
        added = sorted(set(assignment.partitions) - set(self.ctx.assignments[topic]))
        if not added:
            return
        if topic in self.ctx.topics_to_delete:
            log.warning(
                "controller %d: partitions added to %s while it is being deleted: ignored",
                self.broker_id,
                topic,
            )
            return
        self.ctx.assignments[topic] = dict(assignment.partitions)
        await self._init_new_partitions([(topic, p) for p in added])

    def _forget_topic(self, topic: str) -> None:
        self.ctx.assignments.pop(topic, None)
        self.ctx.topic_ids.pop(topic, None)
        for tp in [tp for tp in self.ctx.states if tp[0] == topic]:
            del self.ctx.states[tp]
        for tp in [tp for tp in self.ctx.adding_removing if tp[0] == topic]:
            del self.ctx.adding_removing[tp]
        self.ctx.being_reassigned = {tp for tp in self.ctx.being_reassigned if tp[0] != topic}
        for s in (self.ctx.topics_to_delete, self.ctx.deletion_ineligible, self.ctx.deletion_started):
            s.discard(topic)
        self.ctx.replicas_deleted.pop(topic, None)


def _encode_assignment(a: zd.TopicAssignment) -> bytes:
    return zd.encode_topic(a.partitions, a.topic_id, a.adding_replicas, a.removing_replicas)
