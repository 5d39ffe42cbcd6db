"""The fetch path's request and answer types, shared by the handlers, the fetch sessions and the replica manager.

Kafka keeps them apart from ``ReplicaManager`` too: ``FetchParams`` and
``FetchPartitionData`` (``org.apache.kafka.server.storage.log``), ``FetchRequest.PartitionData``
(``FetchPartitionInfo`` here) and ``ClientMetadata`` (``org.apache.kafka.common.replica``).
``ReplicaManager.fetch_messages`` (broker/replica_reads.py) takes a ``FetchParams`` and
one ``FetchPartitionInfo`` per partition, and answers one ``FetchPartitionData`` per partition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from broker.partition import NO_EPOCH
from protocol.errors import ErrorCode
from storage.file_records import FileRecords
from storage.log_types import FetchIsolation
from storage.transaction_index import AbortedTxn


class FetchPartitionInfo(NamedTuple):
    """What a fetch asks of one partition (Kafka's ``FetchRequest.PartitionData``)."""

    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = NO_EPOCH
    last_fetched_epoch: int = NO_EPOCH
    log_start_offset: int = -1  # a follower's (Fetch v5+)


@dataclass(frozen=True, slots=True)
class ClientMetadata:
    """A consumer's Fetch v11+ (Kafka's ``DefaultClientMetadata``): its ``client.rack`` (empty
    when not set) and the listener it came through (whose endpoints it can reach)."""

    rack_id: str
    listener: str


@dataclass(frozen=True, slots=True)
class FetchParams:
    """A fetch's request-level settings (Kafka's ``FetchParams``).

    ``replica_id`` >= 0 is a follower's fetch: it reads up to the log end offset and
    reports the follower's position (``Partition.update_follower_fetch_state``).
    ``client_metadata`` is a consumer's Fetch v11+ (KIP-392): it may be served by a
    follower, and its leader may name a preferred read replica.
    """

    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation: FetchIsolation
    replica_id: int = -1
    # The records may come back as FileRecords (sent from the segment files by the
    # connection's response writer, broker/response_writer.py) instead of bytes.
    file_records: bool = False
    client_metadata: ClientMetadata | None = None

    @property
    def is_from_follower(self) -> bool:
        return self.replica_id >= 0

    @property
    def fetch_only_leader(self) -> bool:
        """Kafka's ``FetchParams.fetchOnlyLeader``: followers and consumers older than Fetch
        v11 read from the leader only; a v11+ consumer may read from a follower too."""
        return self.replica_id >= 0 or self.client_metadata is None


class FetchPartitionData(NamedTuple):
    """One partition's fetch answer (Kafka's ``FetchPartitionData``); records are never None.

    On an error the offsets are the partition's when it is hosted, else -1.
    """

    error: ErrorCode
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: bytes | FileRecords = b""  # FileRecords only for FetchParams.file_records
    diverging_epoch: tuple[int, int] | None = None
    aborted_transactions: Sequence[AbortedTxn] | None = None  # read_committed only
    preferred_read_replica: int = -1  # KIP-392: read from this broker (no records then)
