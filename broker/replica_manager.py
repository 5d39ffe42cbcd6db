"""ReplicaManager: the partitions this broker leads, their appends and reads.

Kafka's ``ReplicaManager`` routes produce and fetch requests to partitions,
maintains high watermarks and completes delayed operations. Here every
partition has exactly one replica, led by this broker, so:

- the high watermark moves to the log end offset as soon as a batch is
  written (the ISR is just the leader); acks=-1 equals acks=1 unless the topic's
  ``min.insync.replicas`` exceeds the one replica (NOT_ENOUGH_REPLICAS);
- the leader epoch of every partition is 0 (no leader ever changes); it is
  stamped into each batch's partitionLeaderEpoch and kept in the log's
  leader-epoch cache, which OffsetForLeaderEpoch reads;
- appends wake the fetch purgatory.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from broker.purgatory import FetchPurgatory
from protocol.errors import ErrorCode, KafkaError

if TYPE_CHECKING:
    from coordinator.controller import TopicMetadata
    from storage.log_manager import LogManager
    from storage.partition_log import LogAppendInfo, PartitionLog

log = logging.getLogger(__name__)

LEADER_EPOCH = 0


class ReplicaManager:
    def __init__(self, log_manager: LogManager) -> None:
        self.log_manager = log_manager
        self.fetch_purgatory = FetchPurgatory()
        for plog in log_manager.logs():
            self._become_leader(plog)

    def leader_epoch(self, topic: str, partition: int) -> int:
        return LEADER_EPOCH

    def get_log(self, topic: str, partition: int) -> PartitionLog:
        plog = self.log_manager.get_log(topic, partition)
        if plog is None:
            raise KafkaError(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
            )
        if plog.leader_epoch_cache.latest_epoch != LEADER_EPOCH:
            self._become_leader(plog)
        return plog

    @staticmethod
    def _become_leader(plog: PartitionLog) -> None:
        # Partition.makeLeader: the leader epoch starts at the log end offset (so
        # OffsetForLeaderEpoch answers (0, LEO) even for a partition never written
        # to), and with the leader alone in the ISR the high watermark is the log end
        # offset; after an unclean shutdown the checkpointed one may lag behind.
        if plog.leader_epoch_cache.latest_epoch != LEADER_EPOCH:
            plog.leader_epoch_cache.assign(LEADER_EPOCH, plog.log_end_offset)
        if plog.high_watermark < plog.log_end_offset:
            plog.update_high_watermark(plog.log_end_offset)

    def check_leader_epoch(self, current_leader_epoch: int) -> None:
        """KIP-320 fencing: the client's view of the leader epoch must be ours."""
        if current_leader_epoch < 0 or current_leader_epoch == LEADER_EPOCH:
            return
        if current_leader_epoch < LEADER_EPOCH:
            raise KafkaError(ErrorCode.FENCED_LEADER_EPOCH)
        raise KafkaError(ErrorCode.UNKNOWN_LEADER_EPOCH)

    def append(self, plog: PartitionLog, records: memoryview, *, required_acks: int) -> LogAppendInfo:
        """Append one partition's records as leader; raises KafkaError for a partition error."""
        if required_acks == -1 and plog.config.min_insync_replicas > 1:
            # Partition.appendRecordsToLeader: ISR smaller than min.insync.replicas.
            raise KafkaError(
                ErrorCode.NOT_ENOUGH_REPLICAS,
                f"The size of the current ISR 1 is insufficient to satisfy the min.isr requirement of "
                f"{plog.config.min_insync_replicas} for partition {plog.topic}-{plog.partition}",
            )
        info = plog.append_as_leader(records, LEADER_EPOCH, now_ms=int(time.time() * 1000))
        if not info.duplicate:
            plog.update_high_watermark(plog.log_end_offset)
            self.fetch_purgatory.on_append((plog.topic, plog.partition), info.size)
        return info

    # ------------------------------------------------------------------ topic changes

    def on_topic_created(self, topic: TopicMetadata) -> None:
        log.debug("replica manager: topic %s created", topic.name)

    def on_topic_deleted(self, name: str) -> None:
        self.fetch_purgatory.wake_all()
