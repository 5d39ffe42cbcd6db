"""The connection's output side: precompiled Produce answers, Fetch answers whose records stay
in the segment files (os.sendfile, or os.preadv on the copy path), and frame buffer reuse.

Encoders are compared byte for byte with the generated ones; the socket paths run against a
broker in the test's own event loop, so its connections can be inspected.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import ssl
import struct
import subprocess
from pathlib import Path

import pytest

import broker.server as server_module
from broker.broker import Broker
from broker.config import BrokerConfig
from broker.response_writer import FileResponse, encode_response, plain_socket_fd
from broker.server import SENDFILE_MIN_BYTES
from protocol.headers import RequestHeader, encode_request_header
from protocol.messages import FetchRequest, FetchResponse, MetadataRequest, ProduceRequest, ProduceResponse
from protocol.record_batch import read_header
from storage.file_records import FileRecords
from storage.partition_log import PartitionLog
from tests.storage.batch_factory import make_batch

# ---------------------------------------------------------------------------- encoders


def _generated(response, version: int, header_size: int, correlation_id: int = 7) -> bytes:
    w = bytearray(header_size)
    response.write(w, version)
    struct.pack_into(">ii", w, 0, len(w) - 4, correlation_id)
    return bytes(w)


def _produce_response(**partition) -> ProduceResponse:
    fields = {
        "index": 3,
        "error_code": 0,
        "base_offset": 1234567,
        "log_append_time_ms": -1,
        "log_start_offset": 5,
    }
    fields.update(partition)
    return ProduceResponse(
        responses=[
            ProduceResponse.TopicProduceResponse(
                name="topic-é", partition_responses=[ProduceResponse.PartitionProduceResponse(**fields)]
            )
        ],
        throttle_time_ms=0,
    )


@pytest.mark.parametrize("version", range(3, 12))
def test_produce_answers_are_packed_as_the_generated_encoder_writes_them(version):
    header = 9 if ProduceResponse.is_flexible(version) else 8
    for response in (
        _produce_response(),
        _produce_response(log_append_time_ms=1_700_000_000_000),
        _produce_response(error_code=6, base_offset=-1, error_message="not leader"),
        _produce_response(
            error_code=87, record_errors=[ProduceResponse.BatchIndexAndErrorMessage(batch_index=1)]
        ),
        _produce_response(current_leader=ProduceResponse.LeaderIdAndEpoch(leader_id=2, leader_epoch=4)),
    ):
        assert bytes(encode_response(response, version, 7, header)) == _generated(response, version, header)
    two = _produce_response()
    two.responses.append(two.responses[0])
    assert bytes(encode_response(two, version, 7, header)) == _generated(two, version, header)


def _records_file(tmp_path, batches: list[bytes]) -> tuple[int, list[tuple[int, int]]]:
    path = tmp_path / "records.log"
    path.write_bytes(b"".join(batches))
    fd = os.open(path, os.O_RDONLY)
    spans, at = [], 0
    for b in batches:
        spans.append((at, len(b)))
        at += len(b)
    return fd, spans


def _fetch_response(records: list) -> FetchResponse:
    partitions = []
    for i, rec in enumerate(records):
        p = FetchResponse.PartitionData(
            partition_index=i,
            error_code=0,
            high_watermark=100 + i,
            last_stable_offset=100 + i,
            log_start_offset=0,
            preferred_read_replica=-1,
            records=rec,
        )
        p.aborted_transactions = (
            [FetchResponse.AbortedTransaction(producer_id=9, first_offset=3)] if i else None
        )
        if i == 1:
            p.diverging_epoch = FetchResponse.EpochEndOffset(epoch=2, end_offset=40)
        partitions.append(p)
    return FetchResponse(
        throttle_time_ms=0,
        error_code=0,
        session_id=0,
        responses=[FetchResponse.FetchableTopicResponse(topic="t", partitions=partitions)],
    )


@pytest.mark.parametrize("version", range(4, 13))
def test_a_fetch_answer_with_file_records_is_the_generated_frame(tmp_path, version):
    batches = [bytes(make_batch(50, value_size=100, tag=i)) for i in range(3)]
    fd, spans = _records_file(tmp_path, batches)
    try:
        in_files = [FileRecords.of_file(fd, *spans[0]), b"", FileRecords.of_file(fd, *spans[1])]
        in_memory = [batches[0], b"", batches[1]]
        header = 9 if FetchResponse.is_flexible(version) else 8
        expected = _generated(_fetch_response(in_memory), version, header)
        out = encode_response(_fetch_response(in_files), version, 7, header)
        assert isinstance(out, FileResponse)
        assert len(out) == len(expected)
        assert len(out.head) == len(expected) - len(batches[0]) - len(batches[1])
        assert bytes(out.materialize()) == expected  # the copy path (os.preadv)
        out.close()
        assert all(not r.slices for _, r in out.regions)
    finally:
        os.close(fd)


def _fetch_variants() -> list[FetchResponse]:
    """v12 answers the packed encoder writes, and ones it leaves to the generated encoder."""
    batch = bytes(make_batch(3, value_size=10))
    plain = _fetch_response([batch, b"", None, memoryview(batch)])
    errors = _fetch_response([b""])
    errors.error_code, errors.session_id, errors.throttle_time_ms = 0, 12345, 7
    errors.responses[0].partitions[0].error_code = 6
    many = _fetch_response([batch] * 130)  # a partition count past one varint byte
    many.responses.append(FetchResponse.FetchableTopicResponse(topic="ü" * 70, partitions=[]))
    aborted = _fetch_response([batch])
    aborted.responses[0].partitions[0].aborted_transactions = [
        FetchResponse.AbortedTransaction(producer_id=i, first_offset=10 * i) for i in range(200)
    ]
    leader = _fetch_response([batch])
    leader.responses[0].partitions[0].current_leader = FetchResponse.LeaderIdAndEpoch(
        leader_id=1, leader_epoch=3
    )
    snapshot = _fetch_response([batch])
    snapshot.responses[0].partitions[0].snapshot_id = FetchResponse.SnapshotId(end_offset=5, epoch=1)
    tagged = _fetch_response([batch])
    tagged.responses[0].partitions[0].unknown_tagged_fields = [(9, b"xy")]
    top_tagged = _fetch_response([batch])
    top_tagged.unknown_tagged_fields = [(7, b"z")]
    diverging_tagged = _fetch_response([b""])
    diverging_tagged.responses[0].partitions[0].diverging_epoch = FetchResponse.EpochEndOffset(
        epoch=1, end_offset=2, unknown_tagged_fields=[(3, b"q")]
    )
    return [plain, errors, many, aborted, leader, snapshot, tagged, top_tagged, diverging_tagged]


@pytest.mark.parametrize("case", range(len(_fetch_variants())))
def test_fetch_v12_answers_are_packed_as_the_generated_encoder_writes_them(case):
    response = _fetch_variants()[case]
    assert bytes(encode_response(response, 12, 7, 9)) == _generated(_fetch_variants()[case], 12, 9)


def test_file_records_of_a_truncated_file_fail_instead_of_sending_short(tmp_path):
    batches = [bytes(make_batch(20, value_size=100))]
    fd, spans = _records_file(tmp_path, batches)
    records = FileRecords.of_file(fd, *spans[0])
    os.truncate(tmp_path / "records.log", spans[0][1] // 2)
    with pytest.raises(OSError):
        records.read()
    records.close()
    os.close(fd)


def test_only_a_plain_socket_is_written_directly():
    class Transport:
        def __init__(self, extra):
            self.extra = extra

        def get_extra_info(self, name, default=None):
            return self.extra.get(name, default)

    a, b = socket.socketpair()
    try:
        assert plain_socket_fd(Transport({"socket": a})) == a.fileno()
        # TLS: the bytes must go through the TLS layer, so the copy path is taken.
        assert plain_socket_fd(Transport({"socket": a, "ssl_object": object()})) is None
        assert plain_socket_fd(Transport({"socket": a, "sslcontext": object()})) is None
        assert plain_socket_fd(Transport({})) is None
    finally:
        a.close()
        b.close()


# ---------------------------------------------------------------------------- over a socket


def _frame(api_key: int, version: int, header_version: int, request, correlation_id: int = 1) -> bytes:
    w = bytearray()
    encode_request_header(w, RequestHeader(api_key, version, correlation_id, "t", header_version))
    request.write(w, version)
    return struct.pack(">i", len(w)) + bytes(w)


async def _until(predicate, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def _read_frame(r: asyncio.StreamReader) -> bytes:
    size = await r.readexactly(4)
    return size + await r.readexactly(struct.unpack(">i", size)[0])


async def _connect(host: str, port: int, rcvbuf: int | None = None):
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, port))
    return await asyncio.open_connection(sock=sock)


async def _produce(broker: Broker, host: str, port: int, batches: list[bytearray]) -> None:
    r, w = await _connect(host, port)
    w.write(_frame(3, 12, 2, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")])))
    await _read_frame(r)
    await _until(lambda: broker.replica_manager.get_partition("t", 0) is not None)
    for i, batch in enumerate(batches):
        request = ProduceRequest(
            acks=1,
            timeout_ms=5000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name="t", partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)]
                )
            ],
        )
        w.write(_frame(0, 9, 2, request, i + 2))
    for _ in batches:
        response = ProduceResponse.decode(memoryview(await _read_frame(r))[9:], 9)
        assert response.responses[0].partition_responses[0].error_code == 0
    w.close()


def _fetch_frame(max_bytes: int) -> bytes:
    fetch = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=1,
        max_bytes=max_bytes,
        topics=[
            FetchRequest.FetchTopic(
                topic="t",
                partitions=[
                    FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=max_bytes)
                ],
            )
        ],
    )
    return _frame(1, 12, 2, fetch, 99)


def _connection(broker: Broker, before: set):
    new = [c for c in broker.server.connections if c not in before]
    return new[0] if len(new) == 1 else None


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _run(tmp_path, scenario, **config: str) -> None:
    async def main():
        cfg = BrokerConfig(
            {"log.dirs": str(tmp_path / "logs"), "listeners": "PLAINTEXT://127.0.0.1:0", **config}
        )
        broker = Broker(cfg)
        await broker.start()
        try:
            await scenario(broker, *broker.server.bound[0])
        finally:
            await broker.stop()

    asyncio.run(main())


BATCHES = [make_batch(200, value_size=1000, tag=i) for i in range(24)]  # about 4.8 MB
LOG_BYTES = sum(len(b) for b in BATCHES)


def _expected_records(broker: Broker) -> bytes:
    plog = broker.replica_manager.get_partition("t", 0).log
    return plog.read(0, LOG_BYTES * 2).records


def test_sendfile_and_copy_paths_send_the_same_bytes(tmp_path):
    async def scenario(broker, host, port):
        await _produce(broker, host, port, BATCHES)
        log_bytes = _expected_records(broker)
        assert isinstance(log_bytes, bytes) and len(log_bytes) == LOG_BYTES
        answers = {}
        for sendfile in (True, False):
            broker.server.sendfile = sendfile
            before = set(broker.server.connections)
            r, w = await _connect(host, port)
            w.write(_fetch_frame(LOG_BYTES * 2))
            answers[sendfile] = await _read_frame(r)
            conn = _connection(broker, before)
            assert (conn._sender is not None) is sendfile  # which path wrote it
            w.close()
        assert answers[True] == answers[False]
        response = FetchResponse.decode(memoryview(answers[True])[9:], 12)
        assert bytes(response.responses[0].partitions[0].records) == log_bytes

    _run(tmp_path, scenario)


def test_a_fetch_answer_below_the_sendfile_size_is_copied_into_its_frame(tmp_path):
    """SENDFILE_MIN_BYTES: a smaller answer (a follower's, a tailing consumer's) is read into
    its frame and written with it, on a plain socket too; a larger one goes by sendfile."""

    async def scenario(broker, host, port):
        small = BATCHES[:1]
        assert len(small[0]) < SENDFILE_MIN_BYTES <= LOG_BYTES
        await _produce(broker, host, port, small)
        before = set(broker.server.connections)
        r, w = await _connect(host, port)
        w.write(_fetch_frame(LOG_BYTES * 2))
        answer = await _read_frame(r)
        conn = _connection(broker, before)
        assert conn._sender is None  # no sendfile for it
        response = FetchResponse.decode(memoryview(answer)[9:], 12)
        assert bytes(response.responses[0].partitions[0].records) == _expected_records(broker)
        await _produce(broker, host, port, BATCHES[1:])
        w.write(_fetch_frame(LOG_BYTES * 2))
        answer = await _read_frame(r)
        assert conn._sender is not None  # the whole log: by sendfile
        response = FetchResponse.decode(memoryview(answer)[9:], 12)
        assert bytes(response.responses[0].partitions[0].records) == _expected_records(broker)
        w.close()

    _run(tmp_path, scenario)


def test_a_partial_sendfile_resumes_when_the_socket_drains(tmp_path):
    async def scenario(broker, host, port):
        await _produce(broker, host, port, BATCHES)
        broker.server.sendfile = False
        r, w = await _connect(host, port)
        w.write(_fetch_frame(LOG_BYTES * 2))
        expected = await _read_frame(r)
        w.close()
        broker.server.sendfile = True

        before = set(broker.server.connections)
        r, w = await _connect(host, port, rcvbuf=8192)
        await _until(lambda: _connection(broker, before) is not None)
        conn = _connection(broker, before)
        conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
        w.write(_fetch_frame(LOG_BYTES * 2))
        await _until(lambda: conn._sending)  # the socket took part of it: waiting for writability
        got = await _read_frame(r)
        assert got == expected
        assert conn._sender.resumed > 0 and not conn._sending
        # the connection goes on: a second fetch on it is answered the same
        w.write(_fetch_frame(LOG_BYTES * 2))
        assert await _read_frame(r) == expected
        w.close()

    _run(tmp_path, scenario)


def test_a_connection_closed_mid_sendfile_leaks_no_descriptor(tmp_path):
    async def scenario(broker, host, port):
        await _produce(broker, host, port, BATCHES)
        await _until(lambda: not broker.server.connections)
        baseline = _open_fds()
        before = set(broker.server.connections)
        _r, w = await _connect(host, port, rcvbuf=8192)
        await _until(lambda: _connection(broker, before) is not None)
        conn = _connection(broker, before)
        conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
        w.write(_fetch_frame(LOG_BYTES * 2))
        await _until(lambda: conn._sending)
        sender = conn._sender
        assert _open_fds() > baseline + 1  # the client socket, the sender's and the records' duplicates
        w.transport.abort()
        await _until(lambda: not broker.server.connections)
        assert sender.closed and not sender.busy
        await _until(lambda: _open_fds() == baseline)

    _run(tmp_path, scenario)


def test_a_reused_frame_buffer_never_overwrites_a_view_someone_kept(tmp_path, monkeypatch):
    """Large frames reuse one buffer per connection; a view of a frame kept past its handling
    (here: by a wrapped log append) must keep its bytes, so that buffer is not reused."""
    kept: list[memoryview] = []
    append = PartitionLog.append_as_leader

    def keeping_append(self, records, *args, **kwargs):
        info = append(self, records, *args, **kwargs)
        if self.topic == "t":
            kept.append(records.buf)
        return info

    batches = [make_batch(200, value_size=1000, tag=i) for i in range(4)]

    async def scenario(broker, host, port):
        await _produce(broker, host, port, batches)
        assert len(kept) == len(batches)
        on_disk = _expected_records(broker)
        pos = 0
        for view in kept:
            size = len(view)
            assert bytes(view) == on_disk[pos : pos + size]
            assert read_header(view, 0).base_offset == read_header(on_disk, pos).base_offset
            pos += size
        assert pos == len(on_disk)

    monkeypatch.setattr(PartitionLog, "append_as_leader", keeping_append)
    _run(tmp_path, scenario)


def test_large_frames_reuse_the_connection_buffer_when_nothing_holds_it(tmp_path):
    batches = [make_batch(200, value_size=1000, tag=i) for i in range(4)]

    async def scenario(broker, host, port):
        before = set(broker.server.connections)
        r, w = await _connect(host, port)
        await _until(lambda: _connection(broker, before) is not None)
        conn = _connection(broker, before)
        w.write(_frame(3, 12, 2, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")])))
        await _read_frame(r)
        await _until(lambda: broker.replica_manager.get_partition("t", 0) is not None)
        spares = set()
        for i, batch in enumerate(batches):
            request = ProduceRequest(
                acks=1,
                timeout_ms=5000,
                topic_data=[
                    ProduceRequest.TopicProduceData(
                        name="t", partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)]
                    )
                ],
            )
            w.write(_frame(0, 9, 2, request, i + 2))
            await _read_frame(r)
            kept = conn._returned if conn._returned is not None else conn._spare
            assert kept is not None
            spares.add(id(kept))
        assert len(spares) == 1  # one buffer served every frame
        assert conn._spare_used
        on_disk = _expected_records(broker)
        assert len(on_disk) == sum(len(b) for b in batches)
        w.close()

    _run(tmp_path, scenario)


def _self_signed(tmp_path) -> tuple[str, str]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a certificate")
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(
        [
            *(
                openssl,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=localhost",
            ),
            "-keyout",
            key,
            "-out",
            cert,
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_a_tls_connection_gets_the_records_through_the_copy_path(tmp_path):
    """TLS needs the bytes in memory: the writer sees no plain socket and copies the records
    (os.preadv into the frame); the client reads the same answer as over plain TCP."""
    cert, key = _self_signed(tmp_path)
    keystore = tmp_path / "broker-keystore.pem"
    keystore.write_bytes(Path(key).read_bytes() + Path(cert).read_bytes())
    client_ctx = ssl.create_default_context()
    client_ctx.check_hostname = False
    client_ctx.verify_mode = ssl.CERT_NONE

    async def scenario(broker, host, port):
        await _produce(broker, host, port, BATCHES[:8])
        r, w = await _connect(host, port)
        w.write(_fetch_frame(LOG_BYTES * 2))
        plain = await _read_frame(r)
        w.close()
        tls_host, tls_port = broker.server.bound[1]  # the SSL listener
        before = set(broker.server.connections)
        r, w = await asyncio.open_connection(tls_host, tls_port, ssl=client_ctx)
        w.write(_fetch_frame(LOG_BYTES * 2))
        assert await _read_frame(r) == plain
        conn = _connection(broker, before)
        assert conn.transport.get_extra_info("ssl_object") is not None
        assert conn._sender is None  # never written around the TLS layer
        w.close()

    _run(
        tmp_path,
        scenario,
        listeners="PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
        **{"ssl.keystore.type": "PEM", "ssl.keystore.location": str(keystore)},
    )


def test_no_descriptor_for_the_sender_falls_back_to_the_copy_path(tmp_path, monkeypatch):
    def no_descriptor(*args):
        raise OSError(24, "Too many open files")

    async def scenario(broker, host, port):
        await _produce(broker, host, port, BATCHES[:8])
        log_bytes = _expected_records(broker)
        monkeypatch.setattr(server_module, "FileResponseSender", no_descriptor)
        r, w = await _connect(host, port)
        w.write(_fetch_frame(LOG_BYTES * 2))
        response = FetchResponse.decode(memoryview(await _read_frame(r))[9:], 12)
        assert bytes(response.responses[0].partitions[0].records) == log_bytes
        w.close()

    _run(tmp_path, scenario)
