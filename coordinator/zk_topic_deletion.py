"""Topic deletion by the ZooKeeper-mode controller: Kafka's ``TopicDeletionManager``.

A topic marked in ``/admin/delete_topics/<t>`` is queued (the mark is dropped when the topic
is unknown or ``delete.topic.enable`` is false); its deletion waits while the topic is being
reassigned. Brokers first drop the partitions from their metadata (UpdateMetadata, leader
-2), then every live replica gets StopReplica without and with delete; when every replica
answered, the topic's znodes go (fenced, in slices of ``_MAX_DELETE_OPS``) and the controller
forgets it. A replica whose broker is down, or a failed StopReplica, makes the topic
ineligible until the next resumption (a broker coming back, a controller fail-over); its
znodes stay until then.

A mixin of ``KafkaController``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from kazoo.exceptions import NoNodeError

from coordinator import zk_data as zd
from coordinator.zk_controller_channel import RequestBatch
from coordinator.zk_election import ControllerContext, TopicPartition
from coordinator.zookeeper import ZooKeeperClient, delete_recursive_paths, get_children

log = logging.getLogger(__name__)

_MAX_DELETE_OPS = 500  # ops per fenced multi of a recursive delete (ZooKeeper's request size limit)


class TopicDeletionManager:
    """The deletion of marked topics (needs KafkaController's internals)."""

    broker_id: int
    zk: ZooKeeperClient
    ctx: ControllerContext
    active: bool
    delete_topic_enable: bool
    _topic_watches: dict[str, Callable[[Any], None]]
    _put: Callable[..., None]
    _zk: Callable[..., Awaitable[Any]]
    _fenced: Callable[..., Awaitable[list[Any]]]
    _batch: Callable[[], RequestBatch]
    _send: Callable[[RequestBatch], None]
    _forget_topic: Callable[[str], None]
    _on_topic_deletion: Callable[[Any], None]

    async def _process_topic_deletion(self) -> None:
        if not self.active:
            return
        names = await self._zk(lambda: get_children(self.zk, zd.DELETE_TOPICS_PATH, self._on_topic_deletion))
        await self._init_topic_deletion(names)
        await self._resume_deletions()

    async def _init_topic_deletion(self, names: Sequence[str]) -> None:
        """``processTopicDeletion``: queue the marked topics (or drop the marks)."""
        unknown = [n for n in names if n not in self.ctx.assignments]
        drop = list(names) if not self.delete_topic_enable else unknown
        if drop:
            await self._fenced([("delete", zd.delete_topic_path(n), -1) for n in drop])
        if not self.delete_topic_enable:
            return
        for n in names:
            if n in self.ctx.assignments and n not in self.ctx.topics_to_delete:
                log.info("controller %d: deleting topic %s", self.broker_id, n)
                if any(tp[0] == n for tp in self.ctx.being_reassigned):
                    self.ctx.deletion_ineligible.add(n)  # topic reassignment in progress
                self.ctx.topics_to_delete.add(n)
                self.ctx.replicas_deleted.setdefault(n, set())

    async def _resume_deletions(self) -> None:
        """``TopicDeletionManager.resumeDeletions``."""
        for topic in sorted(self.ctx.topics_to_delete):
            replicas = {(p, b) for p, rs in self.ctx.assignments.get(topic, {}).items() for b in rs}
            if replicas <= self.ctx.replicas_deleted.get(topic, set()):
                await self._complete_delete(topic)
                continue
            if topic in self.ctx.deletion_started or topic in self.ctx.deletion_ineligible:
                continue
            self._on_topic_deletion_started(topic, sorted(replicas - self.ctx.replicas_deleted[topic]))

    def _on_topic_deletion_started(self, topic: str, pending: list[tuple[int, int]]) -> None:
        """``onTopicDeletion`` + ``onPartitionDeletion``: every broker drops the partitions from
        its metadata (UpdateMetadata, leader -2) even while a replica's broker is down, so
        clients stop seeing the topic at once; the live replicas get StopReplica without, then
        with delete; a dead replica makes the topic ineligible until its broker returns
        (``ReplicaDeletionIneligible``), and the znodes stay until then."""
        self.ctx.deletion_started.add(topic)
        tps = [(topic, p) for p in sorted(self.ctx.assignments[topic])]
        batch = self._batch()
        batch.add_update_metadata(self.ctx.brokers, tps)
        self._send(batch)
        registered = set(self.ctx.brokers)
        live = [(p, b) for p, b in pending if b in registered]
        if len(live) < len(pending):
            self.ctx.deletion_ineligible.add(topic)
        for delete in (False, True):  # OfflineReplica, then ReplicaDeletionStarted
            batch = self._batch()
            for p, b in live:
                batch.add_stop_replica(b, (topic, p), delete=delete, leader_epoch=zd.EPOCH_DURING_DELETE)
            self._send(batch)

    def _on_stop_replica_response(self, broker_id: int, request: Any, response: Any) -> None:
        self._put(
            "TopicDeletionStopReplicaResponse",
            lambda: self._process_stop_replica_response(broker_id, request, response),
        )

    async def _process_stop_replica_response(self, broker_id: int, request: Any, response: Any) -> None:
        if not self.active:
            return
        asked = {
            (ts.topic_name, ps.partition_index)
            for ts in request.topic_states
            for ps in ts.partition_states
            if ps.delete_partition
        }
        failed: set[TopicPartition] = set()
        if isinstance(response, BaseException) or response.error_code != 0:
            failed = asked
        else:
            failed = {
                (e.topic_name, e.partition_index) for e in response.partition_errors if e.error_code != 0
            }
        for topic, p in asked:
            if topic not in self.ctx.topics_to_delete:
                continue
            if (topic, p) in failed:
                self.ctx.deletion_started.discard(topic)
                self.ctx.deletion_ineligible.add(topic)
            else:
                self.ctx.replicas_deleted[topic].add((p, broker_id))
        await self._resume_deletions()

    def _deletion_paths(self, topic: str) -> list[str]:
        return delete_recursive_paths(self.zk, zd.topic_path(topic))

    async def _complete_delete(self, topic: str) -> None:
        """``completeDeleteTopic``: the topic's znodes go, fenced; then it is forgotten."""
        paths = await self._zk(self._deletion_paths, topic)
        ops = [("delete", p, -1) for p in paths]
        ops += [
            ("delete", zd.config_entity_path("topics", topic), -1),
            ("delete", zd.delete_topic_path(topic), -1),
        ]
        for i in range(0, len(ops), _MAX_DELETE_OPS):
            for result in await self._fenced(ops[i : i + _MAX_DELETE_OPS]):
                if isinstance(result, Exception) and not isinstance(result, NoNodeError):
                    log.warning("controller %d: deleting topic %s: %r", self.broker_id, topic, result)
        self._forget_topic(topic)
        self._topic_watches.pop(topic, None)
        log.info("controller %d: deleted topic %s", self.broker_id, topic)
