"""Fake brokers for the ZooKeeper-mode controller tests: real ZooKeeper sessions registering
``/brokers/ids/<id>`` (Kafka's JSON, one session per broker so a test kills a broker by
closing it), a fake ControllerChannel recording what the controller sends."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from coordinator import zk_data as zd
from coordinator.cluster_state import BrokerEndpoint
from coordinator.zk_controller import KafkaController
from coordinator.zookeeper import BrokerRegistration, ZooKeeperClient
from protocol.messages import (
    LeaderAndIsrRequest,
    LeaderAndIsrResponse,
    StopReplicaRequest,
    StopReplicaResponse,
    UpdateMetadataRequest,
    UpdateMetadataResponse,
)

SESSION_TIMEOUT_MS = 3000
INTER_BROKER = "INTERNAL"


def registration(broker_id: int, rack: str | None = None) -> BrokerRegistration:
    return BrokerRegistration(
        broker_id=broker_id,
        endpoints=(
            BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9000 + broker_id),
            BrokerEndpoint(INTER_BROKER, "127.0.0.1", 9100 + broker_id),
        ),
        rack=rack,
        security_protocols={INTER_BROKER: "SASL_PLAINTEXT"},
    )


class FakeChannel:
    """Records every request; answers success (StopReplica: every partition NONE)."""

    def __init__(self) -> None:
        self.brokers: dict[int, zd.BrokerInfo] = {}
        self.sent: list[tuple[int, Any, int]] = []
        self.stop_replica_error = 0

    def add_broker(self, broker: zd.BrokerInfo) -> None:
        self.brokers[broker.broker_id] = broker

    def remove_broker(self, broker_id: int) -> None:
        self.brokers.pop(broker_id, None)

    async def drain(self, timeout_s: float) -> None:
        pass  # every request is answered when sent

    def send(self, broker_id: int, request: Any, version: int) -> asyncio.Future:
        assert broker_id in self.brokers, f"request to unknown broker {broker_id}"
        self.sent.append((broker_id, request, version))
        fut = asyncio.get_running_loop().create_future()
        if isinstance(request, StopReplicaRequest):
            errors = [
                StopReplicaResponse.StopReplicaPartitionError(
                    topic_name=t.topic_name,
                    partition_index=p.partition_index,
                    error_code=self.stop_replica_error,
                )
                for t in request.topic_states
                for p in t.partition_states
            ]
            fut.set_result(StopReplicaResponse(error_code=0, partition_errors=errors))
        elif isinstance(request, LeaderAndIsrRequest):
            fut.set_result(LeaderAndIsrResponse(error_code=0))
        else:
            fut.set_result(UpdateMetadataResponse(error_code=0))
        return fut

    def clear(self) -> None:
        self.sent.clear()

    def of_type(self, kind: type, broker_id: int | None = None) -> list[tuple[int, Any]]:
        return [
            (b, r) for b, r, _ in self.sent if isinstance(r, kind) and (broker_id is None or b == broker_id)
        ]

    def leader_and_isr_states(self, broker_id: int) -> list[Any]:
        return [
            ps
            for _, r in self.of_type(LeaderAndIsrRequest, broker_id)
            for ts in r.topic_states
            for ps in ts.partition_states
        ]

    def metadata_states(self, broker_id: int) -> list[Any]:
        return [
            ps
            for _, r in self.of_type(UpdateMetadataRequest, broker_id)
            for ts in r.topic_states
            for ps in ts.partition_states
        ]


class FakeBroker:
    """A broker's ZooKeeper session and registration, optionally with its controller."""

    def __init__(
        self,
        connect: str,
        broker_id: int,
        rack: str | None = None,
        session_timeout_ms: int = SESSION_TIMEOUT_MS,
    ) -> None:
        self.broker_id = broker_id
        self.zk = ZooKeeperClient(
            connect,
            session_timeout_ms=session_timeout_ms,
            time_ms=lambda: int(time.time() * 1000),
            registration=registration(broker_id, rack),
        )
        self.channel = FakeChannel()
        self.controller: KafkaController | None = None

    @property
    def epoch(self) -> int:
        assert self.zk.broker_epoch is not None
        return self.zk.broker_epoch

    async def start(self, *, controller: bool = False, **config: Any) -> FakeBroker:
        await asyncio.to_thread(self.zk.start)
        if controller:
            self.controller = KafkaController(
                self.broker_id,
                self.zk,
                self.channel,
                time_ms=lambda: int(time.time() * 1000),
                inter_broker_listener=INTER_BROKER,
                **config,
            )
            await self.controller.startup()
        return self

    async def kill(self) -> None:
        """The session ends: the registration (and /controller if held) disappear at once."""
        await asyncio.to_thread(self.zk.close)
        if self.controller is not None:
            await self.controller.shutdown()


async def until(condition, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def zk_get(zk: ZooKeeperClient, path: str) -> tuple[bytes, Any] | None:
    from coordinator.zookeeper import get_many

    return (await asyncio.to_thread(get_many, zk, [path]))[0]
