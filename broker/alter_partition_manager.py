"""AlterPartition sender: a leader's ISR changes go to the controller (KIP-497; Kafka's
``DefaultAlterPartitionManager`` over its ``BrokerToControllerChannelManager``).

A ``Partition`` proposes a new ISR (``submit``); the manager batches the proposals not yet
sent into one AlterPartition request (at most one request in flight, at most one proposal
per partition), sends it to the controller named by the MetadataCache (``controller_id``)
on its inter-broker endpoint, with this broker's id and broker epoch (the czxid of its
``/brokers/ids`` znode), and hands each partition's answer back:

- success: ``on_committed(partition, leader epoch, partition epoch, ISR)`` (the
  ReplicaManager commits it, Kafka's ``Partition.handleAlterPartitionUpdate``);
- a partition error: ``Partition.on_alter_partition_failed`` (Kafka's
  ``handleAlterPartitionError``), which says whether the same proposal is sent again (an
  unexpected error); a partition missing from the answer is sent again too;
- no controller known, a network failure or a top-level error (NOT_CONTROLLER,
  STALE_BROKER_EPOCH, ...): the proposals are sent again after ``retry_backoff_ms`` (Kafka
  retries them after 50 ms), unless a newer one replaced them meanwhile. Every resend waits
  ``retry_backoff_ms``, so a controller that keeps failing one partition is no hot loop.

A refusal of a proposal the partition no longer has pending (a LeaderAndIsr replaced it
meanwhile) is ignored, as Kafka's ``Partition.submitAlterPartition`` does: nothing is reset
or resent.

Version: the newest both sides speak, at most 3; the request carries both the topic name
(v0-1) and the topic id (v2+), both ``NewIsr`` (v0-2) and ``NewIsrWithEpochs`` (v3+, broker
epochs -1 in ZooKeeper mode as Kafka's ``addBrokerEpochToIsr``); the encoder writes the
ones of the version chosen. The client id is ``broker-<id>-alter-partition``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from broker.network_client import InterBrokerClient, NetworkClientError
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from protocol.errors import ErrorCode
from protocol.messages import AlterPartitionRequest, AlterPartitionResponse

if TYPE_CHECKING:
    from broker.partition import Partition

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
RETRY_BACKOFF_MS = 50
NO_CONTROLLER = -1
NO_TOPIC_ID = uuid.UUID(int=0)


@dataclass(slots=True)
class AlterPartitionItem:
    partition: Partition
    new_isr: tuple[int, ...]
    leader_epoch: int
    partition_epoch: int


class AlterPartitionManager:
    """Proposals of ISR changes, sent to the controller one request at a time."""

    def __init__(
        self,
        broker_id: int,
        endpoint_for: Callable[[int], tuple[str, int] | None],
        controller_id: Callable[[], int],
        broker_epoch: Callable[[], int | None],
        on_committed: Callable[[Partition, int, int, tuple[int, ...]], None],
        *,
        retry_backoff_ms: int = RETRY_BACKOFF_MS,
        request_timeout_ms: int = 30_000,
        security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER,
    ) -> None:
        self.broker_id = broker_id
        self.client = InterBrokerClient(
            f"broker-{broker_id}-alter-partition",
            endpoint_for,
            request_timeout_ms=request_timeout_ms,
            security=security,
        )
        self._controller_id = controller_id
        self._broker_epoch = broker_epoch
        self._on_committed = on_committed
        self.retry_backoff_ms = retry_backoff_ms
        self._unsent: dict[TopicPartition, AlterPartitionItem] = {}
        self._in_flight: dict[TopicPartition, AlterPartitionItem] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.requests_sent = 0

    def submit(self, partition: Partition, new_isr: tuple[int, ...]) -> bool:
        """Queue ``new_isr`` for ``partition``; False if one of its proposals is already pending."""
        key = partition.key
        if key in self._unsent or key in self._in_flight:
            return False
        self._unsent[key] = AlterPartitionItem(
            partition, new_isr, partition.leader_epoch, partition.partition_epoch
        )
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"alter-partition-{self.broker_id}"
            )
        return True

    def pending(self) -> int:
        return len(self._unsent) + len(self._in_flight)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.client.close()

    # ------------------------------------------------------------------ sending

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._unsent:
                batch, self._unsent = self._unsent, {}
                self._in_flight = batch
                try:
                    retry = await self._send(batch)
                except Exception:  # a bug must not leave ISR changes pending for good
                    log.exception("AlterPartition failed; retrying")
                    retry = batch
                finally:
                    self._in_flight = {}
                if retry:
                    for key, item in retry.items():
                        self._unsent.setdefault(key, item)  # a newer proposal wins
                    await asyncio.sleep(self.retry_backoff_ms / 1000)

    async def _send(
        self, batch: dict[TopicPartition, AlterPartitionItem]
    ) -> dict[TopicPartition, AlterPartitionItem]:
        """Send one request; returns the items to send again."""
        controller = self._controller_id()
        if controller < 0:
            return batch
        request = self._request(batch)
        try:
            response: AlterPartitionResponse = await self.client.send(controller, request)
        except NetworkClientError as exc:
            log.info("AlterPartition to controller %d failed: %s; retrying", controller, exc)
            return batch
        self.requests_sent += 1
        if response.error_code != 0:
            error = ErrorCode.for_code(response.error_code)
            log.info("AlterPartition to controller %d: %s; retrying", controller, error.name)
            if error is not ErrorCode.NONE:
                self.client.disconnect(controller)  # the controller may have moved
            return batch
        return self._handle_partitions(batch, response)

    def _handle_partitions(
        self, batch: dict[TopicPartition, AlterPartitionItem], response: AlterPartitionResponse
    ) -> dict[TopicPartition, AlterPartitionItem]:
        """Hand each partition's answer back; returns the items to send again: those whose
        error ``Partition.on_alter_partition_failed`` retries and those missing from the
        answer (Kafka's ``handleAlterPartitionResponse`` keeps them unsent)."""
        by_id = {item.partition.log.topic_id: item.partition.topic for item in batch.values()}
        answers: dict[TopicPartition, AlterPartitionResponse.PartitionData] = {}
        for topic in response.topics:
            name = topic.topic_name or by_id.get(topic.topic_id, "")
            for data in topic.partitions:
                answers[(name, data.partition_index)] = data
        retry: dict[TopicPartition, AlterPartitionItem] = {}
        for key, item in batch.items():
            partition = item.partition
            data = answers.get(key)
            if data is not None and data.error_code == 0:
                # on_alter_partition_committed checks the epochs itself
                self._on_committed(partition, data.leader_epoch, data.partition_epoch, tuple(data.isr))
            elif not partition.is_pending_isr_change(item.new_isr, item.leader_epoch, item.partition_epoch):
                continue  # replaced meanwhile (LeaderAndIsr, commit): nothing to retry or reset
            elif data is None:
                log.warning("AlterPartition: %s-%d was sent but not answered; resending", *key)
                retry[key] = item
            elif partition.on_alter_partition_failed(ErrorCode.for_code(data.error_code)):
                retry[key] = item
        return retry

    def _request(self, batch: dict[TopicPartition, AlterPartitionItem]) -> AlterPartitionRequest:
        epoch = self._broker_epoch()
        topics: dict[str, AlterPartitionRequest.TopicData] = {}
        for item in batch.values():
            partition = item.partition
            topic = topics.get(partition.topic)
            if topic is None:
                topic = topics[partition.topic] = AlterPartitionRequest.TopicData(
                    topic_name=partition.topic, topic_id=partition.log.topic_id or NO_TOPIC_ID
                )
            topic.partitions.append(
                AlterPartitionRequest.PartitionData(
                    partition_index=partition.partition,
                    leader_epoch=item.leader_epoch,
                    new_isr=list(item.new_isr),
                    new_isr_with_epochs=[
                        AlterPartitionRequest.BrokerState(broker_id=b, broker_epoch=-1) for b in item.new_isr
                    ],
                    leader_recovery_state=0,
                    partition_epoch=item.partition_epoch,
                )
            )
        return AlterPartitionRequest(
            broker_id=self.broker_id,
            broker_epoch=-1 if epoch is None else epoch,
            topics=list(topics.values()),
        )
