"""Brokers run in the test process: an event loop thread, a node that starts, stops and
crashes a ``Broker`` on it (used by ``broker/testing/embedded.py`` and the suite's
``tests/support/cluster.py``).

Every broker of a :class:`LoopThread` is a ``broker.broker.Broker`` on one asyncio event
loop run by a daemon thread, so synchronous clients in the test thread talk to it over
real sockets, and its objects can be inspected with ``LoopThread.call``.

:meth:`InProcessNode.kill` emulates a crash (kill -9): every file descriptor the process
holds under the broker's log dirs is pointed at /dev/null (nothing reaches the disk after
that instant, data already written stays as it is in the page cache after a kill -9, and
the ``.lock`` is released), its sockets are reset, its ZooKeeper session is closed (its
ephemeral ``/brokers/ids/<id>`` goes at once) and its tasks are cancelled; no checkpoint
and no clean-shutdown marker are written. It needs Linux (``/proc/self/fd``). Plain
callbacks the crashed broker had scheduled (``loop.call_later``) still run, on its dead
objects: the tasks they start are cancelled, and its files are /dev/null by then.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
import weakref
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.interception import BrokerInterceptor, Network

START_TIMEOUT_S = 60.0

# The in-process broker a task belongs to: tasks inherit it from the task (or the
# connection callback) that created them, so a crash can cancel exactly its tasks.
_OWNER: contextvars.ContextVar[TaskOwner | None] = contextvars.ContextVar("inprocess_broker", default=None)

# broker_properties(index, log_dir, ports by listener name) -> the broker's overrides
PropertiesFn = Callable[[int, Path, Mapping[str, int]], Mapping[str, str]]


class TaskOwner:
    """The tasks of one in-process broker (to cancel them at a crash)."""

    def __init__(self, broker_id: int) -> None:
        self.broker_id = broker_id
        self.tasks: weakref.WeakSet[asyncio.Task] = weakref.WeakSet()
        self.dead = False  # crashed: a task its leftovers (timers, callbacks) start is cancelled


def tagging_task_factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task:
    task = asyncio.Task(coro, loop=loop, **kwargs)
    context = kwargs.get("context")
    owner = context.get(_OWNER) if context is not None else _OWNER.get()
    if owner is not None:
        owner.tasks.add(task)
        if owner.dead:
            task.cancel()
    return task


class LoopThread:
    """An asyncio loop in a daemon thread; ``call`` runs a coroutine there and waits."""

    def __init__(self, name: str = "cluster-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.set_task_factory(tagging_task_factory)
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float | None = START_TIMEOUT_S) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            self.call(cancel_all(), timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


# ---------------------------------------------------------------------- crash emulation


def fds_under(dirs: list[Path]) -> list[int]:
    """The descriptors this process holds on files under ``dirs`` (Linux: /proc/self/fd)."""
    if not os.path.isdir("/proc/self/fd"):
        raise RuntimeError("finding a broker's open files needs Linux's /proc/self/fd")
    roots = [str(Path(d).resolve()) for d in dirs]
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if any(target == r or target.startswith(r + os.sep) for r in roots):
            found.append(int(name))
    return found


def neutralise_files(dirs: list[Path]) -> int:
    """Point every descriptor this process holds on a file under ``dirs`` at /dev/null.

    What the kernel does at a kill -9, minus the closing: writes already made
    stay in the page cache, later ones (of the dead broker's leftovers) go
    nowhere, and its ``.lock`` flock is released. The descriptor numbers stay
    taken, so a late close by a dead object cannot hit a file of the restarted
    broker.
    """
    targets = fds_under(dirs)
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in targets:
            if fd != devnull:
                os.dup2(devnull, fd, inheritable=False)
    finally:
        os.close(devnull)
    return len(targets)


def zookeeper_sessions(broker: Broker) -> list[Any]:
    """The broker's ZooKeeper clients (today held by its producer-id manager)."""
    found = []
    for holder in (broker, getattr(broker, "producer_ids", None)):
        zk = getattr(holder, "zookeeper", None)
        if zk is not None and callable(getattr(zk, "close", None)) and zk not in found:
            found.append(zk)
    return found


async def crash(broker: Broker, owner: TaskOwner, log_dirs: list[Path]) -> None:
    """Stop ``broker`` as a kill -9 would (see the module docstring), on its loop."""
    loop = asyncio.get_running_loop()
    owner.dead = True
    neutralise_files(log_dirs)
    for conn in list(broker.server.connections):
        transport = getattr(conn, "transport", None)
        if transport is not None:
            transport.abort()  # RST, nothing flushed
    await broker.server.stop()  # the listeners
    for zk in zookeeper_sessions(broker):
        await loop.run_in_executor(None, zk.close)
    me = asyncio.current_task()
    tasks = [t for t in list(owner.tasks) if not t.done() and t is not me]
    for t in tasks:
        t.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=10)


# ---------------------------------------------------------------------- a node


class InProcessNode:
    """One in-process broker: started, stopped and crashed on its loop (coroutines).

    ``properties(index, log_dir, ports)`` gives the overrides it starts with; ``ports``
    (by listener name) are the ports it had, so a restart keeps its addresses.
    """

    def __init__(self, index: int, log_dir: Path, network: Network, properties: PropertiesFn) -> None:
        self.index = index
        self.log_dir = log_dir
        self.network = network
        self.properties = properties
        self.port = 0  # of the first advertised listener: the clients'
        self.ports: dict[str, int] = {}  # by listener name, kept for restarts
        self.broker: Broker | None = None
        self.owner: TaskOwner | None = None

    @property
    def alive(self) -> bool:
        return self.broker is not None

    def config(self) -> BrokerConfig:
        props = self.properties(self.index, self.log_dir, self.ports)
        return BrokerConfig.load(None, [f"{k}={v}" for k, v in props.items()])

    async def start(self) -> None:
        owner = TaskOwner(self.index)
        _OWNER.set(owner)  # this task's context: every task the broker creates inherits it
        broker = Broker(self.config())
        broker.server.interceptor = BrokerInterceptor(self.network, self.index)
        try:
            await broker.start()
        except BaseException:
            with contextlib.suppress(Exception):
                await broker.stop()
            raise
        self.broker, self.owner = broker, owner
        self.port = broker.advertised[0].port
        self.ports = {a.name: a.port for a in broker.advertised}

    async def stop(self) -> None:
        broker, self.broker = self.broker, None
        if broker is not None:
            await broker.stop()

    async def kill(self) -> None:
        broker, self.broker = self.broker, None
        if broker is not None:
            assert self.owner is not None
            await crash(broker, self.owner, list(broker.config.log_dirs))
