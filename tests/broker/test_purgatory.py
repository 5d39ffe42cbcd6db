"""The generic delayed-operation purgatory (Kafka's DelayedOperationPurgatory)."""

from __future__ import annotations

import asyncio

from broker.purgatory import ActionQueue, DelayedOperation, DelayedOperationPurgatory


class Waiting(DelayedOperation):
    """Completes once ``ready`` is set; counts its checks and completions."""

    def __init__(self, delay_ms: int, ready: bool = False, ready_on_check: int | None = None) -> None:
        super().__init__(delay_ms)
        self.ready = ready
        self.ready_on_check = ready_on_check
        self.checks = 0
        self.completions = 0
        self.expirations = 0

    def try_complete(self) -> bool:
        self.checks += 1
        if self.ready or self.checks == self.ready_on_check:
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self.completions += 1

    def on_expiration(self) -> None:
        self.expirations += 1


def run(coro):
    return asyncio.run(coro)


def test_an_operation_that_can_complete_is_not_watched():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        op = Waiting(60_000, ready=True)
        assert purgatory.try_complete_else_watch(op, [("t", 0)]) is True
        assert len(purgatory) == 0 and purgatory.watched(("t", 0)) == 0
        assert op.future.result() is True and op.completions == 1

    run(scenario())


def test_a_change_between_the_first_try_and_the_watch_is_not_missed():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        op = Waiting(60_000, ready_on_check=2)  # ready by the time it is watched
        assert purgatory.try_complete_else_watch(op, [("t", 0)]) is True
        assert len(purgatory) == 0 and op.completions == 1

    run(scenario())


def test_a_watched_key_completes_only_its_ready_operations():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        a, b, c = Waiting(60_000), Waiting(60_000), Waiting(60_000)
        assert not purgatory.try_complete_else_watch(a, [("t", 0), ("t", 1)])
        assert not purgatory.try_complete_else_watch(b, [("t", 1)])
        assert not purgatory.try_complete_else_watch(c, [("u", 0)])
        assert len(purgatory) == 3 and purgatory.watched(("t", 1)) == 2
        a.ready = True
        assert purgatory.check_and_complete(("u", 0)) == 0  # c is not ready; a is not watched there
        assert not a.is_completed
        assert purgatory.check_and_complete(("t", 1)) == 1
        assert a.future.result() is True and a.completions == 1 and not b.is_completed
        # a is gone from every key it watched
        assert purgatory.watched(("t", 0)) == 0 and len(purgatory) == 2
        assert purgatory.check_and_complete(("t", 0)) == 0 and a.completions == 1

    run(scenario())


def test_the_timeout_completes_an_operation_as_expired():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        op = Waiting(10)
        assert not purgatory.try_complete_else_watch(op, [("t", 0)])
        assert await asyncio.wait_for(op.future, 30) is False
        assert op.expired and op.expirations == 1 and op.completions == 1
        assert len(purgatory) == 0 and purgatory.watched(("t", 0)) == 0

    run(scenario())


def test_complete_all_and_cancel():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        gone, kept, cancelled = Waiting(60_000), Waiting(60_000), Waiting(60_000)
        purgatory.try_complete_else_watch(gone, [("t", 0)])
        purgatory.try_complete_else_watch(kept, [("t", 1)])
        purgatory.try_complete_else_watch(cancelled, [("t", 1)])
        purgatory.complete_all(("t", 0))
        assert gone.future.result() is True and not kept.is_completed
        purgatory.cancel(cancelled)
        assert len(purgatory) == 1 and purgatory.watched(("t", 1)) == 1
        cancelled.ready = kept.ready = True
        assert purgatory.check_and_complete(("t", 1)) == 1
        assert not cancelled.is_completed and cancelled.completions == 0

    run(scenario())


def test_watch_without_a_try_completes_on_a_check_or_at_the_deadline():
    """``watch`` is for a caller that has just checked: it does not try (an operation already
    able to complete waits for the next check of its key), then behaves as any watched one."""

    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        checked, timed = Waiting(60_000, ready=True), Waiting(10)
        purgatory.watch(checked, [("t", 0), ("t", 1)])
        purgatory.watch(timed, [("t", 1)])
        assert checked.checks == 0 and not checked.is_completed and len(purgatory) == 2
        assert purgatory.check_and_complete(("t", 1)) == 1
        assert checked.future.result() is True and purgatory.watched(("t", 0)) == 0
        assert await asyncio.wait_for(timed.future, 30) is False
        assert timed.expired and len(purgatory) == 0 and purgatory.watched(("t", 1)) == 0

    run(scenario())


def test_inline_callbacks_run_inside_the_completion_not_for_a_cancelled_operation():
    """Kafka's onComplete answers from whatever completed the operation: an inline callback
    has run when ``check_and_complete`` returns (asyncio's done callbacks wait for a later
    turn); one of a cancelled operation never runs."""

    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        op, dropped = Waiting(60_000), Waiting(60_000)
        seen: list[str] = []
        op.future.add_inline_callback(lambda: seen.append(f"inline, completions {op.completions}"))
        op.future.add_done_callback(lambda _f: seen.append("done callback"))
        dropped.future.add_inline_callback(lambda: seen.append("dropped"))
        purgatory.watch(op, ["k"])
        purgatory.watch(dropped, ["k"])
        purgatory.cancel(dropped)
        op.ready = True
        assert purgatory.check_and_complete("k") == 1
        assert seen == ["inline, completions 1"]  # after on_complete, before any turn
        await asyncio.sleep(0)
        assert seen == ["inline, completions 1", "done callback"]
        dropped.ready = True
        assert not dropped.is_completed

    run(scenario())


def test_the_action_queue_checks_a_key_once_after_the_requests_or_on_the_next_turn():
    """Kafka's ActionQueue: a check asked for (twice) is not made at once; the server's
    ``try_complete_actions`` makes it once; unasked, the next turn of the loop makes it."""

    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        actions = ActionQueue()
        op = Waiting(60_000)
        purgatory.watch(op, ["k"])
        actions.add(purgatory, "k")
        actions.add(purgatory, "k")
        assert op.checks == 0 and len(actions) == 1
        actions.try_complete_actions()
        assert op.checks == 1 and len(actions) == 0
        op.ready = True
        actions.add(purgatory, "k")
        assert not op.is_completed
        await asyncio.sleep(0)  # nobody ran them: the turn scheduled with the first add does
        assert op.is_completed and op.checks == 2

    run(scenario())


def test_a_failing_inline_callback_is_logged_and_the_others_still_run(caplog):
    async def scenario():
        purgatory: DelayedOperationPurgatory[Waiting] = DelayedOperationPurgatory("test")
        op = Waiting(60_000)
        seen: list[str] = []

        def failing() -> None:
            raise RuntimeError("an answer's bug")

        op.future.add_inline_callback(failing)
        op.future.add_inline_callback(lambda: seen.append("second"))
        purgatory.watch(op, ["k"])
        op.ready = True
        assert purgatory.check_and_complete("k") == 1  # the completer goes on
        assert seen == ["second"]

    with caplog.at_level("ERROR", logger="broker.purgatory"):
        run(scenario())
    assert "inline completion callback failed" in caplog.text and "an answer's bug" in caplog.text


def test_a_failing_action_is_logged_and_the_others_still_run(caplog):
    """Kafka's ActionQueue.tryCompleteActions logs an action that fails and goes on: the
    server runs the queue at the end of a connection's pass, where an escaping error would
    drop that connection (another request's) and leave the later checks unmade."""

    class Broken(DelayedOperation):
        def try_complete(self) -> bool:
            raise RuntimeError("a check's bug")

    async def scenario():
        purgatory: DelayedOperationPurgatory[DelayedOperation] = DelayedOperationPurgatory("test")
        actions = ActionQueue()
        broken, op = Broken(60_000), Waiting(60_000, ready=True)
        purgatory.watch(broken, ["bad"])
        purgatory.watch(op, ["good"])
        actions.add(purgatory, "bad")
        actions.add(purgatory, "good")
        actions.try_complete_actions()  # does not raise
        assert op.is_completed and len(actions) == 0
        purgatory.cancel(broken)

    with caplog.at_level("ERROR", logger="broker.purgatory"):
        run(scenario())
    assert "a check's bug" in caplog.text
