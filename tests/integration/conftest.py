"""Fixtures for the real-client integration tests: one broker per module, restartable.

The shared per-test ``broker`` / ``broker_factory`` fixtures live in tests/conftest.py; these
tests reuse one broker for a whole module to stay quick (a broker start is about a second,
and several clients are driven against the same one).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.broker_process import BrokerProcess

# Static broker overrides the describe-configs tests look for (STATIC_BROKER_CONFIG sources).
MODULE_BROKER_OVERRIDES = {
    "log.retention.hours": "24",
    "num.partitions": "2",
}


@pytest.fixture(scope="module")
def module_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """One broker for the module, started with :data:`MODULE_BROKER_OVERRIDES`."""
    b = BrokerProcess(tmp_path_factory.mktemp("module-broker") / "data", MODULE_BROKER_OVERRIDES)
    b.start()
    yield b
    if b.alive():
        b.stop()


@pytest.fixture
def live_broker(module_broker: BrokerProcess) -> BrokerProcess:
    """The module broker, started again if an earlier test left it stopped."""
    if not module_broker.alive():
        module_broker.start()
    return module_broker
