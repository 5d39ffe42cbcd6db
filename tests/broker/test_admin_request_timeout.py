"""One ``timeout_ms`` for every topic of an admin request, as Kafka's one DelayedDeleteTopics /
DelayedCreatePartitions / DelayedCreatePartitions-for-CreateTopics waits for all of them: a
request naming several topics that do not complete waits ``timeout_ms``, not once per topic."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

from broker.config import BrokerConfig
from broker.handlers import RequestContext
from broker.handlers.create_partitions import handle_create_partitions
from broker.handlers.create_topics import handle_create_topics
from broker.handlers.delete_topics import handle_delete_topics
from coordinator.acl_authorizer import AllowAll
from coordinator.topic_admin import RequestTimeout, TopicCreation
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


class SlowAdmin:
    """Each topic's change takes 4 s of the clock (its wait for the metadata) and then times out."""

    is_controller = True

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.timeouts: list[int] = []

    def _spend(self, timeout_ms: int) -> None:
        self.timeouts.append(timeout_ms)
        self.clock.now += 4.0
        raise KafkaError(ErrorCode.REQUEST_TIMED_OUT)

    async def delete_topic(self, name: str, *, timeout_ms: int) -> uuid.UUID:
        self._spend(timeout_ms)
        raise AssertionError

    def partition_count(self, name: str) -> int | None:
        return 1

    async def create_partitions(
        self, name, new_total, assignments, *, validate_only, timeout_ms, check_adding=None
    ) -> None:
        self._spend(timeout_ms)


def context(admin: SlowAdmin, clock: Clock, version: int) -> RequestContext:
    broker = SimpleNamespace(
        authorizer=AllowAll(),
        topic_admin=admin,
        clock=clock,
        config={"delete.topic.enable": True, "max.partitions.per.request": 10_000},
    )
    return RequestContext(broker, 20, version, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]


def test_the_remaining_time_is_what_is_left_of_one_timeout() -> None:
    clock = Clock()
    timeout = RequestTimeout(10_000, clock.monotonic)
    assert timeout.remaining_ms() == 10_000
    clock.now += 3.5
    assert timeout.remaining_ms() == 6_500
    clock.now += 7
    assert timeout.remaining_ms() == 1  # spent: the next topic is still checked once
    assert RequestTimeout(0, clock.monotonic).remaining_ms() == 0  # answered at once
    assert RequestTimeout(-5, clock.monotonic).remaining_ms() == -5


def test_delete_topics_shares_its_timeout_between_its_topics() -> None:
    clock = Clock()
    admin = SlowAdmin(clock)
    request = DeleteTopicsRequest(topic_names=["a", "b", "c", "d"], timeout_ms=10_000)
    response = asyncio.run(handle_delete_topics(context(admin, clock, 5), request))
    assert admin.timeouts == [10_000, 6_000, 2_000, 1]
    assert [r.error_code for r in response.responses] == [ErrorCode.REQUEST_TIMED_OUT.code] * 4


def test_create_partitions_shares_its_timeout_between_its_topics() -> None:
    clock = Clock()
    admin = SlowAdmin(clock)
    request = CreatePartitionsRequest(
        topics=[CreatePartitionsRequest.CreatePartitionsTopic(name=n, count=3) for n in "abc"],
        timeout_ms=9_000,
        validate_only=False,
    )
    response = asyncio.run(handle_create_partitions(context(admin, clock, 3), request))
    assert admin.timeouts == [9_000, 5_000, 1_000]
    assert [r.error_code for r in response.results] == [ErrorCode.REQUEST_TIMED_OUT.code] * 3


def test_create_topics_waits_for_its_topics_together() -> None:
    """Each creation's wait starts when the handler awaits it: awaited one after another, a
    second topic's wait would only start when the first one's ended. Here the first topic's
    creation completes only once the second one's wait has begun."""

    async def scenario() -> list[int]:
        second_waiting = asyncio.Event()

        async def first() -> uuid.UUID:
            await second_waiting.wait()
            return uuid.uuid4()

        async def second() -> uuid.UUID:
            second_waiting.set()
            return uuid.uuid4()

        waits = iter([first(), second()])

        class Admin:
            is_controller = True

            async def create_topic(self, name, partitions, replication, configs, **kwargs) -> TopicCreation:
                return TopicCreation(1, 1, {}, next(waits))

        broker = SimpleNamespace(
            authorizer=AllowAll(),
            topic_admin=Admin(),
            metadata_cache=SimpleNamespace(get_topic=lambda name: None),
            config=BrokerConfig({}),
        )
        ctx = RequestContext(broker, 19, 5, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]
        request = CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(name=n, num_partitions=1, replication_factor=1)
                for n in "ab"
            ],
            timeout_ms=1_000,
        )
        response = await asyncio.wait_for(handle_create_topics(ctx, request), 60)  # a guard, not a measure
        return [t.error_code for t in response.topics]

    assert asyncio.run(scenario()) == [0, 0]
