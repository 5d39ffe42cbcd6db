"""tests/java/GroupDriver.java: Java consumers (kafka-clients 4.3, classic protocol)
polling continuously in their own threads, driven by one command per line; every poll that
returned records or saw a new generation / member id is reported with both."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from tests.support.java_shell import JavaShell


class GroupDriver(JavaShell):
    """``GroupDriver BOOTSTRAP``: consumers started by name, their polls' events drained."""

    def __init__(self, bootstrap: str) -> None:
        super().__init__(bootstrap, main="GroupDriver")
        self.events: dict[str, list[dict[str, Any]]] = {}

    def start(
        self, name: str, group: str, topic: str, assignor: str, instance: str = "", **props: str
    ) -> None:
        r = self("start", name, group, topic, assignor, instance, *(f"{k}={v}" for k, v in props.items()))
        assert r["ok"], r
        self.events[name] = []

    def drain(self, name: str) -> list[dict[str, Any]]:
        evs = self("drain", name)["events"]
        self.events[name].extend(evs)
        return evs

    def records(self, name: str) -> list[tuple[int, int]]:
        return [tuple(r) for e in self.events[name] if e["t"] == "poll" for r in e["recs"]]

    def generations(self, name: str) -> list[tuple[int, str]]:
        """(generation, member id) as seen by each reported poll, consecutive repeats dropped."""
        out: list[tuple[int, str]] = []
        for e in self.events[name]:
            if e["t"] == "poll" and (not out or out[-1] != (e["gen"], e["member"])):
                out.append((e["gen"], e["member"]))
        return out

    def rebalances(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.events[name] if e["t"] in ("revoked", "assigned", "lost")]

    def consumed_all(self, names: list[str], want: dict[int, int]) -> bool:
        for n in names:
            self.drain(n)
        got: dict[int, int] = {}
        for n in names:
            for p, o in self.records(n):
                got[p] = max(got.get(p, -1), o)
        return all(got.get(p, -1) + 1 >= w for p, w in want.items())

    def close(self) -> None:
        for name in list(self.events):
            with contextlib.suppress(Exception):
                self("close", name)
        super().close()

    def __enter__(self) -> GroupDriver:
        return self


def wait_for(cond, what: str, timeout: float = 60.0, step: float = 0.2):
    end = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            raise AssertionError(f"no {what} within {timeout}s")
        time.sleep(step)
