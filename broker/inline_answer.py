"""A parked request's answer, stepped where its operation completes instead of by a Task.

Kafka completes a parked request inside whatever completed its delayed operation: the
follower's fetch that moves the high watermark sends the acks=-1 produce's response from
that request thread (``DelayedProduce.onComplete`` -> ``responseCallback``), the append a
follower's fetch waited for sends the fetch's. On asyncio a Task resumes its coroutine one
turn of the event loop after the future it awaits completes, and its done callback runs a
turn later: two turns, each also handling whatever else the loop has read meanwhile, on the
round trip of every replicated produce (produce -> followers' fetches -> acknowledgement).

``InlineAnswer`` steps the handler's coroutine itself. While the coroutine awaits a delayed
operation's ``OperationFuture``, its next step runs inside the operation's completion
(``force_complete``'s inline callbacks), and when it returns ``on_done`` is called there and
then: the server writes the answer in the same turn. At the first other awaitable the
coroutine is handed to a Task once that completes, and the rest runs as any handler's does
(with ``asyncio.current_task``). Its first step runs in the caller: only handlers whose first
step needs no Task are driven so (``HandlerSpec.answers_inline``: Produce and Fetch, whose
first step only awaits the purgatory). An inline step runs in whatever completed the
operation, maybe another Task: it must not use ``asyncio.current_task`` (a timeout) either.

It is an ``asyncio.Future`` (result, exception, cancel) for the connection's answer queue;
``cancel`` throws CancelledError into the coroutine where it waits for the purgatory, and
cancels any other future it awaits (the coroutine then sees it end), as ``Task.cancel`` does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from broker.purgatory import OperationFuture


class InlineAnswer(asyncio.Future):
    """Drives ``coro`` without a Task while it awaits purgatory operations; ``on_done(self)``
    is called as soon as it ends (result, exception or cancelled)."""

    def __init__(self, coro: Coroutine[Any, Any, Any], on_done: Callable[[InlineAnswer], None]) -> None:
        super().__init__(loop=asyncio.get_running_loop())
        self._coro = coro
        self._on_done = on_done
        self._awaiting: asyncio.Future | None = None  # what the coroutine waits for
        self._task: asyncio.Task | None = None  # once handed over
        self._stepping = False

    def get_coro(self) -> Coroutine[Any, Any, Any]:
        return self._coro

    def start(self) -> None:
        """The coroutine's first step, now."""
        self._step(None)

    def _resume(self) -> None:
        self._step(None)

    def _step(self, exc: BaseException | None) -> None:
        if self.done():
            return
        self._awaiting = None
        self._stepping = True
        try:
            yielded = self._coro.send(None) if exc is None else self._coro.throw(exc)
        except StopIteration as stop:
            super().set_result(stop.value)
        except asyncio.CancelledError:
            super().cancel()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # the handler's failure is the answer's, as a Task's
            super().set_exception(error)
        else:
            self._wait_for(yielded)
            return
        finally:
            self._stepping = False
        self._on_done(self)

    def _wait_for(self, yielded: Any) -> None:
        if yielded is None:  # a bare yield (asyncio.sleep(0)): the next turn
            self.get_loop().call_soon(self._resume)
            return
        if not asyncio.isfuture(yielded):  # what a Task refuses too
            self._step(RuntimeError(f"an answer's coroutine yielded {yielded!r}, not a future"))
            return
        # What ``await future`` yields (Task.__step's protocol): the future, marked blocking.
        yielded._asyncio_future_blocking = False
        self._awaiting = yielded
        if type(yielded) is OperationFuture:
            yielded.add_inline_callback(self._resume)
        else:
            yielded.add_done_callback(self._hand_over)

    def _hand_over(self, _awaited: asyncio.Future) -> None:
        """Not a purgatory operation: the rest runs as a Task (its step resumes the await)."""
        if self.done():
            return
        self._awaiting = None
        self._task = self.get_loop().create_task(self._coro)
        self._task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task) -> None:
        if self.done():
            return
        if task.cancelled():
            super().cancel()
        elif (error := task.exception()) is not None:
            super().set_exception(error)
        else:
            super().set_result(task.result())
        self._on_done(self)

    def cancel(self, msg: Any | None = None) -> bool:
        if self.done():
            return False
        if self._task is not None:
            return self._task.cancel(msg)
        if self._stepping:  # cancelled from inside its own step: once the step has returned
            self.get_loop().call_soon(self.cancel, msg)
            return True
        awaiting, self._awaiting = self._awaiting, None
        if type(awaiting) is OperationFuture:
            awaiting.remove_inline_callback(self._resume)
        elif awaiting is not None:
            # As Task.cancel: the future awaited is cancelled (a transactional produce's
            # verification requests stop with the connection); the coroutine sees it when that
            # future ends, in the Task _hand_over makes (its await raises CancelledError).
            if awaiting.cancel(msg=msg):
                self._awaiting = awaiting
                return True
            awaiting.remove_done_callback(self._hand_over)
        self._step(asyncio.CancelledError() if msg is None else asyncio.CancelledError(msg))
        return True
