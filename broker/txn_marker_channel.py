"""The transaction coordinator's reach to the partitions' leaders, and theirs to it.

- ``TxnMarkerChannel`` (``coordinator.transaction_seams.TxnMarkerWriter``; Kafka's
  ``TransactionMarkerChannelManager`` network side): markers for partitions this broker
  leads are appended in-process (``ReplicaManager.write_txn_markers``); markers for another
  broker go as one WriteTxnMarkers request over the inter-broker listener (the address from
  the MetadataCache), its answers mapped back per partition. A failed send answers every
  partition of it NETWORK_EXCEPTION, which the coordinator retries.
- ``TxnVerifier`` (``coordinator.transaction_seams.TransactionVerifier``; Kafka's
  ``AddPartitionsToTxnManager``, KIP-890 part 1): a leader about to append a producer's
  first transactional batch asks the transactional id's coordinator whether the partition
  is in the transaction: in-process when this broker is the coordinator, else an
  AddPartitionsToTxn v4 ``verify_only`` request to it (found through the leader of the
  id's ``__transaction_state`` partition). Errors of the lookup become the coordinator
  errors clients retry (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from broker.network_client import InterBrokerClient, NetworkClientError
from broker.security.client import InterBrokerSecurity
from coordinator.transaction_seams import TopicPartitionKey, TxnMarker
from protocol.errors import ErrorCode
from protocol.messages import (
    AddPartitionsToTxnRequest,
    WriteTxnMarkersRequest,
)

if TYPE_CHECKING:
    from broker.metadata_cache import MetadataCache
    from coordinator.transaction_coordinator import TransactionCoordinator

log = logging.getLogger(__name__)

WRITE_TXN_MARKERS_VERSION = 1  # v2 carries transaction version 2 markers, not used here
VERIFY_VERSION = 4  # AddPartitionsToTxn v4: the brokers' batched form with verify_only


def _error(code: int) -> ErrorCode:
    return ErrorCode.for_code(code)


class _InterBroker:
    """An inter-broker client addressed through the MetadataCache's live brokers."""

    def __init__(
        self,
        broker_id: int,
        metadata_cache: MetadataCache,
        listener: str,
        request_timeout_ms: int,
        security: InterBrokerSecurity,
    ):
        self.broker_id = broker_id
        self.metadata_cache = metadata_cache
        self.listener = listener
        # The inter-broker listener's protocol and SASL mechanism, as Kafka's
        # TransactionMarkerChannelManager builds its NetworkClient (ChannelBuilders).
        self.client = InterBrokerClient(
            f"broker-{broker_id}", self._endpoint, request_timeout_ms=request_timeout_ms, security=security
        )

    def _endpoint(self, broker_id: int) -> tuple[str, int] | None:
        endpoint = self.metadata_cache.endpoint(broker_id, self.listener)
        return None if endpoint is None else (endpoint.host, endpoint.port)

    async def close(self) -> None:
        await self.client.close()


class TxnMarkerChannel(_InterBroker):
    """``TxnMarkerWriter``: in-process for this broker, WriteTxnMarkers for the others."""

    def __init__(
        self,
        broker_id: int,
        replica_manager: Any,
        metadata_cache: MetadataCache,
        listener: str,
        request_timeout_ms: int,
        security: InterBrokerSecurity,
    ) -> None:
        super().__init__(broker_id, metadata_cache, listener, request_timeout_ms, security)
        self.replica_manager = replica_manager

    async def write_txn_markers(
        self, broker_id: int, markers: Sequence[TxnMarker]
    ) -> list[dict[TopicPartitionKey, ErrorCode]]:
        if broker_id == self.broker_id:
            return await self.replica_manager.write_txn_markers(markers)
        request = WriteTxnMarkersRequest(
            markers=[
                WriteTxnMarkersRequest.WritableTxnMarker(
                    producer_id=m.producer_id,
                    producer_epoch=m.producer_epoch,
                    transaction_result=m.committed,
                    coordinator_epoch=m.coordinator_epoch,
                    topics=[
                        WriteTxnMarkersRequest.WritableTxnMarkerTopic(name=topic, partition_indexes=parts)
                        for topic, parts in _by_topic(m.partitions).items()
                    ],
                )
                for m in markers
            ]
        )
        try:
            response = await self.client.send(broker_id, request, WRITE_TXN_MARKERS_VERSION)
        except NetworkClientError as exc:
            log.info("WriteTxnMarkers to broker %d failed: %s", broker_id, exc)
            return [dict.fromkeys(m.partitions, ErrorCode.NETWORK_EXCEPTION) for m in markers]
        answers: list[dict[TopicPartitionKey, ErrorCode]] = []
        for marker, result in zip(markers, response.markers, strict=False):
            errors = dict.fromkeys(marker.partitions, ErrorCode.UNKNOWN_SERVER_ERROR)
            for topic in result.topics:
                for p in topic.partitions:
                    errors[(topic.name, p.partition_index)] = _error(p.error_code)
            answers.append(errors)
        while len(answers) < len(markers):
            answers.append(dict.fromkeys(markers[len(answers)].partitions, ErrorCode.UNKNOWN_SERVER_ERROR))
        return answers


class TxnVerifier:
    """``TransactionVerifier``: the local coordinator, or AddPartitionsToTxn v4 verify_only.

    Built before the ReplicaManager (which it is given to) and so before the coordinator and
    the MetadataCache: it looks them up when asked (``coordinator()``, ``metadata_cache()``)."""

    def __init__(
        self,
        broker_id: int,
        coordinator: Callable[[], TransactionCoordinator],
        metadata_cache: Callable[[], MetadataCache],
        listener: str,
        request_timeout_ms: int,
        security: InterBrokerSecurity,
    ) -> None:
        self.broker_id = broker_id
        self.coordinator = coordinator
        self.metadata_cache = metadata_cache
        self.listener = listener
        # AddPartitionsToTxnManager's NetworkClient: the inter-broker listener's security
        self.client = InterBrokerClient(
            f"broker-{broker_id}", self._endpoint, request_timeout_ms=request_timeout_ms, security=security
        )

    def _endpoint(self, broker_id: int) -> tuple[str, int] | None:
        endpoint = self.metadata_cache().endpoint(broker_id, self.listener)
        return None if endpoint is None else (endpoint.host, endpoint.port)

    async def close(self) -> None:
        await self.client.close()

    async def verify(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Sequence[TopicPartitionKey],
    ) -> dict[TopicPartitionKey, ErrorCode]:
        txns = self.coordinator()
        state = self.metadata_cache().partition_state(txns.topic_name, txns.partition_for(transactional_id))
        if state is None or state.leader < 0:
            return dict.fromkeys(partitions, ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if state.leader == self.broker_id:
            return txns.verify_partitions(transactional_id, producer_id, producer_epoch, partitions)
        request = AddPartitionsToTxnRequest(
            transactions=[
                AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction(
                    transactional_id=transactional_id,
                    producer_id=producer_id,
                    producer_epoch=producer_epoch,
                    verify_only=True,
                    topics=[
                        AddPartitionsToTxnRequest.AddPartitionsToTxnTopic(name=topic, partitions=parts)
                        for topic, parts in _by_topic(partitions).items()
                    ],
                )
            ]
        )
        try:
            response = await self.client.send(state.leader, request, VERIFY_VERSION)
        except NetworkClientError as exc:
            log.info("verification with broker %d failed: %s", state.leader, exc)
            return dict.fromkeys(partitions, ErrorCode.NOT_COORDINATOR)
        if response.error_code:
            return dict.fromkeys(partitions, _error(response.error_code))
        errors = dict.fromkeys(partitions, ErrorCode.INVALID_TXN_STATE)
        for txn in response.results_by_transaction:
            for topic in txn.topic_results:
                for p in topic.results_by_partition:
                    errors[(topic.name, p.partition_index)] = _error(p.partition_error_code)
        return errors


def _by_topic(partitions: Sequence[TopicPartitionKey]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for topic, p in partitions:
        out.setdefault(topic, []).append(p)
    return out
