"""ControlledShutdown, AlterPartition and ElectLeaders handlers over a fake controller: what
they ask it, how they answer every error path, and ElectLeaders' wait for UpdateMetadata."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace
from typing import Any

import pytest

import broker.handlers as handlers_pkg
from broker.handlers import RequestContext, load_handlers, served_handlers
from broker.handlers.alter_partition import handle_alter_partition
from broker.handlers.controlled_shutdown import handle_controlled_shutdown
from broker.handlers.elect_leaders import handle_elect_leaders
from broker.handlers.update_metadata import handle_update_metadata
from broker.metadata_cache import MetadataCache
from broker.purgatory import DelayedOperationPurgatory
from coordinator.acl_authorizer import AllowAll
from coordinator.cluster_state import BrokerEndpoint, LiveBroker, PartitionState
from coordinator.zk_election import ElectionType
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterPartitionRequest,
    AlterPartitionResponse,
    ApiKey,
    ControlledShutdownRequest,
    ControlledShutdownResponse,
    ElectLeadersRequest,
    ElectLeadersResponse,
    UpdateMetadataRequest,
)

BROKER_ID = 1
TOPIC_ID = uuid.uuid4()
NOT_FOUND = "The partition does not exist."
NOT_NEEDED = "Leader election not needed for topic partition."

# ---------------------------------------------------------------------- fakes


class FakeController:
    """Records calls; answers what the test set."""

    def __init__(self, *, active: bool = True) -> None:
        self.active = active
        self.calls: list[tuple[Any, ...]] = []
        self.shutdown_answer: tuple[ErrorCode, list[tuple[str, int]]] = (ErrorCode.NONE, [])
        self.alter_answer = AlterPartitionResponse(error_code=0)
        self.elect_answer: dict[tuple[str, int], tuple[ErrorCode, str | None]] = {}
        self.on_elect: Any = None  # called before answering (e.g. to update the metadata)

    async def controlled_shutdown(self, broker_id: int, broker_epoch: int):
        self.calls.append(("controlled_shutdown", broker_id, broker_epoch))
        return self.shutdown_answer

    async def alter_partition(self, request: AlterPartitionRequest, version: int) -> AlterPartitionResponse:
        self.calls.append(("alter_partition", request, version))
        return self.alter_answer

    async def elect_leaders(self, election_type, partitions):
        self.calls.append(("elect_leaders", election_type, partitions))
        if not self.active:
            return {tp: (ErrorCode.NOT_CONTROLLER, None) for tp in partitions}
        if self.on_elect is not None:
            self.on_elect()
        return {
            tp: self.elect_answer.get(tp, (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, NOT_FOUND))
            for tp in partitions
        }


def state(topic: str, p: int, leader: int, epoch: int, replicas: tuple[int, ...] = (1, 2)) -> PartitionState:
    return PartitionState(topic, p, leader, epoch, replicas, replicas, partition_epoch=epoch)


def fake_broker(controller: FakeController | None, states: list[PartitionState]) -> SimpleNamespace:
    cache = MetadataCache(BROKER_ID, "cluster")
    brokers = [LiveBroker(b, (BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9000 + b),), None) for b in (1, 2)]
    cache.update_metadata(0, brokers, {s.topic: TOPIC_ID for s in states}, states)
    return SimpleNamespace(
        authorizer=AllowAll(),
        config={"zookeeper.connect": "127.0.0.1:2181/x" if controller is not None else ""},
        kafka_controller=controller,
        metadata_cache=cache,
        replica_manager=SimpleNamespace(
            controller_epoch=0,
            elect_leader_purgatory=DelayedOperationPurgatory("ElectLeader"),
            under_state_change_lock=lambda fn: fn(),
        ),
        zookeeper=SimpleNamespace(broker_epoch=10) if controller is not None else None,
        groups=SimpleNamespace(remove_offsets_of_topic=lambda topic: None),
    )


def ctx(broker: SimpleNamespace, api_key: int, version: int) -> RequestContext:
    return RequestContext(broker, api_key, version, 1, "broker-2", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]


def roundtrip(message: Any, version: int) -> Any:
    """The message as the peer decodes it (proves it encodes at ``version``)."""
    w = bytearray()
    message.write(w, version)
    return type(message).decode(w, version)


def run(coro: Any) -> Any:
    async def main() -> Any:
        async with asyncio.timeout(30):
            return await coro

    return asyncio.run(main())


# ---------------------------------------------------------------------- registry


def test_control_apis_served_only_in_zookeeper_mode_and_elect_leaders_always():
    load_handlers()
    zk = served_handlers(SimpleNamespace(config={"zookeeper.connect": "zk:2181"}))  # type: ignore[arg-type]
    embedded = served_handlers(SimpleNamespace(config={"zookeeper.connect": ""}))  # type: ignore[arg-type]
    ranges = {k: (s.min_version, s.max_version) for k, s in zk.items()}
    assert ranges[ApiKey.CONTROLLED_SHUTDOWN] == (1, 3)  # v0's header has no client id: not served
    assert ranges[ApiKey.ALTER_PARTITION] == (0, 3)
    assert ranges[ApiKey.ELECT_LEADERS] == (0, 2)
    assert ApiKey.CONTROLLED_SHUTDOWN not in embedded and ApiKey.ALTER_PARTITION not in embedded
    assert embedded[ApiKey.ELECT_LEADERS] is handlers_pkg.REGISTRY[ApiKey.ELECT_LEADERS]


# ---------------------------------------------------------------------- ControlledShutdown


@pytest.mark.parametrize("version", [1, 2, 3])
def test_controlled_shutdown_delegates_and_lists_the_partitions_still_led(version):
    controller = FakeController()
    controller.shutdown_answer = (ErrorCode.NONE, [("a", 0), ("b", 3)])
    request = roundtrip(ControlledShutdownRequest(broker_id=2, broker_epoch=77), version)
    resp = run(handle_controlled_shutdown(ctx(fake_broker(controller, []), 7, version), request))
    # v1 has no BrokerEpoch: the controller sees -1 (never stale)
    assert controller.calls == [("controlled_shutdown", 2, 77 if version >= 2 else -1)]
    decoded: ControlledShutdownResponse = roundtrip(resp, version)
    assert decoded.error_code == 0
    assert [(p.topic_name, p.partition_index) for p in decoded.remaining_partitions] == [("a", 0), ("b", 3)]


@pytest.mark.parametrize(
    "error", [ErrorCode.STALE_CONTROLLER_EPOCH, ErrorCode.STALE_BROKER_EPOCH, ErrorCode.BROKER_NOT_AVAILABLE]
)
def test_controlled_shutdown_errors_carry_no_partitions(error):
    controller = FakeController(active=error is not ErrorCode.STALE_CONTROLLER_EPOCH)
    controller.shutdown_answer = (error, [])
    request = ControlledShutdownRequest(broker_id=2, broker_epoch=5)
    resp = run(handle_controlled_shutdown(ctx(fake_broker(controller, []), 7, 3), request))
    decoded = roundtrip(resp, 3)
    assert (decoded.error_code, decoded.remaining_partitions) == (error.code, [])


# ---------------------------------------------------------------------- AlterPartition


def alter_request() -> AlterPartitionRequest:
    return AlterPartitionRequest(
        broker_id=2,
        broker_epoch=9,
        topics=[
            AlterPartitionRequest.TopicData(
                topic_id=TOPIC_ID,
                partitions=[
                    AlterPartitionRequest.PartitionData(
                        partition_index=0,
                        leader_epoch=3,
                        new_isr_with_epochs=[AlterPartitionRequest.BrokerState(broker_id=2)],
                        partition_epoch=4,
                    )
                ],
            )
        ],
    )


def test_alter_partition_on_a_non_controller_is_not_controller_without_asking_it():
    controller = FakeController(active=False)
    resp = run(handle_alter_partition(ctx(fake_broker(controller, []), 56, 3), alter_request()))
    decoded: AlterPartitionResponse = roundtrip(resp, 3)
    assert (decoded.error_code, decoded.topics) == (ErrorCode.NOT_CONTROLLER.code, [])
    assert controller.calls == []


@pytest.mark.parametrize("version", [0, 2, 3])
def test_alter_partition_on_the_controller_answers_what_it_decided(version):
    controller = FakeController()
    controller.alter_answer = AlterPartitionResponse(
        error_code=0,
        topics=[
            AlterPartitionResponse.TopicData(
                topic_name="t",
                topic_id=TOPIC_ID,
                partitions=[
                    AlterPartitionResponse.PartitionData(
                        partition_index=0, leader_id=2, leader_epoch=3, isr=[2], partition_epoch=5
                    )
                ],
            )
        ],
    )
    request = alter_request()
    resp = run(handle_alter_partition(ctx(fake_broker(controller, []), 56, version), request))
    assert controller.calls == [("alter_partition", request, version)]
    assert resp is controller.alter_answer
    decoded = roundtrip(resp, version)
    assert [(p.leader_id, p.isr, p.partition_epoch) for p in decoded.topics[0].partitions] == [(2, [2], 5)]


def test_alter_partition_top_level_errors_pass_through():
    controller = FakeController()
    controller.alter_answer = AlterPartitionResponse(error_code=ErrorCode.STALE_BROKER_EPOCH.code)
    resp = run(handle_alter_partition(ctx(fake_broker(controller, []), 56, 3), alter_request()))
    assert roundtrip(resp, 3).error_code == ErrorCode.STALE_BROKER_EPOCH.code


# ---------------------------------------------------------------------- ElectLeaders


def elect_request(
    partitions: dict[str, list[int]] | None, election_type: int = 0, timeout_ms: int = 10_000
) -> ElectLeadersRequest:
    return ElectLeadersRequest(
        election_type=election_type,
        topic_partitions=None
        if partitions is None
        else [ElectLeadersRequest.TopicPartitions(topic=t, partitions=ps) for t, ps in partitions.items()],
        timeout_ms=timeout_ms,
    )


def results_of(resp: ElectLeadersResponse, version: int) -> dict[tuple[str, int], tuple[int, str | None]]:
    decoded = roundtrip(resp, version)
    return {
        (r.topic, p.partition_id): (p.error_code, p.error_message)
        for r in decoded.replica_election_results
        for p in r.partition_result
    }


def update_metadata(broker: SimpleNamespace, states: list[PartitionState]) -> None:
    """The controller's UpdateMetadata, through the real handler (which completes elections)."""
    request = UpdateMetadataRequest(
        controller_id=2,
        controller_epoch=1,
        broker_epoch=-1,
        live_brokers=[
            UpdateMetadataRequest.UpdateMetadataBroker(
                id=b,
                endpoints=[
                    UpdateMetadataRequest.UpdateMetadataEndpoint(
                        port=9000 + b, host="127.0.0.1", listener="PLAINTEXT"
                    )
                ],
            )
            for b in (1, 2)
        ],
        topic_states=[
            UpdateMetadataRequest.UpdateMetadataTopicState(
                topic_name=s.topic,
                topic_id=TOPIC_ID,
                partition_states=[
                    UpdateMetadataRequest.UpdateMetadataPartitionState(
                        topic_name=s.topic,
                        partition_index=s.partition,
                        controller_epoch=1,
                        leader=s.leader,
                        leader_epoch=s.leader_epoch,
                        isr=list(s.isr),
                        zk_version=s.partition_epoch,
                        replicas=list(s.replicas),
                    )
                ],
            )
            for s in states
        ],
    )
    assert handle_update_metadata(ctx(broker, 6, 8), request).error_code == 0


def test_elect_leaders_groups_results_by_topic_in_request_order_and_dedups():
    controller = FakeController()
    controller.elect_answer = {
        ("a", 0): (ErrorCode.ELECTION_NOT_NEEDED, NOT_NEEDED),
        ("b", 1): (ErrorCode.INVALID_TOPIC_EXCEPTION, "The topic is being deleted"),
        ("a", 1): (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, "Failed to elect leader for partition a-1"),
    }
    broker = fake_broker(controller, [state("a", 0, 1, 0), state("a", 1, 2, 0)])
    request = elect_request({"a": [0, 1, 0], "b": [1], "c": [7]}, election_type=1)
    request.topic_partitions.append(ElectLeadersRequest.TopicPartitions(topic="a", partitions=[1]))
    resp = run(handle_elect_leaders(ctx(broker, 43, 2), request))
    [(_, election_type, partitions)] = controller.calls
    assert election_type is ElectionType.UNCLEAN
    assert partitions == [("a", 0), ("a", 1), ("b", 1), ("c", 7)]
    decoded = roundtrip(resp, 2)
    assert decoded.error_code == 0
    assert [
        (r.topic, [p.partition_id for p in r.partition_result]) for r in decoded.replica_election_results
    ] == [
        ("a", [0, 1]),
        ("b", [1]),
        ("c", [7]),
    ]
    assert results_of(resp, 2) == {
        ("a", 0): (ErrorCode.ELECTION_NOT_NEEDED.code, NOT_NEEDED),  # asked for by name: reported
        ("a", 1): (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE.code, "Failed to elect leader for partition a-1"),
        ("b", 1): (ErrorCode.INVALID_TOPIC_EXCEPTION.code, "The topic is being deleted"),
        ("c", 7): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, NOT_FOUND),
    }


def test_elect_leaders_v0_is_always_preferred():
    controller = FakeController()
    broker = fake_broker(controller, [state("a", 0, 1, 0)])
    request = elect_request({"a": [0]}, election_type=1)  # v0 has no ElectionType on the wire
    resp = run(handle_elect_leaders(ctx(broker, 43, 0), request))
    assert controller.calls[0][1] is ElectionType.PREFERRED
    assert results_of(resp, 0) == {("a", 0): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, NOT_FOUND)}


def test_elect_leaders_on_a_non_controller_is_not_controller_for_every_partition_even_all():
    controller = FakeController(active=False)
    broker = fake_broker(controller, [state("a", 0, 1, 0), state("a", 1, 2, 0), state("b", 0, 1, 0)])
    resp = run(handle_elect_leaders(ctx(broker, 43, 1), elect_request(None)))
    # null TopicPartitions: the partitions of this broker's metadata go to the controller
    assert controller.calls[0][2] == [("a", 0), ("a", 1), ("b", 0)]
    assert results_of(resp, 1) == {
        tp: (ErrorCode.NOT_CONTROLLER.code, None) for tp in [("a", 0), ("a", 1), ("b", 0)]
    }
    assert roundtrip(resp, 1).error_code == 0


def test_elect_leaders_for_all_partitions_leaves_out_election_not_needed():
    controller = FakeController()
    broker = fake_broker(controller, [state("a", 0, 1, 0), state("a", 1, 1, 0)])
    controller.elect_answer = {
        ("a", 0): (ErrorCode.ELECTION_NOT_NEEDED, NOT_NEEDED),
        ("a", 1): (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, "no"),
    }
    resp = run(handle_elect_leaders(ctx(broker, 43, 2), elect_request(None)))
    assert results_of(resp, 2) == {("a", 1): (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE.code, "no")}


def test_elect_leaders_success_waits_for_update_metadata_showing_the_preferred_leader():
    async def scenario():
        controller = FakeController()
        # a-0 led by 2, preferred 1; a-1 too
        broker = fake_broker(controller, [state("a", 0, 2, 4), state("a", 1, 2, 4)])
        controller.elect_answer = {("a", 0): (ErrorCode.NONE, None), ("a", 1): (ErrorCode.NONE, None)}
        task = asyncio.ensure_future(handle_elect_leaders(ctx(broker, 43, 2), elect_request({"a": [0, 1]})))
        purgatory = broker.replica_manager.elect_leader_purgatory
        while not len(purgatory):  # parked once the controller answered
            assert not task.done()
            await asyncio.sleep(0)
        # a metadata update about another partition, and one with a newer epoch but not the
        # preferred leader (a later change): still waiting
        update_metadata(broker, [state("a", 1, 2, 5)])
        await asyncio.sleep(0)
        assert not task.done()
        update_metadata(broker, [state("a", 0, 1, 5)])
        await asyncio.sleep(0)
        assert not task.done()
        update_metadata(broker, [state("a", 1, 1, 6)])
        assert len(purgatory) == 0  # completed by the UpdateMetadata itself, not by the timer
        resp = await task
        assert results_of(resp, 2) == {("a", 0): (0, None), ("a", 1): (0, None)}

    run(scenario())


def test_elect_leaders_unclean_success_waits_for_any_leader_with_a_newer_epoch():
    async def scenario():
        controller = FakeController()
        broker = fake_broker(controller, [state("a", 0, -1, 4)])
        controller.elect_answer = {("a", 0): (ErrorCode.NONE, None)}
        task = asyncio.ensure_future(
            handle_elect_leaders(ctx(broker, 43, 1), elect_request({"a": [0]}, election_type=1))
        )
        purgatory = broker.replica_manager.elect_leader_purgatory
        while not len(purgatory):
            await asyncio.sleep(0)
        update_metadata(broker, [state("a", 0, 2, 5)])  # not the preferred replica: fine for UNCLEAN
        assert len(purgatory) == 0
        assert results_of(await task, 1) == {("a", 0): (0, None)}

    run(scenario())


def test_elect_leaders_success_already_visible_answers_at_once():
    controller = FakeController()
    broker = fake_broker(controller, [state("a", 0, 2, 4)])
    controller.elect_answer = {("a", 0): (ErrorCode.NONE, None)}
    # the UpdateMetadata arrives before the controller's answer
    controller.on_elect = lambda: broker.metadata_cache.update_metadata(
        2, broker.metadata_cache.get_alive_brokers(), {"a": TOPIC_ID}, [state("a", 0, 1, 5)]
    )
    resp = run(handle_elect_leaders(ctx(broker, 43, 2), elect_request({"a": [0]}, timeout_ms=0)))
    assert results_of(resp, 2) == {("a", 0): (0, None)}
    assert len(broker.replica_manager.elect_leader_purgatory) == 0


@pytest.mark.parametrize("timeout_ms", [0, -5, 50])
def test_elect_leaders_times_out_partitions_whose_leadership_never_shows(timeout_ms):
    controller = FakeController()
    broker = fake_broker(controller, [state("a", 0, 2, 4), state("a", 1, 1, 0)])
    controller.elect_answer = {
        ("a", 0): (ErrorCode.NONE, None),
        ("a", 1): (ErrorCode.ELECTION_NOT_NEEDED, NOT_NEEDED),
    }
    resp = run(handle_elect_leaders(ctx(broker, 43, 2), elect_request({"a": [0, 1]}, timeout_ms=timeout_ms)))
    assert results_of(resp, 2) == {
        ("a", 0): (ErrorCode.REQUEST_TIMED_OUT.code, None),
        ("a", 1): (ErrorCode.ELECTION_NOT_NEEDED.code, NOT_NEEDED),
    }
    assert len(broker.replica_manager.elect_leader_purgatory) == 0


@pytest.mark.parametrize("version", [1, 2])
def test_elect_leaders_unknown_election_type_fails_the_request(version):
    controller = FakeController()
    broker = fake_broker(controller, [state("a", 0, 1, 0)])
    resp = run(
        handle_elect_leaders(ctx(broker, 43, version), elect_request({"a": [0], "b": [2]}, election_type=7))
    )
    assert controller.calls == []
    assert roundtrip(resp, version).error_code == ErrorCode.UNKNOWN_SERVER_ERROR.code
    assert results_of(resp, version) == {
        ("a", 0): (ErrorCode.UNKNOWN_SERVER_ERROR.code, None),
        ("b", 2): (ErrorCode.UNKNOWN_SERVER_ERROR.code, None),
    }
    # all partitions: nothing listed, only the top-level error
    resp = run(handle_elect_leaders(ctx(broker, 43, version), elect_request(None, election_type=-1)))
    decoded = roundtrip(resp, version)
    assert (decoded.error_code, decoded.replica_election_results) == (ErrorCode.UNKNOWN_SERVER_ERROR.code, [])


@pytest.mark.parametrize("version", [0, 1, 2])
@pytest.mark.parametrize("election_type", [0, 1])
def test_elect_leaders_embedded_mode_needs_no_election_for_existing_partitions(version, election_type):
    broker = fake_broker(None, [state("a", 0, 1, 0, (1,)), state("a", 1, 1, 0, (1,))])
    resp = run(
        handle_elect_leaders(ctx(broker, 43, version), elect_request({"a": [1, 5], "zz": [0]}, election_type))
    )
    assert results_of(resp, version) == {
        ("a", 1): (ErrorCode.ELECTION_NOT_NEEDED.code, NOT_NEEDED),
        ("a", 5): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, NOT_FOUND),
        ("zz", 0): (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, NOT_FOUND),
    }
    # every partition: none needs an election, so none is reported
    resp = run(handle_elect_leaders(ctx(broker, 43, version), elect_request(None, election_type)))
    assert roundtrip(resp, version).replica_election_results == []
