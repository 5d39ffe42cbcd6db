"""``/brokers/ids/<id>`` held by another ZooKeeper session at start-up (Kafka's
``KafkaZkClient.registerBroker`` -> ``checkedEphemeralCreate``).

Kafka refuses to start at once with a NodeExistsException. Moldau first waits, at most the
session timeout plus one ZooKeeper tick (``ZooKeeperClient.stale_registration_wait_ms``), for
the node of this broker's own previous session (a kill -9 and an immediate restart) to
expire; a node still held then is another live broker with this id, and the start fails
with Kafka's message. The broker logs "started" only once registered.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest
from kazoo.client import KazooClient

import coordinator.zookeeper as zk_module
from coordinator.zookeeper import BrokerEndpoint, BrokerRegistration, ZooKeeperClient
from tests.support.broker_process import ROOT, BrokerProcess

pytestmark = [pytest.mark.zookeeper]

SESSION_TIMEOUT_MS = 6000


def raw_client(server, chroot: str = "") -> KazooClient:
    kz = KazooClient(hosts=server.connect(chroot), timeout=5)
    kz.start(timeout=20)
    return kz


def registration(broker_id: int) -> BrokerRegistration:
    return BrokerRegistration(
        broker_id=broker_id, endpoints=(BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9092),)
    )


def wall_ms() -> int:
    return int(time.time() * 1000)


@pytest.mark.integration
def test_a_broker_id_held_by_a_live_broker_stops_the_start(zookeeper, tmp_path):
    """Kafka's KafkaServer.startup -> KafkaZkClient.registerBroker -> checkedEphemeralCreate:
    ``/brokers/ids/<id>`` held by another live session throws NodeExistsException ("Error
    while creating ephemeral at /brokers/ids/1, node already exists and owner ... does not
    match current session"), the start fails and the process exits non-zero. A duplicate id
    never serves. (Waiting out a stale node of this broker's own previous session, Moldau's
    documented choice, is bounded by the session timeout: the deadline below is three.)"""
    connect = zookeeper.connect("/dup")
    common = {
        "zookeeper.connect": connect,
        "broker.id": "1",
        "zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_MS),
    }
    first = BrokerProcess(tmp_path / "first", common).start()
    try:
        kz = raw_client(zookeeper, "/dup")
        try:
            holder = kz.exists("/brokers/ids/1").ephemeralOwner
        finally:
            kz.stop()
            kz.close()
        cmd = [
            sys.executable,
            "-m",
            "broker",
            "--override",
            f"log.dirs={tmp_path / 'second'}",
            "--override",
            "listeners=PLAINTEXT://127.0.0.1:0",
        ]
        for k, v in common.items():
            cmd += ["--override", f"{k}={v}"]
        began = time.monotonic()
        second = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        try:
            _, err = second.communicate(timeout=3 * SESSION_TIMEOUT_MS / 1000)
        except subprocess.TimeoutExpired:
            second.kill()
            _, err = second.communicate()
            pytest.fail("a second broker with id 1 kept running:\n" + err[-2000:])
        elapsed = time.monotonic() - began
        assert second.returncode != 0
        assert "Traceback" not in err
        last = err.strip().splitlines()[-1]
        assert "/brokers/ids/1" in last
        # Moldau: the operator's to fix (exit 2), with Kafka's message naming both sessions.
        assert second.returncode == 2
        assert re.search(
            rf"Error while creating ephemeral at /brokers/ids/1, node already exists and owner "
            rf"'0x{holder:x}' does not match current session '0x[0-9a-f]+'",
            last,
        ), last
        assert not re.search(r"broker \d+ started", err)  # it never served as broker 1
        assert elapsed >= SESSION_TIMEOUT_MS / 1000  # a previous session had its chance to expire
        assert first.alive()
        kz = raw_client(zookeeper, "/dup")
        try:
            assert kz.exists("/brokers/ids/1").ephemeralOwner == holder
        finally:
            kz.stop()
            kz.close()
    finally:
        first.stop()


def test_a_node_held_past_the_session_timeout_fails_the_start(zookeeper, monkeypatch):
    """ZooKeeperClient.start (and register) wait for a foreign node at most the session timeout
    plus the margin, then raise BrokerIdInUseError (a ConfigError: the CLI's exit 2) with
    Kafka's getAfterNodeExists message; the id is not registered later either."""
    monkeypatch.setattr(zk_module, "STALE_SESSION_MARGIN_MS", 500)
    holder = raw_client(zookeeper)
    holder.create("/brokers/ids/7", b"{}", ephemeral=True, makepath=True)
    owner = holder.exists("/brokers/ids/7").ephemeralOwner
    c = ZooKeeperClient(
        zookeeper.connect(), session_timeout_ms=2000, time_ms=wall_ms, registration=registration(7)
    )
    try:
        began = time.monotonic()
        with pytest.raises(zk_module.BrokerIdInUseError) as info:
            c.start()
        elapsed = time.monotonic() - began
        assert c.stale_registration_wait_ms == 2500
        assert elapsed >= 2.5
        session = c.session_id
        assert str(info.value).startswith(
            f"Error while creating ephemeral at /brokers/ids/7, node already exists and owner "
            f"'0x{owner:x}' does not match current session '0x{session:x}'"
        )
        assert c.broker_epoch is None
        holder.stop()  # the id is free now, but this client gave it up
        time.sleep(1.0)
        assert c.kazoo.exists("/brokers/ids/7") is None
    finally:
        holder.stop()
        holder.close()
        c.close()


def test_a_node_of_a_session_ending_within_the_wait_is_waited_out(zookeeper):
    """The kill -9 case: start() blocks while the previous session's node is there and returns
    registered once it goes."""
    stale = raw_client(zookeeper)
    stale.create("/brokers/ids/8", b"{}", ephemeral=True, makepath=True)
    c = ZooKeeperClient(
        zookeeper.connect(), session_timeout_ms=4000, time_ms=wall_ms, registration=registration(8)
    )
    done = threading.Event()
    failed: list[BaseException] = []

    def start() -> None:
        try:
            c.start()
        except BaseException as exc:  # reported below
            failed.append(exc)
        finally:
            done.set()

    threading.Thread(target=start, daemon=True).start()
    try:
        assert not done.wait(1.0)  # waiting for the node to go
        assert c.broker_epoch is None
        stale.stop()
        assert done.wait(10)
        assert not failed
        stat = c.kazoo.exists("/brokers/ids/8")
        assert stat is not None and stat.ephemeralOwner == c.session_id
        assert c.broker_epoch == stat.czxid
    finally:
        stale.stop()
        stale.close()
        c.close()


@pytest.mark.integration
def test_kill_9_and_immediate_restart_registers_before_it_reports_started(zookeeper, tmp_path):
    """A broker SIGKILLed and restarted at once finds the node of its previous session: it
    waits for the session to expire, registers, and only then logs "started"."""
    props = {
        "zookeeper.connect": zookeeper.connect("/restart"),
        "broker.id": "3",
        "zookeeper.session.timeout.ms": "4000",
    }
    b = BrokerProcess(tmp_path / "b", props).start()
    try:
        b.restart(clean=False)
        lines = b.lines
        held = next(i for i, line in enumerate(lines) if "/brokers/ids/3 is held by another" in line)
        registered = next(i for i, line in enumerate(lines) if "registered broker 3 in ZooKeeper" in line)
        started = next(i for i, line in enumerate(lines) if re.search(r"broker 3 started", line))
        assert held < registered < started
        kz = raw_client(zookeeper, "/restart")
        try:
            stat = kz.exists("/brokers/ids/3")
            assert stat is not None
        finally:
            kz.stop()
            kz.close()
    finally:
        b.stop()
