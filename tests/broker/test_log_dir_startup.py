"""A broker whose log dirs cannot all be created starts with the others (Kafka's
``LogManager.createAndValidateLogDirs``: a failing dir goes offline; the broker halts only
when no dir is left)."""

from __future__ import annotations

import asyncio

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig, ConfigError
from protocol.messages import CreateTopicsRequest
from tests.support.wire_client import WireClient


def _props(tmp_path, dirs: str) -> dict[str, str]:
    return {"log.dirs": dirs, "listeners": "PLAINTEXT://127.0.0.1:0", "broker.id": "0"}


def test_a_log_dir_that_cannot_be_created_goes_offline_and_the_broker_serves_from_the_others(tmp_path):
    (tmp_path / "a-file").write_bytes(b"not a directory")
    good, bad = tmp_path / "good", tmp_path / "a-file" / "logs"

    async def main() -> None:
        broker = Broker(BrokerConfig(_props(tmp_path, f"{good},{bad}")))
        await broker.start()
        try:
            lm = broker.replica_manager.log_manager
            assert lm.failure_channel.state(bad).offline and not lm.failure_channel.state(good).offline
            host, port = broker.server.bound[0]

            def create() -> int:
                topic = CreateTopicsRequest.CreatableTopic(name="t", num_partitions=2, replication_factor=1)
                with WireClient(host, port) as c:
                    return (
                        c.request(CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 5)
                        .topics[0]
                        .error_code
                    )

            assert await asyncio.to_thread(create) == 0
            assert sorted(p.name for p in good.iterdir() if p.name.startswith("t-")) == ["t-0", "t-1"]
        finally:
            await broker.stop()

    asyncio.run(main())


def test_a_broker_none_of_whose_log_dirs_can_be_created_does_not_start(tmp_path):
    (tmp_path / "a-file").write_bytes(b"not a directory")
    broker = Broker(BrokerConfig(_props(tmp_path, str(tmp_path / "a-file" / "logs"))))
    with pytest.raises(ConfigError, match="cannot create"):
        asyncio.run(broker.start())
