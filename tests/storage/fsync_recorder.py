"""Which thread fsyncs which file: ``os.fsync`` patched to record (thread, path) and pass through."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest


class FsyncRecorder:
    """The fsyncs made while installed, as (thread ident, path of the fd)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, str]] = []
        # Paths for which fsync raises OSError instead (an injected disk error).
        self.fail_if: Callable[[str], bool] | None = None
        # Called with the path before each fsync (to act "meanwhile", as another thread would).
        self.before: Callable[[str], None] | None = None

    def on_thread(self, thread: int) -> list[str]:
        return [p for t, p in self.calls if t == thread]

    def off_thread(self, thread: int) -> list[str]:
        return [p for t, p in self.calls if t != thread]

    def synced(self, path: Path) -> bool:
        real = os.path.realpath(path)
        return any(p == real for _t, p in self.calls)


def record_fsyncs(monkeypatch: pytest.MonkeyPatch) -> FsyncRecorder:
    """Patch ``os.fsync`` (every module calls it through ``os``) until the test ends."""
    recorder = FsyncRecorder()
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        if recorder.before is not None:
            recorder.before(path)
        if recorder.fail_if is not None and recorder.fail_if(path):
            raise OSError(5, "injected fsync failure", path)
        recorder.calls.append((threading.get_ident(), path))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return recorder
