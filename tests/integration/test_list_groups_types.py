"""ListGroups v5 (KIP-848's group types) with confluent-kafka's AdminClient.

librdkafka 2.16 asks ListGroups v5 when the broker offers it; every group here is a classic
group, which librdkafka reports as ``ConsumerGroupType.CLASSIC`` (it reports UNKNOWN when the
broker only speaks v4, which has no type). A types filter selects classic groups or none.
"""

from __future__ import annotations

import time

import pytest

from tests.integration.test_consumer_groups_support import create_topic, start_group_broker

pytestmark = pytest.mark.integration

TIMEOUT_S = 20


@pytest.fixture(scope="module")
def types_broker(tmp_path_factory):
    b = start_group_broker(tmp_path_factory.mktemp("list-groups-types") / "data")
    yield b
    if b.alive():
        b.stop()


def _join(bootstrap: str, topic: str, group: str):
    """A confluent-kafka consumer of ``group`` with its assignment (a Stable classic group)."""
    from confluent_kafka import Consumer

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    deadline = time.monotonic() + 60
    while not c.assignment():
        assert time.monotonic() < deadline, "no assignment"
        c.poll(0.2)
    return c


def test_confluent_lists_classic_groups_with_their_type_and_filters_by_type(types_broker) -> None:
    from confluent_kafka import ConsumerGroupState, ConsumerGroupType
    from confluent_kafka.admin import AdminClient

    create_topic(types_broker, "types-t", 1)
    consumer = _join(types_broker.bootstrap, "types-t", "types-g")
    try:
        admin = AdminClient({"bootstrap.servers": types_broker.bootstrap})

        def listed(**kw) -> dict[str, tuple]:
            result = admin.list_consumer_groups(request_timeout=TIMEOUT_S, **kw).result(TIMEOUT_S)
            assert result.errors == []
            return {g.group_id: (g.type, g.state, g.is_simple_consumer_group) for g in result.valid}

        everything = listed()
        assert everything["types-g"] == (ConsumerGroupType.CLASSIC, ConsumerGroupState.STABLE, False)
        assert listed(types={ConsumerGroupType.CLASSIC})["types-g"][0] is ConsumerGroupType.CLASSIC
        assert "types-g" not in listed(types={ConsumerGroupType.CONSUMER})
        assert listed(types={ConsumerGroupType.CONSUMER}) == {}
        both = listed(types={ConsumerGroupType.CLASSIC}, states={ConsumerGroupState.STABLE})
        assert "types-g" in both
        assert "types-g" not in listed(types={ConsumerGroupType.CLASSIC}, states={ConsumerGroupState.EMPTY})
    finally:
        consumer.close()
