"""InitProducerId: the handler's rules (unit, fake manager) and a real embedded-mode broker on the wire.

The embedded broker tests need the broker to construct its ProducerIdManager.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from types import SimpleNamespace

import pytest

from broker.handlers import REGISTRY, RequestContext, load_handlers
from broker.handlers.init_producer_id import handle_init_producer_id
from coordinator.acl_authorizer import AllowAll
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    ApiKey,
    ApiVersionsRequest,
    InitProducerIdRequest,
    InitProducerIdResponse,
    MetadataRequest,
)
from tests.support.wire_client import WireClient


class FakeManager:
    def __init__(self, error: ErrorCode | None = None) -> None:
        self.next = 5000
        self.error = error
        self.calls = 0

    def generate_producer_id(self) -> int:
        self.calls += 1
        if self.error is not None:
            raise KafkaError(self.error, "injected")
        self.next += 1
        return self.next - 1


def call(context: RequestContext, request: InitProducerIdRequest):
    answer = handle_init_producer_id(context, request)
    return asyncio.run(answer) if inspect.isawaitable(answer) else answer


def ctx(manager, version: int = 4) -> RequestContext:
    return RequestContext(
        broker=SimpleNamespace(producer_ids=manager, authorizer=AllowAll()),
        api_key=ApiKey.INIT_PRODUCER_ID,
        api_version=version,
        correlation_id=1,
        client_id="test",
        peer="127.0.0.1:1",
        connection_id=1,
        listener="PLAINTEXT",
    )


def test_registered_for_versions_0_to_5():
    spec = load_handlers()[ApiKey.INIT_PRODUCER_ID]
    assert (spec.min_version, spec.max_version) == (0, 5)
    assert REGISTRY[22].fn is handle_init_producer_id


def test_an_idempotent_producer_is_answered_at_once():
    """No coroutine, so no task per request on the connection: the transactional path's
    wait once made every InitProducerId async, halving the idempotent rate
    (bench/init_producer_id_bench.py)."""
    answer = handle_init_producer_id(ctx(FakeManager()), InitProducerIdRequest(transactional_id=None))
    assert isinstance(answer, InitProducerIdResponse) and answer.producer_id == 5000


@pytest.mark.parametrize("version", range(6))
def test_idempotent_producer_gets_a_fresh_id_with_epoch_0(version):
    m = FakeManager()
    r1 = call(ctx(m, version), InitProducerIdRequest(transactional_id=None))
    r2 = call(ctx(m, version), InitProducerIdRequest(transactional_id=None))
    assert (r1.error_code, r1.producer_id, r1.producer_epoch) == (0, 5000, 0)
    assert (r2.error_code, r2.producer_id, r2.producer_epoch) == (0, 5001, 0)


def test_v3_producer_id_and_epoch_are_ignored_without_transactional_id():
    m = FakeManager()
    req = InitProducerIdRequest(transactional_id=None, producer_id=77, producer_epoch=12)
    r = call(ctx(m, 3), req)
    assert (r.error_code, r.producer_id, r.producer_epoch) == (0, 5000, 0)


def test_no_ids_at_hand_is_retriable():
    r = call(
        ctx(FakeManager(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)), InitProducerIdRequest(transactional_id=None)
    )
    assert r.error_code == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code
    assert (r.producer_id, r.producer_epoch) == (-1, -1)


def test_exhausted_ids_are_unknown_server_error():
    r = call(ctx(FakeManager(ErrorCode.UNKNOWN_SERVER_ERROR)), InitProducerIdRequest(transactional_id=None))
    assert r.error_code == ErrorCode.UNKNOWN_SERVER_ERROR.code


# ---------------------------------------------------------------------- a real broker (embedded mode)


def init_producer_id(client: WireClient, version: int = 4, **fields) -> tuple[int, int, int]:
    fields.setdefault("transactional_id", None)
    fields.setdefault("transaction_timeout_ms", 60000)
    r = client.request(InitProducerIdRequest(**fields), version)
    return r.error_code, r.producer_id, r.producer_epoch


def fresh_id(client: WireClient, version: int = 4, **fields) -> int:
    """An id, retrying COORDINATOR_LOAD_IN_PROGRESS as clients do."""
    for _ in range(10_000):
        err, pid, epoch = init_producer_id(client, version, **fields)
        if err == 0:
            assert epoch == 0
            return pid
        assert err == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code, err
    raise AssertionError("no producer id after many retries")


@pytest.mark.integration
def test_wire_all_versions_and_errors(broker_factory):
    b = broker_factory({"producer.id.block.size": "10"})
    with WireClient(b.host, b.port) as c:
        versions = c.request(ApiVersionsRequest(), 2).api_keys
        adv = next(k for k in versions if k.api_key == ApiKey.INIT_PRODUCER_ID)
        assert (adv.min_version, adv.max_version) == (0, 5)
        ids = [fresh_id(c, v) for v in range(6) for _ in range(5)]
        assert len(set(ids)) == 30  # across several 10-id blocks
        pid = fresh_id(c, 5, producer_id=ids[0], producer_epoch=3)  # ignored: a new id, epoch 0
        assert pid not in ids
        assert init_producer_id(c, 2, transactional_id="") == (ErrorCode.INVALID_REQUEST.code, -1, -1)
        # A transactional id before __transaction_state exists: retriable.
        assert init_producer_id(c, 4, transactional_id="tx") == (
            ErrorCode.COORDINATOR_NOT_AVAILABLE.code,
            -1,
            -1,
        )
    lease = json.loads((b.log_dir / "producer-id-block").read_text())
    assert set(lease) == {"version", "broker", "block_start", "block_end"}
    assert int(lease["block_end"]) >= max(ids)


@pytest.mark.integration
def test_embedded_ids_stay_unique_across_kill_9_restarts(broker_factory):
    b = broker_factory({"producer.id.block.size": "100"})
    seen: list[int] = []
    for round_ in range(4):
        with WireClient(b.host, b.port) as c:
            seen += [fresh_id(c) for _ in range(30 + 40 * round_)]
        b.restart(clean=False)  # kill -9, then start on the same data
    with WireClient(b.host, b.port) as c:
        seen += [fresh_id(c) for _ in range(10)]
    b.restart(clean=True)
    with WireClient(b.host, b.port) as c:
        seen += [fresh_id(c) for _ in range(10)]
    assert len(seen) == len(set(seen))


@pytest.mark.integration
def test_embedded_parallel_connections_get_distinct_ids_and_metadata_meanwhile(broker_factory):
    b = broker_factory({"producer.id.block.size": "50"})
    results: list[list[int]] = []
    lock = threading.Lock()

    def worker():
        with WireClient(b.host, b.port) as c:
            got = [fresh_id(c) for _ in range(300)]
        with lock:
            results.append(got)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    with WireClient(b.host, b.port) as c:
        assert c.request(MetadataRequest(topics=None), 12).brokers
    for t in threads:
        t.join(120)
    ids = [i for r in results for i in r]
    assert len(ids) == 1800 and len(set(ids)) == 1800
    for r in results:
        assert r == sorted(r)  # one connection's ids only grow
