"""A connection's answers in request order, and the ones a closed connection never writes.

``Answer`` is an entry of ``KafkaConnection._answers`` (broker/server.py): a request handled
whose answer waits for its turn, as Kafka's ``RequestChannel`` responses do (``SendResponse``
or ``NoOpResponse``: ``out``, or the handler's ``task``; ``CloseConnectionResponse``:
``close_reason``). ``discard``
and ``discard_task`` drop what a handler produced for a connection that closed, giving back
what it holds (a FileResponse's descriptors, a parked fetch or produce's purgatory entry), and
close the coroutines that will never run, so Python reports none as never awaited.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Coroutine
from typing import Any

from broker.handlers import HandlerSpec
from broker.response_writer import FileResponse


class Answer:
    """A handled request awaiting its turn to be answered: its handler's ``task`` (None when it
    answered at once, ``out``), or a ``close_reason`` (the connection closes at its turn)."""

    __slots__ = ("close_reason", "frame_size", "out", "task")

    def __init__(
        self,
        frame_size: int,
        task: asyncio.Future | None,
        out: bytearray | bytes | FileResponse | None = None,
        *,
        close_reason: str | None = None,
    ) -> None:
        self.frame_size = frame_size
        self.task = task
        self.out = out
        self.close_reason = close_reason


def discard(result: Any) -> None:
    """Drop a handler's result that will never be written (its connection closed)."""
    if inspect.iscoroutine(result):
        if waits_only(result):
            _abandon(result)
        else:
            _close_unstarted(result)
    elif isinstance(result, FileResponse):
        result.close()
    elif isinstance(result, asyncio.Future):
        result.cancel()


def waits_only(coro: Coroutine[Any, Any, Any]) -> bool:
    """Whether an unstarted answer (``KafkaConnection._respond_later``) only waits for what a
    synchronous handler already did: a parked fetch or produce, whose wait holds a purgatory
    entry until it ends. An async handler's own coroutine is another matter: started for a closed
    connection, it would run part of the request (as Kafka runs a request read before the
    close, but then to its end, not to its first wait), so it is closed unstarted."""
    spec = inspect.getcoroutinelocals(coro).get("spec")
    return isinstance(spec, HandlerSpec) and not spec.is_async


def _abandon(coro: Coroutine[Any, Any, Any]) -> None:
    """An answer that only waits (``waits_only``) and will not be written: run to its wait,
    then cancelled, as an outstanding one is, so its finally blocks release what it holds
    (the parked fetch or produce leaves its purgatory now, not at its timeout)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop: nothing can run it
        _close_unstarted(coro)
        return
    task = loop.create_task(coro)
    task.add_done_callback(discard_task)
    loop.call_soon(task.cancel)  # after its first step, scheduled before this


def _close_unstarted(coro: Coroutine[Any, Any, Any]) -> None:
    """Close a coroutine that will never run, and first the coroutines it was given to await."""
    close_arguments(coro)
    coro.close()


def close_arguments(coro: Coroutine[Any, Any, Any]) -> None:
    """If ``coro`` has not started, close the coroutines it was given to await (an answer is
    a chain of them: ``KafkaConnection._respond_later`` of a handler, or of
    ``_respond_when_ready`` of the replica manager's read). One that ends before its start
    never awaits its arguments, and Python would report each of those on stderr as never
    awaited."""
    if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
        for value in inspect.getcoroutinelocals(coro).values():
            if inspect.iscoroutine(value):
                _close_unstarted(value)


def discard_task(task: asyncio.Future) -> None:
    """A finished handler task whose answer will not be written: its error is taken (not
    reported as never retrieved), its FileResponse closed."""
    if task.cancelled():
        return
    if task.exception() is None:
        discard(task.result())
