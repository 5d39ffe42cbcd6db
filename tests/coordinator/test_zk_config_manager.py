"""ZkConfigManager (Kafka's config change listener) against a real ZooKeeper."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Mapping

import pytest

from coordinator import zk_data as zd
from coordinator.zk_admin import AdminZkClient
from coordinator.zk_config_manager import CHANGE_EXPIRATION_MS, ZkConfigManager, parse_notification
from coordinator.zookeeper import ZooKeeperClient, ZooKeeperError
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]  # the module's ZooKeeper fixture


def test_notifications_of_both_versions():
    assert parse_notification(b'{"version":2,"entity_path":"topics/t.1"}') == ("topics", "t.1")
    assert parse_notification(b'{"version":1,"entity_type":"brokers","entity_name":"<default>"}') == (
        "brokers",
        "<default>",
    )
    for bad in (b"", b"[]", b"{", b'{"version":2,"entity_path":"topics"}', b'{"version":3}'):
        assert parse_notification(bad) is None


class Recorder:
    def __init__(self) -> None:
        self.changes: list[tuple[str, dict[str, str]]] = []

    def process_config_changes(self, entity_name: str, config: Mapping[str, str]) -> None:
        self.changes.append((entity_name, dict(config)))


@pytest.fixture
def zk(zookeeper_shared):
    client = ZooKeeperClient(
        zookeeper_shared.connect(f"/cfg_{uuid.uuid4().hex[:8]}"),
        session_timeout_ms=10_000,
        time_ms=lambda: int(time.time() * 1000),
    )
    client.start()
    client.create_persistent_paths()
    yield client
    client.close()


def test_stored_configs_at_start_then_changes_in_sequence_order(zk):
    admin = AdminZkClient(zk)
    admin.change_topic_config_blocking("before", {"retention.ms": "1"})
    topics, brokers = Recorder(), Recorder()

    async def scenario() -> None:
        manager = ZkConfigManager(
            zk, {"topics": topics, "brokers": brokers}, time_ms=lambda: int(time.time() * 1000)
        )
        await manager.start()
        # The stored config, then the pending notification of it (Kafka's startup does both).
        assert topics.changes == [("before", {"retention.ms": "1"})] * 2
        topics.changes.clear()
        loop = asyncio.get_running_loop()
        for value in ("2", "3"):
            await loop.run_in_executor(None, admin.change_topic_config_blocking, "t", {"retention.ms": value})
        await loop.run_in_executor(
            None, admin.change_broker_config_blocking, "<default>", {"log.retention.ms": "9"}
        )
        # An entity type without handler is skipped.
        await loop.run_in_executor(
            None,
            lambda: zk._client().create(
                f"{zd.CONFIG_CHANGES_PATH}/{zd.CONFIG_CHANGE_PREFIX}",
                zd.encode_config_change("users/alice"),
                sequence=True,
            ),
        )
        deadline = time.monotonic() + 20
        while not brokers.changes and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        # Each notification re-reads the entity's current config (both say 3 once read late).
        assert [name for name, _ in topics.changes] in (["t", "t"], ["t"])
        assert topics.changes[-1] == ("t", {"retention.ms": "3"})
        assert brokers.changes == [("<default>", {"log.retention.ms": "9"})]
        await manager.stop()

    asyncio.run(scenario())


def test_expired_notifications_are_purged(zk):
    admin = AdminZkClient(zk)
    admin.change_topic_config_blocking("old", {"retention.ms": "1"})
    later = int(time.time() * 1000) + CHANGE_EXPIRATION_MS + 60_000

    async def scenario() -> None:
        manager = ZkConfigManager(zk, {"topics": Recorder()}, time_ms=lambda: later)
        await manager.start()
        await manager.stop()

    asyncio.run(scenario())
    assert zk._client().get_children(zd.CONFIG_CHANGES_PATH) == []
    assert zd.decode_config(zk.get_data("/config/topics/old")[0]) == {"retention.ms": "1"}  # the config stays


def test_topic_configs_read_through_the_session(zk):
    """``ZooKeeperClient.read_topic_configs`` decodes with ``zk_data.decode_config``; a malformed
    znode is a ZooKeeperError naming it."""
    kz = zk._client()
    kz.create("/config/topics/good", zd.encode_config({"retention.ms": "7"}), makepath=True)
    kz.create("/config/topics/empty", b"", makepath=True)
    assert zk.read_topic_configs(["good", "empty", "missing"]) == {
        "good": {"retention.ms": "7"},
        "empty": {},
        "missing": {},
    }
    kz.create("/config/topics/bad", b"{not json", makepath=True)
    with pytest.raises(ZooKeeperError, match="/config/topics/bad: not JSON"):
        zk.read_topic_config("bad")


async def _eventually(check, what: str) -> None:
    """Poll ``check`` (blocking, run in an executor) until it holds, for up to 20 s."""
    loop = asyncio.get_running_loop()
    deadline = time.monotonic() + 20
    while not await loop.run_in_executor(None, check):
        assert time.monotonic() < deadline, f"{what} did not happen"
        await asyncio.sleep(0.02)


def _purge_scenario(zk, then) -> list[str]:
    """A config manager whose clock can be moved processes one topic change; 16 minutes
    later (its clock) ``then(admin, topics)`` runs. Returns the first change's notification
    if it is still there once ``then`` returned."""
    admin = AdminZkClient(zk)
    now = [int(time.time() * 1000)]
    topics = Recorder()
    client = zk._client()

    async def scenario() -> list[str]:
        manager = ZkConfigManager(zk, {"topics": topics}, time_ms=lambda: now[0])
        await manager.start()
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, admin.change_topic_config_blocking, "t", {"retention.ms": "1"})
            await _eventually(lambda: topics.changes == [("t", {"retention.ms": "1"})], "the first change")
            (first,) = await loop.run_in_executor(None, client.get_children, zd.CONFIG_CHANGES_PATH)
            now[0] += CHANGE_EXPIRATION_MS + 60_000
            await then(admin, topics, first)
            left = await loop.run_in_executor(None, client.get_children, zd.CONFIG_CHANGES_PATH)
            return [c for c in left if c == first]
        finally:
            await manager.stop()

    return asyncio.run(scenario())


def test_a_processed_notification_is_purged_once_expired_on_a_later_pass(zk):
    """Kafka: ZkNodeChangeNotificationListener.processNotifications / purgeObsoleteNotifications
    (every child older than changeExpirationMs is deleted on each pass, not only the new
    ones). A long-running broker that processed each notification as it came (the normal case)
    must still delete it 15 minutes later, else /config/changes grows without bound."""

    async def another_change(admin, topics, first) -> None:  # its pass purges the expired first one
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, admin.change_topic_config_blocking, "u", {"retention.ms": "2"})
        await _eventually(lambda: topics.changes[-1] == ("u", {"retention.ms": "2"}), "the second change")

    still_there = _purge_scenario(zk, another_change)
    assert still_there == [], "the expired, already processed notification was not purged"


def test_a_pass_with_nothing_new_purges_too(zk):
    """Kafka's ``processNotifications`` purges on every pass over the children, also one that
    finds nothing new to process (a child removed or added that is no notification wakes it)."""
    client = zk._client()

    async def a_child_that_is_no_notification(admin, topics, first) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, client.create, f"{zd.CONFIG_CHANGES_PATH}/not-a-change")
        await _eventually(lambda: first not in client.get_children(zd.CONFIG_CHANGES_PATH), "the purge")

    assert _purge_scenario(zk, a_child_that_is_no_notification) == [], (
        "the expired notification was not purged"
    )


def test_a_notification_during_the_first_pass_is_read_after_it_not_beside_it(zk):
    """Kafka's ZkNodeChangeNotificationListener processes notifications on one thread: a watch
    that fires while the first pass (at start) still reads makes one more pass once it ends,
    never a second pass beside it (which could apply an older read last)."""
    import threading

    from coordinator.zk_change_notifications import ZkChangeNotificationListener

    root = "/test_changes"
    zk._client().ensure_path(root)
    reading, release = threading.Event(), threading.Event()
    lock = threading.Lock()
    state = {"inside": 0, "most": 0, "calls": 0}
    applied: list[list[str]] = []

    class SlowFirstRead:
        def read_changes(self, found: list[tuple[str, bytes]]) -> list[str]:
            with lock:
                state["inside"] += 1
                state["most"] = max(state["most"], state["inside"])
                state["calls"] += 1
                first = state["calls"] == 1
            try:
                if first:
                    reading.set()
                    release.wait(20)
                return [child for child, _ in found]
            finally:
                with lock:
                    state["inside"] -= 1

        def apply_changes(self, changes: list[str]) -> None:
            applied.append(changes)

    def notify() -> None:
        zk._client().create(f"{root}/n-", b"x", sequence=True)

    async def scenario() -> None:
        notify()
        listener = ZkChangeNotificationListener(
            zk, root, "n-", SlowFirstRead(), time_ms=lambda: int(time.time() * 1000), name="test"
        )
        loop = asyncio.get_running_loop()
        first = loop.create_task(listener.start())
        await loop.run_in_executor(None, reading.wait, 20)
        await loop.run_in_executor(None, notify)  # the watch of the first pass fires now
        # Until the watch is handled: a pass beside the first one reads, or one more is due.
        deadline = time.monotonic() + 20
        while not listener._again and state["calls"] < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        release.set()
        await first
        deadline = time.monotonic() + 20
        while sum(len(c) for c in applied) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await listener.close()

    asyncio.run(scenario())
    assert state["most"] == 1, state
    assert [len(c) for c in applied] == [1, 1], applied
