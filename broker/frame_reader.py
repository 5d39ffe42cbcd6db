"""The read side of a Kafka connection: size-prefixed frames out of the socket's bytes.

``FrameReader`` is a base class of ``KafkaConnection`` (broker/server.py), the asyncio
``BufferedProtocol`` half that Kafka's ``SocketServer.Processor`` and its ``Selector`` /
``NetworkReceive`` are: ``get_buffer`` / ``buffer_updated`` take the bytes as they arrive, the
frames completed are queued in ``_pending`` for the connection's ``_drain`` (Kafka's
``RequestChannel``: ``broker/server.py`` handles them), and every frame is accounted in the
request memory pool until the connection releases it. ``KafkaConnection.__init__`` sets the
attributes listed below: a frame read costs no extra call or attribute hop for the split.

Memory. An idle connection owns no read buffer: bytes are read into one buffer
shared by all connections (the event loop runs one read at a time), complete
frames are copied out, and only a frame still arriving gets a buffer of its
own, sized by what has arrived (plus ``FRAME_GROWTH``) and grown as its bytes
come, never allocated whole from its size prefix. The bytes of requests being
read or queued, across all connections, are capped by
``queued.max.request.bytes`` (``RequestMemoryPool``, in ``connection_limits``):
a connection that needs memory the pool cannot give stops being read until
memory is released, as Kafka's ``Selector`` mutes a channel whose
``MemoryPool.tryAllocate`` failed.

A frame larger than ``DIRECT_READ_MIN`` leaves its buffer to the connection once handled
(``_recycle``): the next large frame is read into it instead of a new, zeroed one, unless a
view of it outlived the request (a request still parked, a view kept by anyone): such a
buffer is never reused, so nothing kept is overwritten. The idle sweep drops spares unused
since the last sweep.

A size prefix that is negative or above ``socket.request.max.bytes`` closes the connection
before the body is buffered (while a SASL exchange is under way, above
``sasl.server.max.receive.size``: ``_limit_frames``).
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections import deque
from typing import TYPE_CHECKING

from broker.connection_limits import SMALL_REQUEST_BYTES, RequestMemoryPool

if TYPE_CHECKING:
    from broker.listener import KafkaServer
    from broker.metrics import RequestMetrics

# The connection's log lines, under its logger name as before the split.
log = logging.getLogger("broker.server")

_SIZE = struct.Struct(">i")
READ_BUFFER = 256 * 1024  # the read buffer shared by all connections of a server
FRAME_GROWTH = 1024 * 1024  # a frame's own buffer holds at most what has arrived plus this
DIRECT_READ_MIN = 64 * 1024  # a frame with this much still to come is read straight into its buffer
FAST_FRAME_SECONDS = 0.05  # a frame whose first FRAME_GROWTH bytes came this fast is not grown by steps
MAX_PENDING_FRAMES = 64
MAX_SPARE_FRAME = 2 * FRAME_GROWTH  # a larger frame's buffer is not kept for the next one
_PAUSED_PENDING = 1  # too many frames read ahead of their handling
_PAUSED_MEMORY = 2  # waiting for the request memory pool
_PAUSED_MUTED = 4  # frames read wait for the answers before them (SocketServer's mute)
_ZEROS = memoryview(bytes(FRAME_GROWTH))


class FrameReader(asyncio.BufferedProtocol):
    """Frames read into ``_pending`` and their request memory (a base of ``KafkaConnection``,
    whose ``__init__`` sets the attributes below)."""

    server: KafkaServer
    transport: asyncio.Transport | None
    id: int
    peer: str
    last_active: float
    max_request_bytes: int  # socket.request.max.bytes, lower during SASL (_limit_frames)
    pool: RequestMemoryPool
    wanted_bytes: int  # what this connection waits for in the pool
    _head: bytes  # the first bytes of a size prefix (fewer than 4)
    _frame: bytearray | None  # the frame being read, when not whole in one read
    _frame_size: int
    _filled: int
    _frame_started: float
    _admitted: bool  # the frame is accounted in the pool (else it waits)
    _direct: bool  # the last get_buffer handed out the frame's own buffer
    _held: int  # bytes accounted in the pool for this connection's frames
    _held_large: int  # of which frames above SMALL_REQUEST_BYTES
    _pending: deque[bytearray]  # frames read whole, waiting for _drain
    _timing: RequestMetrics | None
    _received: deque[float]  # with request metrics on: when each pending frame was read whole
    _spare: bytearray | None  # the last large frame's buffer, reused for the next one
    _returned: bytearray | None  # a handled frame's buffer, spare if nobody holds it
    _spare_used: bool
    _head_read: bool  # the last get_buffer handed out the size prefix buffer
    _paused: int  # _PAUSED_* flags
    _closed: bool
    _released: bool

    if TYPE_CHECKING:  # KafkaConnection's

        def _drain(self) -> None: ...

        def close(self, reason: str | None, *, level: int = logging.WARNING) -> None: ...

    # ------------------------------------------------------------------ asyncio callbacks (reading)

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._returned is not None:
            self._settle_spare()
        frame = self._frame
        if frame is not None:
            if self._admitted and self._frame_size - self._filled >= DIRECT_READ_MIN:
                if self._filled == len(frame):
                    frame = self._grow_frame(0)
                self._direct = True
                return memoryview(frame)[self._filled :]
        elif self._spare is not None:
            # A connection sending large frames: the size prefix is read alone, then the
            # frame straight into the spare buffer (no copy out of the shared one).
            self._direct = False
            self._head_read = True
            return self.server.head_view[len(self._head) :]
        self._direct = False
        self._head_read = False
        return self.server.read_view

    def buffer_updated(self, nbytes: int) -> None:
        self.last_active = self.server.monotonic()
        if self._direct:
            self._filled += nbytes
            if self._filled == self._frame_size:
                self._frame_complete()
                self._drain()
            return
        if self._head_read:
            self._head_read = False
            self._consume(nbytes, self.server.head_view[len(self._head) :])
        else:
            self._consume(nbytes, self.server.read_view)
        self._drain()

    # ------------------------------------------------------------------ framing

    def _consume(self, n: int, data: memoryview) -> None:
        """Frames out of the ``n`` bytes just read into ``data`` (a shared buffer)."""
        pos = 0
        received = None  # the read's time, taken once for the whole frames it brought
        while pos < n:
            if self._frame is not None:
                pos = self._continue_frame(data, pos, n)
                continue
            if self._head or n - pos < 4:
                k = min(4 - len(self._head), n - pos)
                self._head += bytes(data[pos : pos + k])
                pos += k
                if len(self._head) < 4:
                    break
                (size,) = _SIZE.unpack(self._head)
                self._head = b""
            else:
                (size,) = _SIZE.unpack_from(data, pos)
                pos += 4
            if size < 0 or size > self.max_request_bytes:
                self._refuse_frame_size(size)
                return
            if n - pos >= size:
                # Whole in this read: it is in memory already, so it is accounted even
                # over the cap; reading stops below until the pool has room again.
                self._hold(size)
                self._pending.append(self._frame_buffer(data[pos : pos + size], size))
                if self._timing is not None:
                    if received is None:
                        received = self._timing.clock()
                    self._received.append(received)
                pos += size
                continue
            self._begin_frame(size, data[pos:n])
            pos = n
        if len(self._pending) >= MAX_PENDING_FRAMES:
            self._set_paused(_PAUSED_PENDING, True)
        if self.pool.exhausted and self._frame is None and not self._paused & _PAUSED_MEMORY:
            self._wait_for_memory(0)

    def _limit_frames(self, limit: int | None) -> None:
        """While a SASL exchange is under way, frames above ``sasl.server.max.receive.size`` are
        refused on their size prefix (Kafka's SaslServerAuthenticator reads them with a
        NetworkReceive of that maximum): ``max_request_bytes`` is lowered to it until the
        connection is authenticated (``limit`` None), so ``_consume`` keeps one comparison.
        Frames already read are sized by the limit of their read (a client sends nothing after
        its SaslAuthenticate before the answer)."""
        full = self.server.max_request_bytes
        self.max_request_bytes = full if limit is None else min(limit, full)

    def _refuse_frame_size(self, size: int) -> None:
        full = self.server.max_request_bytes
        if 0 <= size <= full:  # within socket.request.max.bytes: over the SASL limit
            limit = f"sasl.server.max.receive.size={self.max_request_bytes} during SASL authentication"
            self.close(f"frame size {size} above {limit}")
        else:
            self.close(f"frame size {size} outside [0, socket.request.max.bytes={full}]")

    def _begin_frame(self, size: int, arrived: memoryview) -> None:
        avail = len(arrived)
        if self.pool.admits(size):
            self._hold(size)
            self._admitted = True
            # Sized by what has arrived, not by the size prefix: a frame that is slow to
            # come costs only its bytes so far (plus FRAME_GROWTH).
            capacity = size if size - avail < DIRECT_READ_MIN else min(size, avail + FRAME_GROWTH)
        else:
            self._admitted = False
            capacity = avail
            self.pool.waiting_bytes += avail
            self._wait_for_memory(size)
        frame = self._frame_buffer(arrived, capacity)
        self._frame, self._frame_size, self._filled = frame, size, avail
        self._frame_started = self.server.monotonic()

    def _continue_frame(self, data: memoryview, pos: int, n: int) -> int:
        frame = self._frame
        assert frame is not None
        take = min(self._frame_size - self._filled, n - pos)
        end = self._filled + take
        if len(frame) < end:
            frame = self._grow_frame(end)
        frame[self._filled : end] = data[pos : pos + take]
        self._filled = end
        if not self._admitted:  # bytes that came before the pause took effect
            self.pool.waiting_bytes += take
        if end == self._frame_size:
            self._frame_complete()
        return pos + take

    def _frame_buffer(self, arrived: memoryview, capacity: int) -> bytearray:
        """A buffer of ``capacity`` bytes starting with ``arrived``: the spare one if there is one
        and the frame is large (its size is what counts; what follows ``arrived`` is overwritten)."""
        spare = self._spare
        if spare is None or capacity < DIRECT_READ_MIN:
            if len(arrived) == capacity:
                return bytearray(arrived)
            frame = bytearray(capacity)
            frame[: len(arrived)] = arrived
            return frame
        self._spare = None
        self._spare_used = True
        if len(spare) > capacity:
            del spare[capacity:]
        while len(spare) < capacity:
            spare += _ZEROS[: min(FRAME_GROWTH, capacity - len(spare))]
        spare[: len(arrived)] = arrived
        return spare

    def _recycle(self, frame: bytearray) -> None:
        """A handled large frame's buffer may become the spare: checked at the next read
        (``_settle_spare``), when the transport no longer holds the view it read into."""
        if DIRECT_READ_MIN <= len(frame) <= MAX_SPARE_FRAME and not self._closed:
            self._returned = frame

    def _settle_spare(self) -> None:
        """The returned buffer becomes the spare unless a view of it is still held (a request
        that outlived its handling, a record kept by anyone): that one is left alone, never
        overwritten."""
        frame, self._returned = self._returned, None
        try:
            frame.append(0)  # type: ignore[union-attr]  # a bytearray with exported views cannot change size
        except BufferError:
            return
        del frame[-1]  # type: ignore[union-attr]
        self._spare = frame

    def release_spare(self) -> None:
        """The idle sweep: a spare unused since the last sweep is dropped."""
        if not self._spare_used:
            self._spare = self._returned = None
        self._spare_used = False

    def _grow_frame(self, at_least: int) -> bytearray:
        """More room for the frame being read: all of it if its bytes come fast, else
        doubled (capped by its size), so a slow frame costs about what has arrived."""
        frame = self._frame
        assert frame is not None
        if not self._admitted:
            target = at_least
        elif self.server.monotonic() - self._frame_started < FAST_FRAME_SECONDS:
            # Arriving fast: the rest follows at once, so take it in one step (the
            # pool has already counted the whole frame).
            target = self._frame_size
        else:
            target = max(len(frame) * 2, self._filled + FRAME_GROWTH, at_least)
        target = min(target, self._frame_size)
        try:
            while len(frame) < target:  # extended from a zero buffer kept hot in cache
                frame += _ZEROS[: min(FRAME_GROWTH, target - len(frame))]
        except BufferError:  # a view of it is still held by the transport: move it
            grown = bytearray(target)
            grown[: self._filled] = memoryview(frame)[: self._filled]
            self._frame = frame = grown
        return frame

    def _frame_complete(self) -> None:
        frame = self._frame
        assert frame is not None
        if not self._admitted:  # completed while waiting: it is in memory, account it
            self.pool.cancel(self)
            self.pool.waiting_bytes -= len(frame)
            self._hold(len(frame))
            self._set_paused(_PAUSED_MEMORY, False)
        self._frame = None
        self._admitted = False
        self._pending.append(frame)
        if self._timing is not None:
            self._received.append(self._timing.clock())
        if len(self._pending) >= MAX_PENDING_FRAMES:
            self._set_paused(_PAUSED_PENDING, True)

    # ------------------------------------------------------------------ request memory

    def _hold(self, size: int) -> None:
        self.pool.take(size)
        self._held += size
        if size > SMALL_REQUEST_BYTES:
            self._held_large += size

    def _release(self, size: int) -> None:
        if self._released:
            return
        self._held -= size
        if size > SMALL_REQUEST_BYTES:
            self._held_large -= size
        self.pool.release(size)

    def _wait_for_memory(self, size: int) -> None:
        self.wanted_bytes = size
        self.pool.wait(self, size)
        self._set_paused(_PAUSED_MEMORY, True)
        log.debug(
            "connection %d from %s: request memory exhausted (%d of %d bytes queued), waiting",
            self.id,
            self.peer,
            self.pool.used,
            self.pool.capacity,
        )

    def memory_granted(self) -> None:
        """Called by the pool when what this connection waits for fits."""
        if self._frame is not None and not self._admitted:
            self.pool.waiting_bytes -= self._filled
            self._hold(self._frame_size)
            self._admitted = True
        self.wanted_bytes = 0
        self._set_paused(_PAUSED_MEMORY, False)

    def _release_all(self) -> None:
        if self._released:
            return
        self._released = True
        self.pool.cancel(self)
        if self._frame is not None and not self._admitted:
            self.pool.waiting_bytes -= self._filled
        self._frame = None
        self._pending.clear()
        self._received.clear()
        held, large, self._held, self._held_large = self._held, self._held_large, 0, 0
        self.pool.release_sum(held, large)

    def _set_paused(self, reason: int, paused: bool) -> None:
        before = self._paused
        self._paused = before | reason if paused else before & ~reason
        if self.transport is None or self._closed or bool(before) == bool(self._paused):
            return
        if self._paused:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()
