"""OffsetDelete through the group coordinator (Kafka's ``GroupCoordinator.handleDeleteOffsets``)."""

from __future__ import annotations

from coordinator.groups import OffsetCommitEntry
from protocol.messages import ConsumerProtocolSubscription
from tests.coordinator.test_groups import E, S, clock, gc, join, stable_group, sync

__all__ = ["clock", "gc"]  # fixtures used below


def subscription(*topics: str) -> bytes:
    """The consumer protocol's metadata: version 0, then the subscription."""
    return b"\x00\x00" + bytes(ConsumerProtocolSubscription(topics=list(topics)).encode(0))


def test_an_empty_group_loses_the_offsets_asked_for_and_goes_when_none_are_left(gc):
    gc.commit_offsets("simple", "", None, -1, [OffsetCommitEntry("t", 0, 1), OffsetCommitEntry("t", 1, 2)])
    assert gc.delete_offsets("simple", [("t", 0)]) == (E.NONE, {("t", 0): E.NONE})
    assert gc.fetch_offsets("simple", [("t", 0), ("t", 1)])[0] == ("t", 0, None)
    assert gc.fetch_offsets("simple", [("t", 1)])[0][2].committed_offset == 2
    assert gc.delete_offsets("simple", [("t", 1), ("other", 0)]) == (
        E.NONE,
        {("t", 1): E.NONE, ("other", 0): E.NONE},  # nothing committed there: still NONE, as Kafka
    )
    assert "simple" not in gc.groups  # Empty without offsets: removed
    assert gc.delete_offsets("simple", [("t", 0)]) == (E.GROUP_ID_NOT_FOUND, {})


def test_group_errors(gc, clock):
    assert gc.delete_offsets("", [("t", 0)]) == (E.INVALID_GROUP_ID, {})
    assert gc.delete_offsets("missing", [("t", 0)]) == (E.GROUP_ID_NOT_FOUND, {})
    # A group of another protocol type with members: NON_EMPTY_GROUP.
    stable_group(gc, clock, group="connect", protocol_type="connect")
    assert gc.delete_offsets("connect", [("t", 0)]) == (E.NON_EMPTY_GROUP, {})


def test_a_stable_consumer_group_keeps_the_offsets_of_topics_it_subscribes_to(gc, clock):
    first = join(gc, "g", protocols=[("range", subscription("in-use"))])
    clock.advance(0)
    member = first.last.member_id
    assert sync(gc, member, 1, {member: b""}).last.error is E.NONE
    assert gc.groups["g"].state is S.STABLE
    gc.commit_offsets(
        "g", member, None, 1, [OffsetCommitEntry("in-use", 0, 4), OffsetCommitEntry("old", 0, 7)]
    )
    assert gc.delete_offsets("g", [("in-use", 0), ("old", 0)]) == (
        E.NONE,
        {("in-use", 0): E.GROUP_SUBSCRIBED_TO_TOPIC, ("old", 0): E.NONE},
    )
    assert [om is not None for _, _, om in gc.fetch_offsets("g", [("in-use", 0), ("old", 0)])] == [
        True,
        False,
    ]
    assert gc.groups["g"].state is S.STABLE
