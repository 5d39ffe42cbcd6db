"""Responses to bytes, and bytes to the socket: the connection's output side.

Encoding (``encode_response``). A response becomes its frame: size, correlation id, the
body. Two kinds come out:

- a ``bytearray``, for every response whose bytes are all in memory. Produce answers of one
  partition without errors, the produce hot path, are packed by ``_encode_produce`` with
  precompiled structs (one ``pack`` per field group, no per-field calls), and so are Fetch
  v12 answers without unusual tagged fields (``_encode_fetch_v12``, FileRecords included);
  every other response goes through its generated encoder.
- a ``FileResponse`` for a Fetch answer holding ``FileRecords`` (record bytes left in the
  segment files, storage/file_records.py): the generated encoder writes every field as
  usual into a ``_FrameBuffer``, which keeps the place of each ``FileRecords`` instead of
  its bytes (the records field's length prefix is written as for bytes). So the frame is
  byte for byte the one the generated encoder makes of the same records as bytes.

Writing (``FileResponseSender``), Kafka's ``TransportLayer.transferFrom`` /
``FileRecords.writeTo``: on a plain TCP socket a ``FileResponse`` is written with
``send`` (MSG_MORE) for the in-memory parts and ``os.sendfile`` from the segment file to
the socket for the records, so record bytes never pass through Python. Only when the
transport's own buffer is empty (responses stay in order); a socket that takes part of it
makes the sender wait for writability (``loop.add_writer`` on a duplicate of the socket's
descriptor, never the transport's own) and resume where it stopped. A connection whose
transport is TLS (no raw socket to write to) or whose transport still holds bytes takes the
copy path: ``FileResponse.materialize`` reads the records with ``os.preadv`` straight into
the output buffer, which goes to ``transport.write``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import struct
from collections.abc import Callable
from typing import Any

from protocol.messages import FetchResponse, ProduceResponse
from storage.file_records import FileRecords

_SIZE_CORR = struct.Struct(">ii")
_MSG_MORE = getattr(socket, "MSG_MORE", 0)


# ---------------------------------------------------------------------------- encoding


class _FrameBuffer(bytearray):
    """A frame being encoded that keeps ``FileRecords`` out of its bytes: each one appended
    (``w += records`` in the generated encoders) is remembered with its place instead."""

    __slots__ = ("regions",)

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.regions: list[tuple[int, FileRecords]] = []

    def __iadd__(self, other: Any) -> _FrameBuffer:
        if isinstance(other, FileRecords):
            self.regions.append((len(self), other))
            return self
        return bytearray.__iadd__(self, other)  # type: ignore[return-value]


class FileResponse:
    """A response frame whose records stay in segment files: the in-memory bytes of the frame
    (``head``) with each ``FileRecords`` to be inserted at its offset in them."""

    __slots__ = ("head", "regions", "size")

    def __init__(self, head: bytearray, regions: list[tuple[int, FileRecords]]) -> None:
        self.head = head
        self.regions = regions
        self.size = len(head) + sum(len(r) for _, r in regions)

    def __len__(self) -> int:
        return self.size

    def parts(self) -> list[memoryview | tuple[int, int, int]]:
        """In order: slices of ``head`` (memoryviews) and file slices (fd, position, size)."""
        view = memoryview(self.head)
        out: list[memoryview | tuple[int, int, int]] = []
        at = 0
        for offset, records in self.regions:
            if offset > at:
                out.append(view[at:offset])
            out.extend(records.slices)
            at = offset
        if at < len(view):
            out.append(view[at:])
        return out

    def materialize(self) -> bytearray:
        """The whole frame in memory (the copy path): records read with ``os.preadv`` into it."""
        out = bytearray(self.size)
        view = memoryview(out)
        at = 0  # in head
        pos = 0  # in out
        for offset, records in self.regions:
            n = offset - at
            view[pos : pos + n] = self.head[at:offset]
            pos += n
            at = offset
            records.readinto(view[pos : pos + len(records)])
            pos += len(records)
        view[pos:] = self.head[at:]
        return out

    def close(self) -> None:
        for _, records in self.regions:
            records.close()


def encode_response(
    response: Any, version: int, correlation_id: int, header_size: int
) -> bytearray | FileResponse:
    """The frame of ``response`` (size, correlation id, tagged fields of a flexible header, body).

    ``header_size`` is 8, or 9 for a flexible response header (its empty tagged fields).
    """
    if type(response) is ProduceResponse:
        w = _encode_produce(response, version, header_size)
        if w is not None:
            _SIZE_CORR.pack_into(w, 0, len(w) - 4, correlation_id)
            return w
    elif type(response) is FetchResponse and version == 12:
        fw = _encode_fetch_v12(response, header_size)
        if fw is not None:
            if fw.regions:
                result = FileResponse(fw, fw.regions)
                _SIZE_CORR.pack_into(fw, 0, result.size - 4, correlation_id)
                return result
            _SIZE_CORR.pack_into(fw, 0, len(fw) - 4, correlation_id)
            return fw
    if _holds_file_records(response):
        fw = _FrameBuffer(header_size)
        response.write(fw, version)
        result = FileResponse(fw, fw.regions)
        _SIZE_CORR.pack_into(fw, 0, result.size - 4, correlation_id)
        return result
    w = bytearray(header_size)
    response.write(w, version)
    _SIZE_CORR.pack_into(w, 0, len(w) - 4, correlation_id)
    return w


def _holds_file_records(response: Any) -> bool:
    # Only Fetch answers carry FileRecords (other responses have "responses" lists too).
    if type(response) is not FetchResponse:
        return False
    topics = response.responses
    return any(isinstance(p.records, FileRecords) for t in topics for p in t.partitions)


def close_unsent(response: Any) -> None:
    """Give back the descriptors of a response that will not be encoded (its connection closed)."""
    if _holds_file_records(response):
        for t in response.responses:
            for p in t.partitions:
                if isinstance(p.records, FileRecords):
                    p.records.close()


# Produce answers of one partition without error (every produce of a client that sends one
# partition per request), packed with one struct per version group. The field layout is
# ProduceResponse.json's; the module tests compare every version with the generated encoder.
_P_V3 = struct.Struct(">ih")  # responses count, topic name length (then the name)
_P_V3_PART = struct.Struct(">iihqqi")  # partitions count, index, error, base offset, append time, throttle
_P_V5_PART = struct.Struct(">iihqqqi")  # ... + log start offset
_P_V8_PART = struct.Struct(">iihqqqihi")  # ... + record errors count 0, error message null, throttle
_P_V9_PART = struct.Struct(
    ">BihqqqBBBBiB"
)  # compact: count 2, fields, errors 1, message null, tags, topic tags, throttle, tags


def _encode_produce(response: ProduceResponse, version: int, header_size: int) -> bytearray | None:
    topics = response.responses
    if len(topics) != 1 or response.node_endpoints or response.unknown_tagged_fields or version > 11:
        return None
    topic = topics[0]
    parts = topic.partition_responses
    if len(parts) != 1 or topic.unknown_tagged_fields:
        return None
    p = parts[0]
    leader = p.current_leader
    if (
        p.error_code
        or p.record_errors
        or p.error_message is not None
        or p.unknown_tagged_fields
        or leader.leader_id != -1
        or leader.leader_epoch != -1
        or leader.unknown_tagged_fields
    ):
        return None
    name = topic.name.encode()
    throttle = response.throttle_time_ms
    w = bytearray(header_size)
    if version >= 9:
        n = len(name) + 1
        if n >= 0x80:
            return None
        w.append(2)
        w.append(n)
        w += name
        w += _P_V9_PART.pack(
            2, p.index, 0, p.base_offset, p.log_append_time_ms, p.log_start_offset, 1, 0, 0, 0, throttle, 0
        )
        return w
    w += _P_V3.pack(1, len(name))
    w += name
    if version >= 8:
        w += _P_V8_PART.pack(
            1, p.index, 0, p.base_offset, p.log_append_time_ms, p.log_start_offset, 0, -1, throttle
        )
    elif version >= 5:
        w += _P_V5_PART.pack(1, p.index, 0, p.base_offset, p.log_append_time_ms, p.log_start_offset, throttle)
    else:
        w += _P_V3_PART.pack(1, p.index, 0, p.base_offset, p.log_append_time_ms, throttle)
    return w


# Fetch answers in v12 (what the replica fetchers and Kafka 4 consumers use here), packed
# with precompiled structs: the generated encoder builds and compares a default object per
# tagged field of every partition. The field layout is FetchResponse.json's; the module tests
# compare it with the generated encoder. None (the generated encoder then) for anything unusual.
_F_V12_HEAD = struct.Struct(">ihi")  # throttle, error, session id
_F_V12_PART = struct.Struct(">ihqqq")  # partition index, error, high watermark, LSO, log start
_F_V12_ABORTED = struct.Struct(">qqB")  # producer id, first offset, tags
_F_V12_REPLICA = struct.Struct(">i")  # preferred read replica
_F_V12_DIVERGING = struct.Struct(
    ">BBBiqB"
)  # the partition's tags: 1, tag 0 of 13 bytes (epoch, end offset, tags)
_NO_TAGS = b"\x00"


def _compact_length(w: bytearray, n: int) -> None:
    n += 1
    if n < 0x80:
        w.append(n)
        return
    while n >= 0x80:
        w.append((n & 0x7F) | 0x80)
        n >>= 7
    w.append(n)


def _encode_fetch_v12(response: FetchResponse, header_size: int) -> _FrameBuffer | None:
    if response.unknown_tagged_fields or response.node_endpoints:
        return None
    w = _FrameBuffer(header_size)
    w += _F_V12_HEAD.pack(response.throttle_time_ms, response.error_code, response.session_id)
    topics = response.responses
    _compact_length(w, len(topics))
    part_pack = _F_V12_PART.pack
    for topic in topics:
        if topic.unknown_tagged_fields or topic.topic is None:
            return None
        name = topic.topic.encode()
        if len(name) > 0x7FFF:
            return None
        _compact_length(w, len(name))
        w += name
        parts = topic.partitions
        _compact_length(w, len(parts))
        for p in parts:
            leader = p.current_leader
            snapshot = p.snapshot_id
            diverging = p.diverging_epoch
            if (
                p.unknown_tagged_fields
                or leader is None
                or leader.leader_id != -1
                or leader.leader_epoch != -1
                or leader.unknown_tagged_fields
                or snapshot is None
                or snapshot.end_offset != -1
                or snapshot.epoch != -1
                or snapshot.unknown_tagged_fields
                or diverging is None
                or diverging.unknown_tagged_fields
            ):
                return None
            w += part_pack(
                p.partition_index, p.error_code, p.high_watermark, p.last_stable_offset, p.log_start_offset
            )
            aborted = p.aborted_transactions
            if aborted is None:
                w.append(0)
            else:
                _compact_length(w, len(aborted))
                for txn in aborted:
                    if txn.unknown_tagged_fields:
                        return None
                    w += _F_V12_ABORTED.pack(txn.producer_id, txn.first_offset, 0)
            w += _F_V12_REPLICA.pack(p.preferred_read_replica)
            records = p.records
            if records is None:
                w.append(0)
            else:
                _compact_length(w, len(records))
                w += records  # a FileRecords becomes a region of the frame
            if diverging.epoch == -1 and diverging.end_offset == -1:
                w += _NO_TAGS
            else:
                w += _F_V12_DIVERGING.pack(1, 0, 13, diverging.epoch, diverging.end_offset, 0)
        w += _NO_TAGS  # the topic's tagged fields
    w += _NO_TAGS
    return w


# ---------------------------------------------------------------------------- writing


# struct tcp_info (linux/tcp.h): tcpi_unacked (segments in flight), tcpi_bytes_acked (Linux
# 4.1), tcpi_notsent_bytes (4.6).
_TCP_INFO_UNACKED = (struct.Struct("=I"), 24)
_TCP_INFO_BYTES_ACKED = (struct.Struct("=Q"), 120)
_TCP_INFO_NOTSENT_BYTES = (struct.Struct("=I"), 144)


def tcp_progress(transport: asyncio.BaseTransport) -> tuple[int, bool] | None:
    """From the kernel, for the transport's TCP socket: the bytes the peer has acknowledged
    (TLS records included; it moves whenever the client reads, whoever holds what is not sent
    yet: the transport, a TLS layer, ``os.sendfile``) and whether the kernel still holds bytes
    for it (unsent or unacknowledged). None where it cannot be told."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    except (OSError, AttributeError):
        return None
    if len(info) < _TCP_INFO_NOTSENT_BYTES[1] + 4:
        return None
    (acked,) = _TCP_INFO_BYTES_ACKED[0].unpack_from(info, _TCP_INFO_BYTES_ACKED[1])
    (unacked,) = _TCP_INFO_UNACKED[0].unpack_from(info, _TCP_INFO_UNACKED[1])
    (notsent,) = _TCP_INFO_NOTSENT_BYTES[0].unpack_from(info, _TCP_INFO_NOTSENT_BYTES[1])
    return acked, bool(unacked or notsent)


def plain_socket_fd(transport: asyncio.BaseTransport) -> int | None:
    """The descriptor of the transport's TCP socket when bytes may be written to it directly:
    None for TLS (the bytes must go through the TLS layer) or a transport without a socket."""
    if (
        transport.get_extra_info("ssl_object") is not None
        or transport.get_extra_info("sslcontext") is not None
    ):
        return None
    sock = transport.get_extra_info("socket")
    if sock is None:
        return None
    try:
        fd = sock.fileno()
    except (OSError, ValueError):
        return None
    return fd if fd >= 0 else None


COPY_SLICE = 256 * 1024  # the copy path reads a large answer's records this much at a time


class FileResponseCopier:
    """The copy path of a large ``FileResponse`` (a TLS transport, or one still holding bytes):
    its records read from the segment files a slice at a time as the transport takes them, as
    Kafka's ``SslTransportLayer.transferFrom`` through one buffer per channel, so a client
    that reads slowly or not at all costs the broker a slice and the transport's buffer, not
    the answer (up to ``fetch.max.bytes``) and its encrypted copy. ``paused`` tells whether the
    transport asked its protocol to stop writing (``pause_writing``)."""

    def __init__(
        self, response: FileResponse, transport: asyncio.WriteTransport, paused: Callable[[], bool]
    ) -> None:
        self._response = response
        self._transport = transport
        self._paused = paused
        self._parts = response.parts()
        self._index = 0
        self._offset = 0

    def pump(self) -> bool:
        """Write slices until all is written (True) or the transport is full (False); OSError
        if a segment file cannot be read. The place is moved on before each write: a
        transport may call its protocol back (pause, resume) from inside ``write``."""
        parts = self._parts
        write = self._transport.write
        while self._index < len(parts):
            if self._paused():
                return False
            part = parts[self._index]
            if isinstance(part, memoryview):
                data: bytes | memoryview = part[self._offset :]  # the transport copies them
                self._index += 1
                self._offset = 0
            else:
                fd, position, size = part
                n = min(COPY_SLICE, size - self._offset)
                data = os.pread(fd, n, position + self._offset)
                if len(data) != n:
                    raise OSError("segment file truncated under a fetch response")
                self._offset += n
                if self._offset >= size:
                    self._index += 1
                    self._offset = 0
            write(data)
        return True

    def close(self) -> None:
        self._parts = []
        self._response.close()


class FileResponseSender:
    """Writes ``FileResponse`` frames on one plain TCP socket, records with ``os.sendfile``.

    It writes to a duplicate of the socket's descriptor, made at the first use, so waiting for
    writability (``add_writer``) never touches the transport's registration, and a write after
    the transport closed its descriptor cannot reach another socket that got its number.
    ``close`` (the connection is gone) drops what is not sent and gives every descriptor back.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, socket_fd: int) -> None:
        self._loop = loop
        self._sock = socket.socket(fileno=os.dup(socket_fd))
        self._sock.setblocking(False)
        self._fd = self._sock.fileno()
        self._response: FileResponse | None = None
        self._parts: list[memoryview | tuple[int, int, int]] = []
        self._index = 0
        self._offset = 0
        self._waiting = False
        self._on_done: Callable[[BaseException | None], None] | None = None
        self.closed = False
        self.resumed = 0  # writes continued after the socket was full (tests, metrics)

    @property
    def busy(self) -> bool:
        return self._response is not None

    def send(self, response: FileResponse, on_done: Callable[[BaseException | None], None]) -> bool:
        """Write ``response``: True if it is all written now (``on_done`` is not called), else
        False and ``on_done(None)`` follows once it is, or ``on_done(error)`` if the socket
        failed (the response is then given up). OSError now if the socket fails at once."""
        assert self._response is None and not self.closed
        self._response = response
        self._parts = response.parts()
        self._index = self._offset = 0
        self._on_done = on_done
        try:
            done = self._pump()
        except BaseException:
            self._finish()
            raise
        if done:
            self._finish()
            return True
        self._waiting = True
        self._loop.add_writer(self._fd, self._writable)
        return False

    def _pump(self) -> bool:
        """Write until done (True) or the socket is full (False); OSError on a failure."""
        parts = self._parts
        fd = self._fd
        last = len(parts) - 1
        while self._index <= last:
            part = parts[self._index]
            try:
                if isinstance(part, memoryview):
                    # MSG_MORE: the records follow, no segment for this header alone.
                    flags = _MSG_MORE if self._index < last else 0
                    n = self._sock.send(part[self._offset :], flags)
                    size = len(part)
                else:
                    file_fd, position, size = part
                    n = os.sendfile(fd, file_fd, position + self._offset, size - self._offset)
                    if n == 0:
                        raise OSError("segment file truncated under a fetch response")
            except (BlockingIOError, InterruptedError):
                return False
            self._offset += n
            if self._offset >= size:
                self._index += 1
                self._offset = 0
        return True

    def _writable(self) -> None:
        if self._response is None:
            return
        self.resumed += 1
        error: BaseException | None = None
        try:
            if not self._pump():
                return
        except OSError as exc:
            error = exc
        on_done = self._on_done
        self._finish()
        if on_done is not None:
            on_done(error)

    def _finish(self) -> None:
        if self._waiting:
            self._waiting = False
            self._loop.remove_writer(self._fd)
        response, self._response = self._response, None
        self._parts = []
        self._on_done = None
        if response is not None:
            response.close()

    def close(self) -> None:
        """The connection is gone: what is unsent is dropped; the descriptors go back."""
        if self.closed:
            return
        self._finish()
        self.closed = True
        self._sock.close()
