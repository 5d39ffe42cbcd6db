"""``python -m tests.transactions.marker_hold_broker FLAG [broker arguments]``: ``python -m broker``
with a fault hook on the transaction marker path, for kill -9 tests.

While the file FLAG exists, every marker the transaction coordinator sends is answered
NOT_ENOUGH_REPLICAS for each of its partitions, without being appended (what a leader whose
ISR is below ``min.insync.replicas`` answers); the coordinator retries it, as Kafka's
``TransactionMarkerChannelManager`` does, so a transaction whose EndTxn was answered stays in
PrepareCommit/PrepareAbort until the file is removed. The first held marker logs one line
(``markers held``). Everything else is the real broker.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

from broker import cli
from broker.txn_marker_channel import TxnMarkerChannel
from coordinator.transaction_seams import TopicPartitionKey, TxnMarker
from protocol.errors import ErrorCode

log = logging.getLogger("broker.marker_hold")


def hold_markers_while(flag: str) -> None:
    real = TxnMarkerChannel.write_txn_markers
    logged = False

    async def write_txn_markers(
        self: TxnMarkerChannel, broker_id: int, markers: Sequence[TxnMarker]
    ) -> list[dict[TopicPartitionKey, ErrorCode]]:
        nonlocal logged
        if not os.path.exists(flag):
            return await real(self, broker_id, markers)
        if not logged:
            log.warning("markers held while %s exists", flag)
            logged = True
        return [dict.fromkeys(m.partitions, ErrorCode.NOT_ENOUGH_REPLICAS) for m in markers]

    TxnMarkerChannel.write_txn_markers = write_txn_markers  # type: ignore[method-assign]


if __name__ == "__main__":
    hold_markers_while(sys.argv[1])
    sys.exit(cli.main(sys.argv[2:]))
