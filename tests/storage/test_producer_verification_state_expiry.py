"""Expiry of KIP-890 verification state (Kafka's ProducerStateManager.removeExpiredProducers)."""

from __future__ import annotations

from storage.producer_state import ProducerStateManager

T0 = 1_700_000_000_000
PID = 77


def test_verification_state_of_a_producer_without_entry_expires(tmp_path):
    """Kafka's ProducerStateManager.removeExpiredProducers also drops every VerificationStateEntry
    older than producer.id.expiration.ms (``verificationStates.entrySet().removeIf(...)``), so a
    verification that never led to an append (the coordinator refused it, the producer went away)
    does not stay in memory forever, and its guard no longer admits a batch."""
    now = [T0]
    psm = ProducerStateManager(tmp_path, producer_id_expiration_ms=1000, time_ms=lambda: now[0])
    guard = psm.start_verification(PID, 0, 0)
    assert guard is not None
    now[0] = T0 + 1000
    psm.remove_expired_producers(now[0])
    # Kafka: verificationGuard(producerId) is now the SENTINEL, which verifies no request guard.
    assert not psm.verification_guard_valid(PID, guard)
