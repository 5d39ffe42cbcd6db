"""Small value types of the partition log's API (``storage.partition_log``).

What an append answers (Kafka's ``LogAppendInfo``), what a read answers (``FetchDataInfo``),
how far a read may go (``FetchIsolation``), a ListOffsets answer (``TimestampAndOffset``,
Kafka's ``FileRecords.TimestampAndOffset``) with ListOffsets' special timestamps, and the
producer-state settings a log is built with (``ProducerStateOptions``). Kept apart so the
segment list (``storage.local_log``) and the log above it (``storage.partition_log``) share
them; ``storage.partition_log`` re-exports every name, which its importers use.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, NamedTuple

from storage.file_records import FileRecords

if TYPE_CHECKING:
    from storage.segment import LogSegment

# ListOffsets special timestamps (ListOffsetsRequest)
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5


@dataclass(frozen=True)
class ProducerStateOptions:
    """Producer-state settings the broker fills from its config."""

    producer_id_expiration_ms: int = 86_400_000
    batch_window: int = 5
    duplicate_sequence_error: bool = True


class LogAppendInfo(NamedTuple):
    """Result of an append (Kafka's ``LogAppendInfo``).

    For a duplicate, base_offset/last_offset/log_append_time are those of the
    original batch, as Kafka answers a retried batch.
    """

    base_offset: int
    last_offset: int
    log_append_time: int
    log_start_offset: int
    num_records: int
    size: int
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """Whole batches read from one segment (or more, past segments that end in emptied batches)."""

    records: bytes | FileRecords  # FileRecords only when the read asked for them
    fetch_offset: int
    # A whole batch below the read's max_offset did not fit max_bytes (Kafka's read would
    # have filled max_bytes with a partial batch there).
    limited: bool = False
    # Where the read ended: (segment, position after its last batch, the segment's end
    # offset), so the offset after the records left in the files can be found when asked
    # (a read_committed fetch's aborted transactions, Kafka's fetchUpperBoundOffset).
    read_end: tuple[LogSegment, int, int] | None = None


class FetchIsolation(Enum):
    """How far a read may go (Kafka's ``FetchIsolation``): the log end offset (followers,
    the broker's own readers), the high watermark (read_uncommitted consumers) or the last
    stable offset (read_committed consumers)."""

    LOG_END = "log_end"
    HIGH_WATERMARK = "high_watermark"
    TXN_COMMITTED = "txn_committed"


class TimestampAndOffset(NamedTuple):
    """ListOffsets answer; leader_epoch -1 when unknown."""

    timestamp: int
    offset: int
    leader_epoch: int
