"""Producer-id blocks: Kafka's JSON, the next-block rule, exhaustion, and the embedded lease file."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from coordinator.producer_id_blocks import (
    LONG_MAX,
    PRODUCER_ID_BLOCK_FILE,
    EmbeddedBlockSource,
    ProducerIdBlock,
    ProducerIdBlockError,
    ProducerIdBlockFatalError,
    ProducerIdsExhaustedError,
    decode_block,
    encode_block,
    next_block,
)
from coordinator.producer_ids import ProducerIdsFatalError, create_producer_id_manager
from protocol.errors import ErrorCode, KafkaError


def test_block_json_is_kafkas_with_string_bounds():
    block = ProducerIdBlock(broker_id=3, first_id=1000, size=1000)
    assert encode_block(block) == b'{"version":1,"broker":3,"block_start":"1000","block_end":"1999"}'
    assert decode_block(encode_block(block)) == block


def test_block_json_from_kafka_parses():
    # as a Kafka 3.x ZK broker writes it
    data = (
        b'{"version":1,"broker":1001,"block_start":"9223372036854774807","block_end":"9223372036854775806"}'
    )
    assert decode_block(data) == ProducerIdBlock(1001, LONG_MAX - 1000, 1000)


def test_block_json_with_numbers_is_accepted():
    assert decode_block(b'{"version":1,"broker":0,"block_start":0,"block_end":9}') == ProducerIdBlock(
        0, 0, 10
    )


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\xfe",
        b"not json",
        b"[]",
        b'{"version":1}',
        b'{"version":1,"broker":"x","block_start":"0","block_end":"9"}',
        b'{"version":1,"broker":true,"block_start":"0","block_end":"9"}',
        b'{"version":1,"broker":1,"block_start":"a","block_end":"9"}',
        b'{"version":1,"broker":1,"block_start":"10","block_end":"9"}',
        b'{"version":1,"broker":1,"block_start":"-5","block_end":"9"}',
        b'{"version":1,"broker":1,"block_start":"0","block_end":"9223372036854775808"}',
        b'{"version":1,"broker":1,"block_start":1.5,"block_end":"9"}',
        b'{"version":1,"broker":1,"block_start":false,"block_end":"9"}',
    ],
)
def test_bad_block_json_is_rejected(data):
    with pytest.raises(ValueError):
        decode_block(data)


def test_next_block_starts_at_zero_then_follows_the_last():
    first = next_block(None, broker_id=2, size=1000)
    assert first == ProducerIdBlock(2, 0, 1000) and first.last_id == 999
    # another broker's block of a different size: ours starts right after it
    assert next_block(ProducerIdBlock(7, 0, 5), broker_id=2, size=1000) == ProducerIdBlock(2, 5, 1000)


def test_exhaustion_near_2_63_is_fatal():
    size = 1000
    last_fitting = ProducerIdBlock(1, LONG_MAX - 2 * size + 1, size)  # ends at LONG_MAX - size
    final = next_block(last_fitting, broker_id=1, size=size)
    assert final.last_id == LONG_MAX
    with pytest.raises(ProducerIdsExhaustedError, match="exhausted"):
        next_block(final, broker_id=1, size=size)
    with pytest.raises(ProducerIdsExhaustedError):
        next_block(ProducerIdBlock(1, LONG_MAX - size - 5, size - 3), broker_id=1, size=size)
    assert issubclass(ProducerIdsExhaustedError, ProducerIdBlockFatalError)


def test_block_size_must_be_positive():
    with pytest.raises(ValueError):
        next_block(None, broker_id=1, size=0)


# ---------------------------------------------------------------------- embedded source


def test_embedded_source_leases_consecutive_blocks_into_the_file(tmp_path):
    path = tmp_path / PRODUCER_ID_BLOCK_FILE
    src = EmbeddedBlockSource(path, broker_id=4, block_size=1000)
    src.open()
    assert src.lease_next_block() == ProducerIdBlock(4, 0, 1000)
    assert json.loads(path.read_bytes()) == {
        "version": 1,
        "broker": 4,
        "block_start": "0",
        "block_end": "999",
    }
    assert src.lease_next_block() == ProducerIdBlock(4, 1000, 1000)
    # a new process on the same file continues after the last lease
    again = EmbeddedBlockSource(path, broker_id=4, block_size=10)
    assert again.lease_next_block() == ProducerIdBlock(4, 2000, 10)
    assert not (tmp_path / (PRODUCER_ID_BLOCK_FILE + ".tmp")).exists()


def test_embedded_lease_is_fsynced_and_renamed_before_it_is_returned(tmp_path, monkeypatch):
    path = tmp_path / PRODUCER_ID_BLOCK_FILE
    src = EmbeddedBlockSource(path, broker_id=1, block_size=10)
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append("fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file")
        real_fsync(fd)

    def replace(a, b):
        events.append("rename")
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    src.lease_next_block()
    assert events == ["fsync-file", "rename", "fsync-dir"]


def test_embedded_leftover_tmp_file_is_ignored(tmp_path):
    path = tmp_path / PRODUCER_ID_BLOCK_FILE
    EmbeddedBlockSource(path, broker_id=1, block_size=10).lease_next_block()
    (tmp_path / (PRODUCER_ID_BLOCK_FILE + ".tmp")).write_bytes(b'{"torn')  # a crash mid-write
    assert EmbeddedBlockSource(path, broker_id=1, block_size=10).lease_next_block().first_id == 10


def test_embedded_corrupt_file_is_fatal_not_guessed(tmp_path):
    path = tmp_path / PRODUCER_ID_BLOCK_FILE
    path.write_bytes(b'{"version":1,"broker":1,"block_start":"0"')
    with pytest.raises(ProducerIdBlockFatalError, match="corrupt"):
        EmbeddedBlockSource(path, broker_id=1, block_size=10).lease_next_block()
    assert path.read_bytes() == b'{"version":1,"broker":1,"block_start":"0"'  # left for the operator


def test_embedded_exhaustion_is_fatal(tmp_path):
    path = tmp_path / PRODUCER_ID_BLOCK_FILE
    path.write_bytes(encode_block(ProducerIdBlock(1, LONG_MAX - 99, 100)))
    with pytest.raises(ProducerIdsExhaustedError):
        EmbeddedBlockSource(path, broker_id=1, block_size=10).lease_next_block()


def test_embedded_write_failure_is_retriable(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    src = EmbeddedBlockSource(blocker / PRODUCER_ID_BLOCK_FILE, broker_id=1, block_size=10)
    with pytest.raises(ProducerIdBlockError) as err:
        src.lease_next_block()
    assert not isinstance(err.value, ProducerIdBlockFatalError)


def _manager(data_dir, block_size=10):
    return create_producer_id_manager(zookeeper=None, block_size=block_size, broker_id=1, data_dir=data_dir)


def test_embedded_manager_never_reuses_ids_across_crashes(tmp_path):
    """Each 'process' hands out some ids and dies without stopping; the next one never repeats them."""

    async def one_life(n: int) -> list[int]:
        m = _manager(tmp_path / "data", block_size=10)
        await m.start()
        ids = []
        while len(ids) < n:
            try:
                ids.append(m.generate_producer_id())
            except KafkaError:
                await asyncio.sleep(0.001)
        return ids  # no stop(): a crash

    seen: list[int] = []
    for n in (3, 10, 25, 1, 9):
        seen += asyncio.run(one_life(n))
    assert len(seen) == len(set(seen)) == 48


def test_embedded_manager_with_corrupt_file_refuses_to_start(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / PRODUCER_ID_BLOCK_FILE).write_bytes(b"garbage")

    async def scenario():
        m = _manager(data)
        with pytest.raises(ProducerIdsFatalError, match="corrupt"):
            await m.start()
        await m.stop()

    asyncio.run(scenario())


def test_embedded_manager_exhausted_answers_unknown_server_error(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / PRODUCER_ID_BLOCK_FILE).write_bytes(encode_block(ProducerIdBlock(1, LONG_MAX - 25, 10)))

    async def scenario():
        m = _manager(data, block_size=10)
        await m.start()  # one last block fits: LONG_MAX-15 .. LONG_MAX-6
        ids = [m.generate_producer_id() for _ in range(10)]
        assert ids == list(range(LONG_MAX - 15, LONG_MAX - 5))
        while m.lease_in_flight:  # the prefetch, which finds the ids exhausted
            await asyncio.sleep(0.005)
        assert m.fatal_error is not None
        with pytest.raises(KafkaError) as err:
            m.generate_producer_id()
        assert err.value.error is ErrorCode.UNKNOWN_SERVER_ERROR
        await m.stop()

    asyncio.run(scenario())
