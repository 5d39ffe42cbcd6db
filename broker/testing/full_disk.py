"""A simulated full disk: the broker's writes under chosen directories fail with ENOSPC.

Filling a real disk needs a small file system of its own (a tmpfs: root), which a
test suite of a user seldom has. Instead, while a directory is "full", the process's
``os.pwrite``, ``os.write``, ``os.pwritev`` and ``os.writev`` raise
``OSError(ENOSPC)`` for file descriptors that point under it (looked up in
``/proc/self/fd``: Linux only); every other write goes through untouched. Those are
the calls the broker's storage writes with (segment and index appends, checkpoints
and other small files written by ``storage.durable_io``), so a produce is answered
KAFKA_STORAGE_ERROR as on a real full disk: the log dir is marked full, not offline,
and the next write that succeeds after :func:`free` resumes it
(``storage/log_dir_failure.py``). Writes through Python file objects (``open().write``)
are not intercepted; the broker's hot paths do not use them.

The wrappers are installed while at least one directory is full and removed when
the last is freed.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_WRAPPED = ("pwrite", "write", "pwritev", "writev")

_lock = threading.Lock()
_full: dict[str, int] = {}  # resolved directory -> how many times it was filled
_full_dirs: tuple[str, ...] = ()  # its keys, read without the lock by the wrappers
_originals: dict[str, Callable[..., Any]] = {}


def _under_full_dir(fd: int) -> bool:
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False
    return any(target.startswith(d + os.sep) for d in _full_dirs)


def _wrap(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def write(fd: int, *args: Any) -> Any:
        if _full_dirs and _under_full_dir(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, *args)

    write.__name__ = name
    write.__wrapped__ = real  # type: ignore[attr-defined]
    return write


def fill(directory: str | Path) -> None:
    """Make writes to files under ``directory`` fail with ENOSPC (until :func:`free`)."""
    if not os.path.isdir("/proc/self/fd"):
        raise RuntimeError("the simulated full disk needs Linux's /proc/self/fd")
    global _full_dirs
    key = str(Path(directory).resolve())
    with _lock:
        _full[key] = _full.get(key, 0) + 1
        _full_dirs = tuple(_full)
        if not _originals:
            for name in _WRAPPED:
                real = getattr(os, name, None)
                if real is not None:
                    _originals[name] = real
                    setattr(os, name, _wrap(name, real))


def free(directory: str | Path) -> None:
    """Undo one :func:`fill` of ``directory``; writes there work again once none is left."""
    global _full_dirs
    key = str(Path(directory).resolve())
    with _lock:
        count = _full.get(key, 0)
        if count <= 1:
            _full.pop(key, None)
        else:
            _full[key] = count - 1
        _full_dirs = tuple(_full)
        if not _full and _originals:
            for name, real in _originals.items():
                setattr(os, name, real)
            _originals.clear()


def is_full(directory: str | Path) -> bool:
    return str(Path(directory).resolve()) in _full
