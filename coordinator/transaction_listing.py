"""What DescribeTransactions and ListTransactions show of the transactional ids.

Kafka's ``TransactionCoordinator.handleDescribeTransactions`` and
``TransactionStateManager.listTransactionStates``, over the coordinator's
``TransactionMetadata``: states by Kafka's names (Empty, Ongoing, PrepareCommit, ...),
filters by state name (unknown names are reported and match nothing), producer id, how long
a transaction has run since it started (v1) and a regular expression on the id (v2, whole-id
match).

The v2 pattern is compiled with RE2 (linear-time matching, as Kafka's RE2J-based regex
filters): Python's backtracking ``re`` would let one pattern such as ``(a|a)*b`` hold the
event loop, and so every client, for as long as it backtracks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from coordinator.transaction_metadata import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TransactionMetadata, TxnState
from protocol.errors import ErrorCode


@dataclass(slots=True)
class TxnDescription:
    """One DescribeTransactions entry."""

    error: ErrorCode
    state: str = ""
    timeout_ms: int = 0
    start_ms: int = -1
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    partitions: dict[str, list[int]] = field(default_factory=dict)


@dataclass(slots=True)
class TxnListing:
    transactional_id: str
    producer_id: int
    state: str


def describe_metadata(meta: TransactionMetadata | None) -> TxnDescription:
    if meta is None or meta.state is TxnState.DEAD:
        return TxnDescription(ErrorCode.TRANSACTIONAL_ID_NOT_FOUND)
    topics: dict[str, list[int]] = {}
    for topic, p in sorted(meta.partitions):
        topics.setdefault(topic, []).append(p)
    return TxnDescription(
        ErrorCode.NONE,
        meta.state.display_name,
        meta.timeout_ms,
        meta.start_ms,
        meta.producer_id,
        meta.producer_epoch,
        topics,
    )


def list_metadata(
    every: Iterable[TransactionMetadata],
    error: ErrorCode,
    states: Iterable[str],
    producer_ids: Iterable[int],
    duration_ms: int,
    id_pattern: str | None,
    now_ms: int,
) -> tuple[ErrorCode, list[str], list[TxnListing]]:
    """(error, unknown state filters, the matching transactions)."""
    wanted: set[TxnState] = set()
    unknown: list[str] = []
    for name in states:
        state = TxnState.from_name(name)
        if state is None:
            unknown.append(name)
        else:
            wanted.add(state)
    pattern = None
    if id_pattern:
        pattern = compile_id_pattern(id_pattern)
        if pattern is None:
            return ErrorCode.INVALID_REGULAR_EXPRESSION, unknown, []
    if unknown and not wanted:
        return error, unknown, []  # only unknown states asked for: nothing matches
    pids = set(producer_ids)
    out: list[TxnListing] = []
    for meta in every:
        if meta.state is TxnState.DEAD:
            continue
        if wanted and meta.state not in wanted:
            continue
        if pids and meta.producer_id not in pids:
            continue
        # Every state counts from its transaction's start (Empty's start is -1: always listed),
        # as TransactionStateManager.listTransactionStates.
        if duration_ms >= 0 and now_ms - meta.start_ms <= duration_ms:
            continue
        if pattern is not None and pattern.fullmatch(meta.transactional_id) is None:
            continue
        out.append(TxnListing(meta.transactional_id, meta.producer_id, meta.state.display_name))
    return error, unknown, out


def compile_id_pattern(pattern: str):  # -> re2._Regexp | None
    """The compiled transactional id pattern, None when RE2 cannot compile it (the RE2 syntax:
    no backreferences or lookaround; a program over 8 MiB is refused too)."""
    import re2  # imported on first use: only ListTransactions v2 with a pattern needs it

    options = re2.Options()
    options.log_errors = False  # an invalid pattern is the client's error, not the broker's
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None
