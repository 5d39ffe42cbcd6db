"""Waiting for an observable condition in tests: poll with a deadline, never a bare sleep."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """``condition()``'s first truthy result, polled every 50 ms; fails with ``no <what>``
    when ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)
