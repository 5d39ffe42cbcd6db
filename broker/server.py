"""The TCP front end's connections: size-prefixed Kafka frames in, responses out, in order.

Each connection is a ``KafkaConnection`` (an asyncio ``BufferedProtocol``); the listeners
that accept them and the registry of live ones are ``broker.listener.KafkaServer``.
Frames are handled one at a time per connection and answered in request order,
like Kafka's ``SocketServer``, which mutes a channel until its response is sent:

- a synchronous handler runs inline as soon as its frame is complete;
- an ``async`` handler (long-poll fetch, group join, acks wait) parks this
  connection only: the next frame waits, other connections go on.

Pipelined produces (a Moldau difference, docs/COMPATIBILITY.md). A Produce directly behind
Produces still awaiting their answers (acks=-1 in the DelayedProduce purgatory) is handled at
once, up to ``MAX_PIPELINED_PRODUCES`` outstanding: a replicated acks=all stream is not held
to one replication round trip per request. Its append is the handler's synchronous part, so
appends keep the arrival order; answers wait in ``_answers`` and are written strictly in
request order. Any other request waits until everything before it is answered, and nothing
is started behind a Produce that may append after its handler returned (a transactional one:
KIP-890 verification comes first; one a test's interceptor holds). A request that
closes the connection behind outstanding ones closes it at its turn; a connection that closes
cancels the handlers still waiting (their request memory goes back with the connection's).

Frames are read (and their request memory accounted, ``queued.max.request.bytes``) by
``FrameReader`` (``broker.frame_reader``), a base class of ``KafkaConnection``; answers wait
for their turn in ``_answers`` as ``broker.answers.Answer``.

Output (``broker.response_writer``). The responses produced by one pass over a connection's
frames are written with one ``transport.write``. A Fetch answer whose records stay in the
segment files (``FileResponse``) is written by ``FileResponseSender`` with ``os.sendfile``
when the transport is a plain socket with nothing buffered, resuming when the socket drains;
nothing else is written on the connection meanwhile (``_sending``). A TLS transport, or one
still holding bytes, gets the frame through the copy path: ``os.preadv`` into it when small,
else ``FileResponseCopier`` reads the records a slice at a time as the transport takes them
(Kafka's ``SslTransportLayer.transferFrom``), so a client that reads slowly costs a slice.

Muting. Frames read that cannot start (behind outstanding answers, or while the answers
cannot be written) stop the reading of their connection until they can (``_PAUSED_MUTED``),
as Kafka's ``SocketServer`` mutes a channel from a request's read until its response is
sent: what a client writes behind an answer it does not read stays in its socket, not in
``queued.max.request.bytes``. Such a client is idle by its last read or write, whatever it
still has to be sent (Kafka's ``Selector``); while answers wait for it, a read of the client's
is seen in the kernel's count of the bytes it acknowledged (``tcp_progress``), so a slow
reader is not idle. An idle connection is closed at ``connections.max.idle.ms`` at once,
its unsent answer dropped (``close(abort=True)``).

Bad input closes the connection and is logged, never more (Kafka's
``RequestHeader.parse`` and ``RequestContext`` do the same): an unknown API key,
an unsupported version (ApiVersions excepted: it gets a v0 answer with
UNSUPPORTED_VERSION, KIP-511), a header or body that does not decode, a size
prefix that is negative or above ``socket.request.max.bytes`` (refused before
the body is buffered; while a SASL exchange is under way, above
``sasl.server.max.receive.size``: ``_limit_frames``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import socket
import struct
from collections import deque
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from broker.answers import Answer, close_arguments, discard, discard_task, waits_only
from broker.frame_reader import _PAUSED_MUTED, _PAUSED_PENDING, MAX_PENDING_FRAMES, FrameReader
from broker.handlers import CloseConnection, HandlerSpec, RequestContext
from broker.handlers.produce import decode_produce_request
from broker.inline_answer import InlineAnswer
from broker.response_writer import (
    FileResponse,
    FileResponseCopier,
    FileResponseSender,
    close_unsent,
    encode_response,
    plain_socket_fd,
    tcp_progress,
)
from broker.security.authenticator import AuthenticationRefused
from protocol.errors import ErrorCode
from protocol.headers import API_VERSIONS_KEY, RequestHeader, decode_request_header
from protocol.messages import ApiVersionsResponse
from protocol.messages._base import Message
from protocol.primitives import DecodeError, EncodeError

if TYPE_CHECKING:
    from broker.listener import KafkaServer, RequestInterceptor

log = logging.getLogger(__name__)

_SIZE_CORR = struct.Struct(">ii")
_HEAD = struct.Struct(">hhi")  # api key, api version, correlation id
_API_KEY = struct.Struct(">h")
_FRAME_OUT = (bytearray, bytes, FileResponse)
PRODUCE_KEY = 0
# Produce requests a connection may have awaiting their answers (the clients'
# max.in.flight.requests.per.connection default): the next one waits for the first answer.
MAX_PIPELINED_PRODUCES = 5
# Frames one connection handles per turn of the event loop, and responses queued before they
# are written: a pipelining client neither starves the others nor piles answers up in memory.
MAX_FRAMES_PER_TURN = 32
MAX_QUEUED_RESPONSES = 8
# A fetch answer this large goes out with sendfile; a smaller one is read into its frame
# (preadv) and written with it. sendfile saves that copy, but costs two more system calls
# (the frame's head and tail go apart) and its own bookkeeping: measured with three brokers
# at RF 3 (followers' answers of 16-200 KiB), copying answers below 256 KiB took 2-3% less
# CPU per produced 16 KiB batch and 14% less per 64 KiB batch (bench/produce_request_bench.py
# --replicas 3). Consumers catching up (1 MiB answers) keep sendfile.
SENDFILE_MIN_BYTES = 256 * 1024
_connection_ids = itertools.count(1)


class KafkaConnection(FrameReader):
    def __init__(self, server: KafkaServer, listener: str, ip: str) -> None:
        self.server = server
        self.broker = server.broker
        self.listener = listener
        self.ip = ip
        self.max_request_bytes = server.max_request_bytes
        self.pool = server.memory
        self.id = next(_connection_ids)
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self.last_active = self.server.monotonic()
        self._head = b""  # the first bytes of a size prefix (fewer than 4)
        self._frame: bytearray | None = None  # the frame being read, when not whole in one read
        self._frame_size = 0
        self._filled = 0
        self._frame_started = 0.0
        self._admitted = False  # the frame is accounted in the pool (else it waits)
        self._direct = False  # the last get_buffer handed out the frame's own buffer
        self.wanted_bytes = 0  # what this connection waits for in the pool
        self._held = 0  # bytes accounted in the pool for this connection's frames
        self._held_large = 0  # of which frames above SMALL_REQUEST_BYTES
        self._pending: deque[bytearray] = deque()
        # With request metrics on: when each pending frame was read whole (RequestQueueTimeMs).
        self._timing = server.request_timing
        self._received: deque[float] = deque()
        # The buffer of the last large frame, reused for the next one (no allocation, no
        # zeroing) once nothing holds a view of it; dropped by the idle sweep when unused.
        self._spare: bytearray | None = None
        self._returned: bytearray | None = None  # a handled frame's buffer, spare if nobody holds it
        self._spare_used = False
        self._head_read = False  # the last get_buffer handed out the size prefix buffer
        self._out: list[bytearray | bytes] = []  # responses of one drain, written together
        self._sender: FileResponseSender | None = None  # made at the first FileResponse
        self._sending = False  # a FileResponse waits for the socket: nothing is written after it
        self._copier: FileResponseCopier | None = None  # the large answer being copied, if any
        self._copying = False  # inside the copier's pump
        # The peer's acknowledged bytes at the last idle sweep that found output waiting for it.
        self._acked_at_sweep: int | None = None
        # Requests handled whose answers are not written yet, in request order: one async
        # handler, or several Produce requests (see the module docstring, "Pipelined produces").
        self._answers: deque[Answer] = deque()
        self._produces_only = False  # every request in _answers is a Produce: another may start
        self._answers_inline = False  # the handler just dispatched answers inline (HandlerSpec)
        self._drain_scheduled = False
        self._actions = self.broker.replica_manager.actions
        # The request just dispatched may append after its handler returned: nothing is started
        # behind it (a transactional Produce, a request a test's interceptor holds).
        self._appends_later = False
        self._paused = 0  # _PAUSED_* flags
        self._writing_paused = False
        self._closed = False
        self._released = False
        # TLS client certificate / SASL state of this connection (broker/security)
        self.auth = self.broker.security.authenticator(listener, self.close, self._limit_frames)

    # ------------------------------------------------------------------ asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.connections.add(self)
        self.auth.connection_made(transport)
        log.debug("connection %d from %s", self.id, self.peer)

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self.server.connection_closed(self)
        self._drop_answers()
        self._close_sender()
        self._release_all()
        log.debug("connection %d from %s closed", self.id, self.peer)

    def eof_received(self) -> bool | None:
        return None  # close the transport

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        self.last_active = self.server.monotonic()  # the client read its answers
        if self._copier is not None:
            if self._copying:
                return  # called back from inside the copier's write: it goes on by itself
            if self._copy_more() and not self._closed:
                self._file_response_sent(None)  # the answers behind it, then the frames waiting
            return
        self._drain()

    def is_idle_since(self, cutoff: float) -> bool:
        """No bytes in or out since ``cutoff`` and no handler still running. As Kafka's
        ``Selector`` (idle by the channel's last read or write), a client that stopped reading
        its answers is idle too: what waits for it (an answer being sent, the frames read
        behind it) goes with the connection. A client still reading its answer, however
        slowly, is not: the kernel's count of bytes it acknowledged moved since the last sweep."""
        if self.last_active >= cutoff or self._answers or self._closed:
            return False  # (a closed one is going: not closed again)
        transport = self.transport
        if transport is None:
            return True
        progress = tcp_progress(transport)
        if not (
            self._sending
            or self._writing_paused
            or transport.get_write_buffer_size()
            or (progress is not None and progress[1])
        ):
            return True  # nothing waits for the client
        acked = None if progress is None else progress[0]
        if acked is None or acked != self._acked_at_sweep:
            self._acked_at_sweep = acked
            self.last_active = self.server.monotonic()
            return False
        return True

    # ------------------------------------------------------------------ dispatch

    def _drain(self) -> None:
        """Handle the frames read, in order, while the connection may; the responses of one
        pass are written together (one system call for a burst of pipelined requests).

        While answers are outstanding (``_answers``) only a Produce behind Produces is
        started, up to MAX_PIPELINED_PRODUCES; anything else waits for them to be answered."""
        pending = self._pending
        answers = self._answers
        server = self.server
        turn = MAX_FRAMES_PER_TURN
        while pending and not self._writing_paused and not self._closed and not self._sending:
            if not turn:
                # A long pipelined burst yields to the other connections between slices (Kafka
                # mutes a channel after each request): the rest is handled on a later turn.
                if not self._drain_scheduled:
                    self._drain_scheduled = True
                    asyncio.get_running_loop().call_soon(self._scheduled_drain)
                break
            turn -= 1
            frame = pending[0]
            if answers and not (
                self._produces_only
                and len(answers) < MAX_PIPELINED_PRODUCES
                and len(frame) >= 2
                and _API_KEY.unpack_from(frame)[0] == PRODUCE_KEY
            ):
                break
            pending.popleft()
            if self._timing is not None:  # for the handler's timing wrapper (broker.metrics)
                self._timing.received = self._received.popleft()
            try:
                result = self._dispatch(frame)
            except CloseConnection as exc:
                self._fail(len(frame), str(exc))
                return
            except Exception:  # a bug in a handler: close this connection only
                log.exception("connection %d from %s: handler failed, closing", self.id, self.peer)
                self._fail(len(frame), None)
                return
            # Answers this request completed on other connections (a follower's fetch moving
            # the high watermark releases acknowledgements) go out before its own.
            server.flush_connections()
            if self._closed:  # the request closed it (bad input, a test's interceptor)
                discard(result)
                return
            if result is not None and not isinstance(result, _FRAME_OUT):
                if not answers:
                    self._produces_only = len(frame) >= 2 and _API_KEY.unpack_from(frame)[0] == PRODUCE_KEY
                if self._appends_later:
                    self._produces_only = False
                if self._answers_inline and inspect.iscoroutine(result):
                    inline = InlineAnswer(result, self._answered_inline)
                    answers.append(Answer(len(frame), inline))
                    inline.start()
                    continue
                task = asyncio.ensure_future(result)
                answers.append(Answer(len(frame), task))
                task.add_done_callback(self._answer_ready)
                continue
            if answers:  # a Produce answered at once behind earlier ones: its turn comes
                answers.append(Answer(len(frame), None, result))
                continue
            if result is not None:
                self._emit(result)
                if len(self._out) >= MAX_QUEUED_RESPONSES:
                    # Written now, so that a client not reading its answers pauses the pass
                    # (pause_writing) before more of them pile up in memory.
                    self.flush()
            self._release(len(frame))
            self._recycle(frame)
        # Kafka's tryCompleteActions: the followers' fetches these appends complete, answered
        # before this pass's own answers are written.
        self._actions.try_complete_actions()
        server.flush_connections()
        self.flush()
        if self._paused & _PAUSED_PENDING and len(pending) < MAX_PENDING_FRAMES // 2:
            self._set_paused(_PAUSED_PENDING, False)
        # Kafka's SocketServer mutes a channel from a request's read until its response is
        # sent: frames that must wait for the answers before them (or for a client that does
        # not read its answers) stop the reading, so they stay in the client's socket instead
        # of holding queued.max.request.bytes from everyone else. A pass cut short by its turn
        # limit goes on reading (the rest of its burst is handled on the next turn).
        muted = bool(pending) and not self._drain_scheduled and not self._closed
        if muted != bool(self._paused & _PAUSED_MUTED):
            self._set_paused(_PAUSED_MUTED, muted)

    def _fail(self, frame_size: int, reason: str | None) -> None:
        """A request that closes the connection (CloseConnection, a handler's bug): at once, or,
        behind outstanding answers, once they are written (nothing after it is started)."""
        if not self._answers:
            self.flush()
            self.close(reason)
            return
        self._answers.append(Answer(frame_size, None, None, close_reason=reason or ""))
        self._produces_only = False
        self.flush()

    # ------------------------------------------------------------------ answers in order

    def _answer_ready(self, task: asyncio.Future) -> None:
        """An outstanding handler finished (its task's done callback)."""
        if self._closed:
            discard_task(task)
            return
        self._write_answers()

    def _answered_inline(self, answer: InlineAnswer) -> None:
        """An InlineAnswer ended, maybe inside another connection's request or this one's
        pass: its answer (and the ready ones behind it) is queued now and written at the end
        of that pass, with the others it completed (one system call for the acknowledgements
        a high-watermark move releases); the requests that waited for it start on the next
        turn, never inside someone else's request."""
        if self._closed:
            discard_task(answer)
            return
        self._write_answers(inline=True)

    def _scheduled_drain(self) -> None:
        self._drain_scheduled = False
        if not self._closed:
            self._drain()

    def _write_answers(self, *, inline: bool = False) -> None:
        """Write the ready answers at the head of ``_answers``, in request order, then start
        what waited for them (``inline``: see ``_answered_inline``)."""
        answers = self._answers
        while answers and not self._sending and not self._closed:
            answer = answers[0]
            task = answer.task
            if task is not None and not task.done():
                break
            answers.popleft()
            out = answer.out
            if task is not None:
                if task.cancelled():  # not by this connection (it empties _answers first)
                    answer.close_reason = "a request's handler was cancelled"
                elif isinstance(exc := task.exception(), CloseConnection):
                    answer.close_reason = str(exc)
                elif exc is not None:
                    log.error(
                        "connection %d from %s: handler failed, closing", self.id, self.peer, exc_info=exc
                    )
                    answer.close_reason = ""
                else:
                    out = task.result()
            if answer.close_reason is not None:
                self.flush()
                self.close(answer.close_reason or None)
                return
            if out is not None:
                self._emit(out)
            # Kafka releases a request's buffer once it has been handled (RequestChannel).
            self._release(answer.frame_size)
        if inline:
            self.server.flush_soon(self)
            if self._pending and not self._drain_scheduled:
                self._drain_scheduled = True
                asyncio.get_running_loop().call_soon(self._scheduled_drain)
            return
        self.flush()
        self._drain()

    def _drop_answers(self) -> None:
        """The connection is gone: outstanding handlers are cancelled, ready answers dropped
        (their memory goes back with the connection's, ``_release_all``)."""
        answers, self._answers = self._answers, deque()
        self._produces_only = False
        for answer in answers:
            if answer.task is None:
                discard(answer.out)
            elif answer.task.done():
                discard_task(answer.task)
            else:
                coro = answer.task.get_coro()  # type: ignore[attr-defined]
                if inspect.iscoroutine(coro) and inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
                    # Cancelled before its first step, it would end unstarted (see broker.answers.discard).
                    if waits_only(coro):  # cancelled after that step (scheduled first)
                        answer.task.get_loop().call_soon(answer.task.cancel)
                        continue
                    close_arguments(coro)
                answer.task.cancel()

    # ------------------------------------------------------------------ output

    def _emit(self, out: bytearray | bytes | FileResponse) -> None:
        """Queue a response after the ones before it (written by ``flush``, or now for a
        FileResponse, which the ones before it precede)."""
        self.last_active = self.server.monotonic()
        if type(out) is not bytearray and isinstance(out, FileResponse):
            self._send_file_response(out)
        else:
            self._out.append(out)

    def flush(self) -> None:
        """Write the responses queued on this connection (one system call)."""
        out = self._out
        if not out or self._closed:
            out.clear()
            return
        self._out = []
        self.transport.write(out[0] if len(out) == 1 else b"".join(out))  # type: ignore[union-attr]

    def _send_file_response(self, response: FileResponse) -> None:
        """Records from the segment files to the socket (``os.sendfile``) when the response is
        large (SENDFILE_MIN_BYTES) and the transport a plain socket with nothing buffered; else
        the copy path (``os.preadv`` into the frame)."""
        self.flush()
        transport = self.transport
        if self._closed or transport is None:
            response.close()
            return
        if response.size >= SENDFILE_MIN_BYTES:
            sender = self._sender
            if sender is None and self.server.sendfile:
                fd = plain_socket_fd(transport)
                if fd is not None:
                    try:
                        sender = self._sender = FileResponseSender(asyncio.get_running_loop(), fd)
                    except OSError as exc:  # no descriptor left for its duplicate: copy this time
                        log.debug("connection %d from %s: no sendfile now: %s", self.id, self.peer, exc)
            if sender is not None and not transport.get_write_buffer_size():
                try:
                    if not sender.send(response, self._file_response_sent):
                        self._sending = True  # the rest follows when the socket takes it
                except OSError as exc:
                    self.close(f"cannot send a response: {exc}")
                return
        if response.size >= SENDFILE_MIN_BYTES:  # a large answer: a slice at a time
            copier = FileResponseCopier(response, transport, self._is_writing_paused)
            self._copier = copier
            if not self._copy_more():
                self._sending = True  # the rest follows when the transport takes it (resume_writing)
            return
        try:
            data = response.materialize()
        except OSError as exc:
            self.close(f"cannot read the records of a response: {exc}")
            return
        finally:
            response.close()
        transport.write(data)

    def _is_writing_paused(self) -> bool:
        return self._writing_paused

    def _copy_more(self) -> bool:
        """Go on with the answer being copied: True once it is all written (or given up
        because a file failed, which closes the connection)."""
        copier = self._copier
        assert copier is not None
        self._copying = True
        try:
            done = copier.pump()
        except OSError as exc:
            done = True
            self.close(f"cannot read the records of a response: {exc}")
        finally:
            self._copying = False
        if done:
            self._copier = None
            copier.close()
        return done

    def _file_response_sent(self, error: BaseException | None) -> None:
        self._sending = False
        if error is not None:
            self.close(f"cannot send a response: {error}")
            return
        self.last_active = self.server.monotonic()
        self._write_answers()

    def _close_sender(self) -> None:
        sender, self._sender = self._sender, None
        copier, self._copier = self._copier, None
        self._sending = False
        if sender is not None:
            sender.close()
        if copier is not None:
            copier.close()

    def _dispatch(self, frame: bytearray) -> Any:
        """Handle one frame: returns the response bytes, None, or an awaitable of them."""
        mv = memoryview(frame)
        self._answers_inline = False
        if self.auth.gated:  # not authenticated yet, or a session that expires (KIP-368)
            try:
                raw_answer = self.auth.screen(mv)
            except AuthenticationRefused as exc:
                self.close(str(exc))
                return None
            if raw_answer is not None:  # a pre-KIP-152 SASL token's answer
                return raw_answer
        if len(mv) < 8:
            self.close("unreadable request header: request shorter than a request header")
            return None
        api_key, api_version, correlation_id = _HEAD.unpack_from(mv)  # peek_request_header
        spec = self.server.handlers.get(api_key)
        if spec is None:
            self.close(f"unknown or unsupported API key {api_key}")
            return None
        if not spec.min_version <= api_version <= spec.max_version:  # spec.accepts
            if api_key == API_VERSIONS_KEY:
                return self._unsupported_api_versions(correlation_id, spec)
            self.close(f"{spec.name} v{api_version} is not supported ({spec.min_version}-{spec.max_version})")
            return None
        interceptor = self.server.interceptor
        # The hot request, header and body in one pass (the same objects as the generic decoders).
        produce = None
        if api_key == PRODUCE_KEY and interceptor is None:
            produce = decode_produce_request(mv, api_version)
        if produce is not None:
            client_id, request = produce
        else:
            try:
                header, pos = decode_request_header(mv)
                # Like Kafka's RequestContext.parseRequest, bytes after the body are ignored
                # (librdkafka 2.x sends a few after some Metadata v12 requests).
                request = spec.request_cls.decode(mv, api_version, pos, exact=False)
            except DecodeError as exc:
                self.close(f"{spec.name} v{api_version} does not decode: {exc}")
                return None
            client_id = header.client_id
        # A transactional Produce may be verified with its transaction coordinator before its
        # append (KIP-890): a Produce behind it must not be appended first.
        self._appends_later = api_key == PRODUCE_KEY and request.transactional_id is not None
        self._answers_inline = spec.answers_inline and interceptor is None
        ctx = RequestContext(
            self.broker,
            api_key,
            api_version,
            correlation_id,
            client_id,
            self.peer,
            self.id,
            self.listener,
            self.auth.principal,
            self.auth,
        )
        # Fetch answers may keep their records in the segment files (sent by _emit), except
        # to a test's interceptor, which may look at them.
        ctx.sends_file_records = interceptor is None
        if interceptor is not None:  # tests only (see RequestInterceptor)
            response = self._intercept(interceptor, spec, ctx, header, request)
        elif spec.is_async:
            return self._respond_later(spec, ctx, spec.fn(ctx, request))
        else:
            response = spec.fn(ctx, request)
        if response is None:
            return None
        if not isinstance(response, Message):
            # A synchronous handler may answer later (a fetch that must wait for data).
            return self._respond_later(spec, ctx, response)
        return self._encode(spec, ctx, response)

    def _intercept(
        self,
        interceptor: RequestInterceptor,
        spec: HandlerSpec,
        ctx: RequestContext,
        header: RequestHeader,
        request: Message,
    ) -> Any:
        """A test's interceptor in place of the handler (``_dispatch``'s rare branch, kept out of
        it so that its closure makes no cells of ``spec`` and ``ctx`` on every request)."""
        handled: list[bool] = []

        def handle(req: Message) -> Any:
            handled.append(True)
            return spec.fn(ctx, req)

        response = interceptor.intercept(self, ctx.api_key, ctx.api_version, header, request, handle)
        # Held before its handler (a Delay): its append is not done yet.
        if not handled and response is not None and not isinstance(response, Message):
            self._appends_later = True
        return response

    async def _respond_later(
        self, spec: HandlerSpec, ctx: RequestContext, coro: Awaitable[Any]
    ) -> bytearray | FileResponse | None:
        response = await coro
        if response is None:
            return None
        if self._closed:  # nobody to answer: give back what it holds (FileRecords)
            close_unsent(response)
            return None
        return self._encode(spec, ctx, response)

    def _encode(self, spec: HandlerSpec, ctx: RequestContext, response: Any) -> bytearray | FileResponse:
        version = ctx.api_version
        flexible = spec.request_cls.FLEXIBLE_VERSIONS  # Message.is_flexible, inline
        flexible_header = (
            spec.api_key != API_VERSIONS_KEY
            and flexible is not None
            and flexible[0] <= version <= flexible[1]
        )
        try:
            return encode_response(response, version, ctx.correlation_id, 9 if flexible_header else 8)
        except EncodeError:
            log.error("cannot encode %s v%d: %r", spec.response_cls.NAME, version, response)
            close_unsent(response)
            raise

    def _unsupported_api_versions(self, correlation_id: int, spec: HandlerSpec) -> bytearray:
        # KIP-511: a v0-encoded ApiVersionsResponse (v0 header) with UNSUPPORTED_VERSION and
        # only the ApiVersions range, so the client can retry with a version we speak.
        resp = ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION.code,
            api_keys=[
                ApiVersionsResponse.ApiVersion(
                    api_key=API_VERSIONS_KEY, min_version=spec.min_version, max_version=spec.max_version
                )
            ],
        )
        w = bytearray(8)
        resp.write(w, 0)
        _SIZE_CORR.pack_into(w, 0, len(w) - 4, correlation_id)
        return w

    def close(self, reason: str | None, *, level: int = logging.WARNING, abort: bool = False) -> None:
        """Close the connection: what is queued is written first (an error answer before a
        close), unless ``abort`` (an idle client that reads nothing: Kafka closes the socket at
        once, or the connection would wait for good to write to it)."""
        if reason:
            log.log(level, "closing connection %d from %s: %s", self.id, self.peer, reason)
        self._closed = True
        self._drop_answers()
        self._close_sender()
        self._release_all()
        if self.transport is not None:
            if abort:
                self.transport.abort()
            else:
                self.transport.close()
