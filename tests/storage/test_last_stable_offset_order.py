"""The last stable offset with several ended transactions whose markers are not replicated yet: the
oldest first offset holds it, whatever order the markers came in (Kafka's unreplicatedTxns TreeMap)."""

from __future__ import annotations

from protocol.control_records import build_end_txn_marker_batch
from storage.producer_state import AppendOrigin
from tests.storage.log_factory import open_log
from tests.storage.txn_factory import TxnProducer


def _marker(plog, pid: int, committed: bool) -> int:
    batch = build_end_txn_marker_batch(
        producer_id=pid, producer_epoch=0, committed=committed, coordinator_epoch=0, timestamp=0
    )
    return plog.append_as_leader(memoryview(bytearray(batch)), 0, origin=AppendOrigin.COORDINATOR).base_offset


def test_lso_is_the_oldest_first_offset_of_unreplicated_txns_not_the_oldest_marker(tmp_path):
    plog = open_log(tmp_path)
    a, b = TxnProducer(plog, 1), TxnProducer(plog, 2)
    a.send()  # offset 0: a's transaction opens
    b.send()  # offset 1: b's transaction opens
    assert plog.high_watermark == 2
    # b ends first (marker at 2), then a (marker at 3); the followers have not fetched
    # either marker yet, so the high watermark stays at 2.
    assert _marker(plog, 2, committed=True) == 2
    assert _marker(plog, 1, committed=True) == 3
    plog.update_high_watermark(2)
    # Kafka (ProducerStateManager.firstUnstableOffset: unreplicatedTxns is a TreeMap by
    # first offset) answers 0: a's marker is not replicated, its data at 0 is unstable.
    assert plog.producer_state.first_unstable_offset() == 0
    assert plog.last_stable_offset == 0
