"""The state of each log dir after I/O errors (Kafka's ``LogDirFailureChannel``).

Kafka takes a log dir offline on any ``IOException`` in it: its partitions answer
KAFKA_STORAGE_ERROR until the broker restarts, and a broker whose dirs are all offline
shuts down. Moldau follows that for real I/O errors (EIO, EROFS, ...), with two knowing
differences (docs/COMPATIBILITY.md, "Disk errors"):

- a full disk (ENOSPC, EDQUOT) fails the write with KAFKA_STORAGE_ERROR but leaves the
  dir online: the next write that succeeds (space was freed) resumes normal service;
- a broker with every dir offline keeps running (answering KAFKA_STORAGE_ERROR for
  their partitions) so that its other duties and its log show what happened.

Each ``LogDirState`` logs one line per state change (full, space again, offline), never
one per failed operation. The partition logs of a dir share its state object, so the
check on the append and read paths is one attribute read. The channel's offline listeners
(``add_offline_listener``) hear of each dir going offline once, as Kafka's
``ReplicaManager.handleLogDirFailure`` does from the channel's queue.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

# Errors that say "no room", not "the disk is broken".
SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})

# Told the path of a log dir that just went offline.
OfflineListener = Callable[[Path], None]

__all__ = [
    "SPACE_ERRNOS",
    "LogDirError",
    "LogDirFailureChannel",
    "LogDirState",
    "OfflineListener",
    "is_space_error",
]


class LogDirError(RuntimeError):
    """A log directory that cannot be used (locked by another process, inconsistent metadata)."""


def is_space_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in SPACE_ERRNOS


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class LogDirState:
    """One log dir: online, full (writes fail, recoverable) or offline (until restart)."""

    __slots__ = ("_on_offline", "full", "offline", "path")

    def __init__(self, path: Path, on_offline: OfflineListener | None = None) -> None:
        self.path = path
        self.full = False
        self.offline = False
        self._on_offline = on_offline

    def report(self, exc: OSError, while_doing: str) -> None:
        """An I/O error in this dir while ``while_doing``: full, or offline from now on."""
        if self.offline:
            return
        if is_space_error(exc):
            if not self.full:
                self.full = True
                log.warning(
                    "log dir %s is full (%s while %s); writes to its partitions fail with "
                    "KAFKA_STORAGE_ERROR until space is freed",
                    self.path,
                    _reason(exc),
                    while_doing,
                )
            return
        self.take_offline(exc, while_doing)

    def take_offline(self, exc: BaseException, while_doing: str) -> None:
        """Offline from now on, whatever the error (a dir that failed to load at start)."""
        if self.offline:
            return
        self.offline = True
        # Kafka's LogDirFailureChannel.maybeAddOfflineLogDir / ReplicaManager.handleLogDirFailure
        log.error(
            "Error while %s in dir %s: %s. Stopping serving replicas in dir %s: they answer "
            "KAFKA_STORAGE_ERROR until the broker is restarted",
            while_doing,
            self.path,
            _reason(exc),
            self.path,
        )
        if self._on_offline is not None:
            self._on_offline(self.path)

    def write_succeeded(self) -> None:
        """A write in this dir worked: a full dir has space again."""
        if self.full:
            self.full = False
            log.info("log dir %s has space again; writes resume", self.path)


class LogDirFailureChannel:
    """The ``LogDirState`` of every log dir (Kafka's ``LogDirFailureChannel``)."""

    def __init__(self, dirs: list[Path]) -> None:
        self._listeners: list[OfflineListener] = []
        self._states = {d: LogDirState(d, self._went_offline) for d in dirs}

    def state(self, d: Path) -> LogDirState:
        found = self._states.get(d)
        if found is None:
            found = self._states[d] = LogDirState(d, self._went_offline)
        return found

    def is_offline(self, d: Path) -> bool:
        found = self._states.get(d)
        return found is not None and found.offline

    def offline_dirs(self) -> list[Path]:
        return [d for d, s in self._states.items() if s.offline]

    def report(self, d: Path, exc: OSError, while_doing: str) -> None:
        self.state(d).report(exc, while_doing)

    def take_offline(self, d: Path, exc: BaseException, while_doing: str) -> None:
        self.state(d).take_offline(exc, while_doing)

    def add_offline_listener(self, listener: OfflineListener) -> None:
        """``listener(dir)`` runs once for each dir that goes offline from now on (Kafka's
        ``LogDirFailureHandler`` taking ``takeNextOfflineLogDir`` to ``handleLogDirFailure``)."""
        self._listeners.append(listener)

    def _went_offline(self, d: Path) -> None:
        for listener in list(self._listeners):
            try:
                listener(d)
            except Exception:  # the I/O path that reported must not fail because of a listener
                log.exception("log dir offline listener failed for %s", d)
