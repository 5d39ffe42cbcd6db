"""What a coordinator may do with the partitions of its internal topic (the broker's ReplicaManager).

Kafka's coordinators write and load ``__consumer_offsets`` (and ``__transaction_state``)
through the ``ReplicaManager``, never through the logs: their appends carry the origin
COORDINATOR (the only one allowed on internal topics) and the high watermark stays the
partition's decision. The broker injects its ReplicaManager, which satisfies this protocol.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Protocol

from protocol.errors import KafkaError
from storage.log_config import LogConfig
from storage.log_types import LogAppendInfo
from storage.producer_state import AppendOrigin


class LogOffsetsView(Protocol):
    """A partition's offsets at one moment."""

    @property
    def log_start_offset(self) -> int: ...

    @property
    def log_end_offset(self) -> int: ...

    @property
    def high_watermark(self) -> int: ...


class AppendOutcome(Protocol):
    """One partition's append: the append info, or the error (the broker's ``PartitionAppendResult``)."""

    @property
    def info(self) -> LogAppendInfo | None: ...

    @property
    def error(self) -> KafkaError | None: ...


class PartitionAccess(Protocol):
    """Appends and reads of the partitions this broker leads; KafkaError for a partition error."""

    def append_records(
        self,
        entries: Sequence[tuple[tuple[str, int], memoryview]],
        *,
        required_acks: int,
        origin: AppendOrigin,
        timeout_ms: int = 0,
    ) -> Mapping[tuple[str, int], AppendOutcome] | Awaitable[Mapping[tuple[str, int], AppendOutcome]]:
        """Kafka's ``appendRecords``: the outcomes now, or (acks=-1, when followers must
        catch up) an awaitable of them, completed when the high watermark passes each
        append, at ``timeout_ms`` (REQUEST_TIMED_OUT) or when leadership moves."""
        ...

    def append_to_local_log(
        self,
        key: tuple[str, int],
        records: memoryview,
        *,
        origin: AppendOrigin,
        required_acks: int,
    ) -> LogAppendInfo:
        """Append one batch as leader (``origin`` COORDINATOR for a coordinator's records)."""
        ...

    def read_records(
        self, topic: str, partition: int, fetch_offset: int, max_bytes: int, *, max_offset: int
    ) -> bytes:
        """Whole batches from ``fetch_offset`` (at least one), none at or past ``max_offset``."""
        ...

    def log_offsets(self, topic: str, partition: int) -> LogOffsetsView: ...

    def get_log_config(self, topic: str, partition: int) -> LogConfig | None: ...

    def delete_records(self, topic: str, partition: int, offset: int) -> int:
        """Move the log start offset to ``offset``; returns the new one."""
        ...
