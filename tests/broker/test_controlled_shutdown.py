"""The broker side of controlled shutdown (``broker.controlled_shutdown``) against real
in-process ZooKeeper-mode brokers whose ControlledShutdown answers the test scripts with
controls (tests/support/interception.py): retries, controller moves, network failures,
link cuts (which rely on the ``broker-<id>`` client id), and giving up."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from broker.controlled_shutdown import controlled_shutdown
from coordinator.cluster_state import BrokerEndpoint
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ControlledShutdownResponse
from tests.support.cluster import Cluster
from tests.support.interception import Close, InterceptedRequest, Respond
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]  # the module-scoped ZooKeeper fixture

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

SHUTTING_DOWN = 0  # the broker that shuts down (its requests are client id broker-0)
EPOCH = 4242
LISTENER = "PLAINTEXT"
CS = ApiKey.CONTROLLED_SHUTDOWN


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot="/controlled_shutdown_client",
        base_dir=tmp_path_factory.mktemp("cluster"),
        # the brokers only answer here; their own shutdown at the end stays quick
        overrides={"controlled.shutdown.enable": "false"},
    ) as c:
        yield c


@pytest.fixture(autouse=True)
def clean_network(cluster: Cluster) -> Iterator[None]:
    yield
    cluster.clear_controls()
    cluster.heal_all()
    cluster.check_controls()


class ScriptedMetadata:
    """The metadata cache as controlled shutdown reads it: the controller id per read (the
    last one repeats; a control may also set it, as an UpdateMetadata would), endpoints of
    the live cluster brokers."""

    def __init__(self, cluster: Cluster, ids: Sequence[int]) -> None:
        self.cluster = cluster
        self.ids = list(ids)
        self.reads = 0
        self.lock = threading.Lock()

    @property
    def controller_id(self) -> int:
        with self.lock:
            self.reads += 1
            return self.ids.pop(0) if len(self.ids) > 1 else self.ids[0]

    def move_to(self, controller_id: int) -> None:
        with self.lock:
            self.ids = [controller_id]

    def endpoint(self, broker_id: int, listener: str) -> BrokerEndpoint | None:
        assert listener == LISTENER
        if not 0 <= broker_id < self.cluster.n:
            return None  # not a live broker
        return BrokerEndpoint(LISTENER, "127.0.0.1", self.cluster.port(broker_id))


class Answers:
    """A control answering ControlledShutdown from a script, recording what it saw."""

    def __init__(self, seen: list[tuple[int, InterceptedRequest]]) -> None:
        self.seen = seen

    def at(self, cluster: Cluster, broker: int, *answers: Respond | Close, then: object = None) -> None:
        script = list(answers)

        def control(req: InterceptedRequest) -> Respond | Close:
            self.seen.append((broker, req))
            verdict = script.pop(0) if len(script) > 1 else script[0]
            if callable(then):
                then()
            return verdict

        cluster.control(broker, CS, control, keep=True)


def answer(error: ErrorCode = ErrorCode.NONE, *remaining: tuple[str, int]) -> Respond:
    return Respond(
        ControlledShutdownResponse(
            error_code=error.code,
            remaining_partitions=[
                ControlledShutdownResponse.RemainingPartition(topic_name=t, partition_index=p)
                for t, p in remaining
            ],
        )
    )


def shut_down(cluster: Cluster, metadata: ScriptedMetadata, max_retries: int, **kw: int) -> bool:
    return cluster.run(
        controlled_shutdown(
            metadata,
            listener=LISTENER,
            broker_id=SHUTTING_DOWN,
            broker_epoch=EPOCH,
            max_retries=max_retries,
            retry_backoff_ms=kw.pop("retry_backoff_ms", 20),
            **kw,
        ),
        timeout=60,
    )


def test_retries_until_nothing_remains_following_the_controller_as_it_moves(cluster: Cluster) -> None:
    seen: list[tuple[int, InterceptedRequest]] = []
    metadata = ScriptedMetadata(cluster, [1])
    answers = Answers(seen)
    # broker 1 lost the controllership (Kafka answers STALE_CONTROLLER_EPOCH); the cache
    # then names broker 2, which moves the leaders in two rounds
    answers.at(cluster, 1, answer(ErrorCode.STALE_CONTROLLER_EPOCH), then=lambda: metadata.move_to(2))
    answers.at(cluster, 2, answer(ErrorCode.NONE, ("t", 0), ("t", 1)), answer(ErrorCode.NONE))

    assert shut_down(cluster, metadata, max_retries=5) is True

    assert [b for b, _ in seen] == [1, 2, 2]
    for _, req in seen:
        assert (req.api_version, req.client_id, req.source_broker) == (3, "broker-0", SHUTTING_DOWN)
        assert (req.request.broker_id, req.request.broker_epoch) == (SHUTTING_DOWN, EPOCH)
    assert metadata.reads == 3  # the controller is looked up again for every attempt


def test_gives_up_after_max_retries_attempts(cluster: Cluster) -> None:
    seen: list[tuple[int, InterceptedRequest]] = []
    Answers(seen).at(cluster, 1, answer(ErrorCode.NONE, ("rf1", 0)))  # an RF=1 partition never moves

    assert shut_down(cluster, ScriptedMetadata(cluster, [1]), max_retries=3) is False
    assert [b for b, _ in seen] == [1, 1, 1]


@pytest.mark.parametrize("error", [ErrorCode.STALE_BROKER_EPOCH, ErrorCode.BROKER_NOT_AVAILABLE])
def test_an_error_answer_is_a_failed_attempt(cluster: Cluster, error: ErrorCode) -> None:
    seen: list[tuple[int, InterceptedRequest]] = []
    Answers(seen).at(cluster, 2, answer(error), answer(ErrorCode.NONE))

    assert shut_down(cluster, ScriptedMetadata(cluster, [2]), max_retries=2) is True
    assert [b for b, _ in seen] == [2, 2]


def test_no_controller_known_and_a_closed_connection_are_failed_attempts(cluster: Cluster) -> None:
    seen: list[tuple[int, InterceptedRequest]] = []
    answers = Answers(seen)
    answers.at(cluster, 1, Close())  # the connection closes before any answer
    answers.at(cluster, 2, answer(ErrorCode.NONE))
    # reads: no controller; controller 7 (not a live broker: no endpoint); 1; then 2
    metadata = ScriptedMetadata(cluster, [-1, 7, 1, 2])

    assert shut_down(cluster, metadata, max_retries=5) is True
    assert [b for b, _ in seen] == [1, 2]
    assert metadata.reads == 4


def test_a_cut_link_times_out_and_the_next_controller_is_tried(cluster: Cluster) -> None:
    seen: list[tuple[int, InterceptedRequest]] = []
    answers = Answers(seen)
    answers.at(cluster, 1, answer(ErrorCode.NONE))
    answers.at(cluster, 2, answer(ErrorCode.NONE))
    cluster.cut_link(SHUTTING_DOWN, 1)  # requests with client id broker-0 are lost at broker 1
    metadata = ScriptedMetadata(cluster, [1, 1, 2])

    assert shut_down(cluster, metadata, max_retries=3, request_timeout_ms=300) is True
    assert [b for b, _ in seen] == [2]
    assert cluster.traffic(1).dropped_by_cut[SHUTTING_DOWN] >= 1


def test_zero_retries_sends_nothing(cluster: Cluster) -> None:
    seen: list[tuple[int, InterceptedRequest]] = []
    Answers(seen).at(cluster, 1, answer(ErrorCode.NONE))
    assert shut_down(cluster, ScriptedMetadata(cluster, [1]), max_retries=0) is False
    assert seen == []


def test_a_broker_without_zookeeper_closes_the_connection_a_failed_attempt(tmp_path: Path) -> None:
    # ControlledShutdown is served only in ZooKeeper mode: a lone broker closes the
    # connection, which is a failed attempt like any network error.
    with Cluster(1, base_dir=tmp_path / "embedded") as lone:
        metadata = ScriptedMetadata(lone, [0])
        assert shut_down(lone, metadata, max_retries=2) is False
