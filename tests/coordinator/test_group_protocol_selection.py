"""Protocol selection of a classic group (Kafka's ``GroupMetadata.selectProtocol``): the
protocol with the most votes among those every member supports, ties decided as Kafka's
Scala decides them (the first of the tied names in a Scala 2.13 immutable HashMap's order).
"""

from __future__ import annotations

from coordinator.group_metadata import GroupState, scala_hash_map_order
from coordinator.groups import LeaveMember
from protocol.errors import ErrorCode
from tests.coordinator.test_groups import clock, gc, join, sync

__all__ = ["clock", "gc"]  # fixtures used below

E = ErrorCode
S = GroupState

RANGE_FIRST = [("range", b"r"), ("roundrobin", b"rr")]
ROUNDROBIN_FIRST = [("roundrobin", b"rr"), ("range", b"r")]


def _rebalance(gc, clock, members: dict[str, list]) -> dict[str, str]:
    """Every member (name -> protocols, "" member id for a newcomer) joins; returns name -> member id."""
    answers = {name: join(gc, member_id=mid, protocols=protos) for name, (mid, protos) in members.items()}
    clock.advance(0)
    result = {}
    for name, a in answers.items():
        assert a.last.error is E.NONE, (name, a.last)
        result[name] = a.last.member_id
    group = gc.groups["g"]
    leader = group.leader_id
    for mid in sorted(result.values(), key=lambda m: m != leader):
        sync(gc, mid, group.generation_id, {m: b"" for m in result.values()} if mid == leader else None)
    assert group.state is S.STABLE
    return result


def test_tied_protocol_vote_does_not_depend_on_member_order(gc, clock):
    """Kafka's GroupMetadata.selectProtocol counts the votes with ``groupBy(identity)`` (an
    immutable HashMap keyed by protocol name) and takes ``maxBy`` of it: on a tie the winner
    is decided by the protocol names (hash order), whatever the order the members joined
    in, so a group whose members keep the same preferences keeps the same protocol from
    generation to generation (ties broken by member order made the group switch assignor when the
    member that joined first restarted)."""
    ids = _rebalance(gc, clock, {"a": ("", RANGE_FIRST), "b": ("", ROUNDROBIN_FIRST)})
    first = gc.groups["g"].protocol_name
    # "a" restarts: it leaves (the consumer's close) and joins again with the same preferences.
    assert gc.leave_group("g", [LeaveMember(ids["a"])]) == (E.NONE, [E.NONE])
    _rebalance(gc, clock, {"a": ("", RANGE_FIRST), "b": (ids["b"], ROUNDROBIN_FIRST)})
    assert gc.groups["g"].protocol_name == first


def test_scala_hash_map_order_is_scala_213s():
    """The orders below were printed by Scala 2.13.18's own ``immutable.HashMap`` (keys added
    in the order given, ``keysIterator``): the order depends on the names only, and keys
    sharing a 5-bit hash chunk go to a sub-node iterated after the node's own keys."""
    assert scala_hash_map_order(["range", "roundrobin"]) == ["roundrobin", "range"]
    assert scala_hash_map_order(["roundrobin", "range"]) == ["roundrobin", "range"]
    assert scala_hash_map_order(["range", "cooperative-sticky"]) == ["cooperative-sticky", "range"]
    assert scala_hash_map_order(["sticky", "range", "roundrobin", "cooperative-sticky"]) == [
        "cooperative-sticky",
        "roundrobin",
        "range",
        "sticky",
    ]
    names = "a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg hh"
    scala = "e n t a m i v p w s x j y u f q b g l cc c h aa r bb ee ff k hh o z dd gg d"
    assert scala_hash_map_order(names.split(" ")) == scala.split(" ")


def test_a_tie_goes_to_the_protocol_kafka_picks(gc, clock):
    """range against roundrobin, one vote each: Kafka picks roundrobin, whoever joined first."""
    _rebalance(gc, clock, {"a": ("", RANGE_FIRST), "b": ("", ROUNDROBIN_FIRST)})
    assert gc.groups["g"].protocol_name == "roundrobin"
