"""KIP-890 verification state and the sequence check (Kafka's VerificationStateEntry and
ProducerAppendInfo.checkSequence)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from broker.replica_manager import ReplicaManager
from protocol.errors import ErrorCode
from protocol.records import build_batch
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS

ME = 0
PID = 4000


class ScriptedVerifier:
    """Answers each verification with the next error of ``answers``."""

    def __init__(self, *answers: ErrorCode) -> None:
        self.answers = list(answers)

    async def verify(self, transactional_id, producer_id, producer_epoch, partitions):
        answer = self.answers.pop(0)
        return dict.fromkeys(partitions, answer)


@pytest.fixture
def log_manager(tmp_path):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", 1, uuid.uuid4(), {})
    yield lm
    lm.shutdown()


def txn_batch(seq: int, n: int = 1) -> memoryview:
    records = [(b"k", f"v{seq + i}".encode()) for i in range(n)]
    batch = build_batch(
        records, producer_id=PID, producer_epoch=0, base_sequence=seq, transactional=True, timestamp=BASE_TS
    )
    return memoryview(bytearray(batch))


async def produce(rm: ReplicaManager, seq: int, n: int = 1) -> ErrorCode:
    result = rm.append_records(
        [(("t", 0), txn_batch(seq, n))],
        required_acks=1,
        origin=AppendOrigin.CLIENT,
        produce_version=9,
        transactional_id="tx",
    )
    if not isinstance(result, dict):
        result = await result
    r = result[("t", 0)]
    return r.error.error if r.error else ErrorCode.NONE


def test_higher_sequence_after_a_failed_verification_is_out_of_order(log_manager):
    """Kafka's VerificationStateEntry.lowestSequence checked in ProducerAppendInfo.checkSequence:
    the first batch (sequence 0) of a new producer fails verification with a retriable error
    (NOT_COORDINATOR -> NOT_ENOUGH_REPLICAS); the verification state keeps its lowest sequence,
    so the pipelined next batch (sequence 5) is refused OUT_OF_ORDER_SEQUENCE_NUMBER instead of
    being written before sequences 0-4 (which then could never be written: an
    OutOfOrderSequence loop / aborted transaction)."""

    async def run() -> None:
        rm = ReplicaManager(
            ME,
            log_manager,
            lambda: BASE_TS,
            transaction_verifier=ScriptedVerifier(ErrorCode.NOT_COORDINATOR, ErrorCode.NONE, ErrorCode.NONE),
        )
        rm.lead_local_logs()
        assert await produce(rm, 0, 5) == ErrorCode.NOT_ENOUGH_REPLICAS
        assert await produce(rm, 5, 5) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
        assert rm.get_partition("t", 0).log.log_end_offset == 0
        # the retry of the first batch then goes through, in order
        assert await produce(rm, 0, 5) == ErrorCode.NONE

    asyncio.run(run())
