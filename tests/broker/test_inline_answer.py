"""InlineAnswer (broker/inline_answer.py): a handler's coroutine stepped where its purgatory
operation completes, handed to a Task at any other wait, cancelled as a Task is."""

from __future__ import annotations

import asyncio

import pytest

from broker.inline_answer import InlineAnswer
from broker.purgatory import DelayedOperation, DelayedOperationPurgatory


class Gate(DelayedOperation):
    """Completes when ``open`` is set and its key is checked."""

    def __init__(self) -> None:
        super().__init__(60_000)
        self.open = False

    def try_complete(self) -> bool:
        return self.open and self.force_complete()


def _watched(purgatory: DelayedOperationPurgatory) -> Gate:
    gate = Gate()
    purgatory.watch(gate, ["k"])
    return gate


def _open(purgatory: DelayedOperationPurgatory, gate: Gate) -> None:
    gate.open = True
    purgatory.check_and_complete("k")


def test_the_coroutine_ends_inside_the_completion_and_on_done_is_called_there():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Gate] = DelayedOperationPurgatory("test")
        gate = _watched(purgatory)
        steps: list[str] = []

        async def answer():
            steps.append("first step")
            await gate.future
            steps.append("resumed")
            return "the answer"

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        inline.start()
        assert steps == ["first step"] and not inline.done()
        _open(purgatory, gate)
        # No turn of the loop in between: a Task would still be waiting to resume.
        assert steps == ["first step", "resumed"]
        assert ended == [inline] and inline.result() == "the answer"

    asyncio.run(scenario())


def test_an_other_wait_hands_the_rest_to_a_task():
    async def scenario():
        loop = asyncio.get_running_loop()
        purgatory: DelayedOperationPurgatory[Gate] = DelayedOperationPurgatory("test")
        gate = _watched(purgatory)
        other = loop.create_future()
        tasks: list[asyncio.Task | None] = []

        async def answer():
            await gate.future
            tasks.append(asyncio.current_task())  # stepped inline: the completer's
            value = await other
            tasks.append(asyncio.current_task())
            async with asyncio.timeout(5):  # needs a Task
                await asyncio.sleep(0)
            return value + 1

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        inline.start()
        _open(purgatory, gate)
        this = asyncio.current_task()
        assert tasks == [this] and not inline.done()
        other.set_result(41)
        while not ended:
            await asyncio.sleep(0)
        assert tasks[1] not in (None, this) and inline.result() == 42

    asyncio.run(scenario())


def test_a_failure_is_the_answers_exception():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Gate] = DelayedOperationPurgatory("test")
        gate = _watched(purgatory)

        async def answer():
            await gate.future
            raise ValueError("broken handler")

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        inline.start()
        _open(purgatory, gate)
        assert ended == [inline]
        with pytest.raises(ValueError, match="broken handler"):
            inline.result()

    asyncio.run(scenario())


def test_cancel_throws_where_it_waits_and_a_later_completion_steps_nothing():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Gate] = DelayedOperationPurgatory("test")
        gate = _watched(purgatory)
        steps: list[str] = []

        async def answer():
            try:
                await gate.future
                steps.append("resumed")
            finally:
                steps.append("finally")
                purgatory.cancel(gate)

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        inline.start()
        assert inline.cancel()
        assert inline.cancelled() and ended == [inline] and steps == ["finally"]
        assert len(purgatory) == 0
        gate.force_complete()  # its inline callback was taken back
        assert steps == ["finally"] and not inline.cancel()

    asyncio.run(scenario())


def test_a_cancel_from_inside_its_own_step_waits_for_the_step_to_return():
    async def scenario():
        purgatory: DelayedOperationPurgatory[Gate] = DelayedOperationPurgatory("test")
        gate, second = _watched(purgatory), Gate()
        holder: list[InlineAnswer] = []

        async def answer():
            await gate.future
            assert holder[0].cancel()  # e.g. its connection closed by what it called
            await second.future
            return "not reached"

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        holder.append(inline)
        inline.start()
        _open(purgatory, gate)
        assert not inline.done()  # the step went on to its next wait
        await asyncio.sleep(0)
        assert inline.cancelled() and ended == [inline]

    asyncio.run(scenario())


def test_a_bad_yield_fails_the_answer_as_a_task_would():
    class Odd:
        def __await__(self):
            yield "not a future"

    async def scenario():
        async def answer():
            await Odd()

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        inline.start()
        assert ended == [inline]
        with pytest.raises(RuntimeError, match="not a future"):
            inline.result()

    asyncio.run(scenario())


def test_cancel_while_waiting_for_another_future_cancels_that_future_as_a_task_would():
    """Task.cancel cancels the future its coroutine awaits (a transactional produce's
    verification, a gather of inter-broker requests): the work it stands for stops with the
    connection instead of running on for nobody."""

    async def scenario():
        loop = asyncio.get_running_loop()
        started = loop.create_future()

        async def verification():
            started.set_result(None)
            await asyncio.sleep(60)

        child = loop.create_task(verification())
        await started
        seen: list[str] = []

        async def answer():
            try:
                await asyncio.gather(child)
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        ended: list[InlineAnswer] = []
        inline = InlineAnswer(answer(), ended.append)
        inline.start()
        assert inline.cancel()
        await asyncio.wait([inline])  # it ends once the future it awaited has
        assert child.cancelled()
        assert inline.cancelled() and ended == [inline] and seen == ["cancelled"]

    asyncio.run(scenario())
