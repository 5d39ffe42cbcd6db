"""Per-topic config overrides and the defaults they override (``TopicConfigStore``).

Kafka's ``LogManager`` does not keep topic overrides itself: it asks its ``ConfigRepository``
(``fetchTopicConfigOverrides``; ZooKeeper's ``/config/topics/<topic>`` or the KRaft metadata
image) and merges them over the broker's defaults (``LogConfig.fromProps``), which a dynamic
broker config replaces (``reconfigureDefaultLogConfig``). This class is that repository for
the ``LogManager``, which builds it and asks it for each log's ``LogConfig``.

Without ZooKeeper the first log directory holds ``topic-config-overrides.json``, Moldau's
record of per-topic config overrides (Kafka keeps them in ZooKeeper):
``{"version": 1, "topics": {"<topic>": {"<config>": value}}}``. In ZooKeeper mode
(``source`` given) they are ``/config/topics/<topic>``, read at start for the topics found
on disk and given with each new log; no file is written.

Everything but ``load`` (called by ``LogManager.startup``) runs on the event loop.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from storage.durable_io import atomic_write
from storage.log_config import LogConfig, parse_stored_topic_overrides
from storage.log_dir_failure import LogDirError, LogDirFailureChannel

log = logging.getLogger(__name__)

TOPIC_OVERRIDES_FILE = "topic-config-overrides.json"
# Blocking: raw string configs of the named topics (``/config/topics/<t>`` in ZooKeeper mode).
TopicConfigSource = Callable[[Sequence[str]], Mapping[str, Mapping[str, str]]]
TOPIC_OVERRIDES_VERSION = 1
_OVERRIDES_FIX = "Restore it from a backup, or delete it to start with no per-topic config overrides."

__all__ = [
    "TOPIC_OVERRIDES_FILE",
    "TOPIC_OVERRIDES_VERSION",
    "TopicConfigSource",
    "TopicConfigStore",
]


class TopicConfigStore:
    """The topic defaults and each topic's overrides: ``LogConfig`` of a topic, persisted
    overrides (the file in ``log_dir``, or nothing written with a ZooKeeper ``source``)."""

    def __init__(
        self,
        log_dir: Path,
        defaults: Mapping[str, Any],
        failure_channel: LogDirFailureChannel,
        source: TopicConfigSource | None = None,
    ) -> None:
        self.log_dir = log_dir  # the first log dir: where the overrides file lives
        self.defaults = dict(defaults)
        self.failure_channel = failure_channel
        # ZooKeeper mode: overrides come from /config/topics (read at start), not the file.
        self.source = source
        self._overrides: dict[str, dict[str, Any]] = {}

    @property
    def path(self) -> Path:
        return self.log_dir / TOPIC_OVERRIDES_FILE

    # ------------------------------------------------------------------ reading

    def load(self, topics_on_disk: Callable[[], Sequence[str]]) -> None:
        """At start: the overrides file, or (ZooKeeper mode) the source's overrides of the
        topics ``topics_on_disk`` names. LogDirError if the file is unreadable or corrupt."""
        self._overrides = self._read() if self.source is None else self._fetch(topics_on_disk())

    def _read(self) -> dict[str, dict[str, Any]]:
        path = self.path
        if self.failure_channel.is_offline(self.log_dir):
            log.warning(
                "the first log dir %s is offline: %s is not read, topics get no config overrides",
                self.log_dir,
                TOPIC_OVERRIDES_FILE,
            )
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise LogDirError(
                f"cannot read {path}: {exc.strerror}; check that it is a readable file"
            ) from None
        except ValueError as exc:  # not UTF-8, not JSON
            raise LogDirError(f"{path} is corrupt ({exc}). {_OVERRIDES_FIX}") from None
        topics = data.get("topics", {}) if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("version") != TOPIC_OVERRIDES_VERSION
            or not isinstance(topics, dict)
            or not all(isinstance(v, dict) for v in topics.values())
        ):
            raise LogDirError(
                f"{path}: unsupported content (expected version {TOPIC_OVERRIDES_VERSION} and a "
                f'"topics" object of objects). {_OVERRIDES_FIX}'
            )
        return {str(k): dict(v) for k, v in topics.items()}

    def _fetch(self, topics: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Kafka's ``LogManager`` in ZooKeeper mode (``fetchTopicConfigOverrides``): the
        overrides of the topics found in the log dirs, from ``source``."""
        if not topics or self.source is None:
            return {}
        found = self.source(topics)
        return {t: parse_stored_topic_overrides(t, found[t]) for t in topics if found.get(t)}

    # ------------------------------------------------------------------ queries

    def overrides(self, topic: str) -> dict[str, Any]:
        """A copy of the overrides of ``topic`` ({} if none)."""
        return dict(self._overrides.get(topic, {}))

    def config(self, overrides: Mapping[str, Any] | None) -> LogConfig:
        """The defaults with ``overrides`` over them."""
        return LogConfig.from_values(self.defaults, overrides)

    def config_for(self, topic: str) -> LogConfig:
        """The config of ``topic``: the defaults with its stored overrides."""
        return LogConfig.from_values(self.defaults, self._overrides.get(topic))

    # ------------------------------------------------------------------ changes

    def set_defaults(self, defaults: Mapping[str, Any]) -> None:
        self.defaults = dict(defaults)

    def set_overrides(self, topic: str, overrides: Mapping[str, Any]) -> None:
        """Replace the overrides of ``topic`` (none: removed) and persist them; OSError if the
        file cannot be written (its dir is told; the new overrides stay in memory)."""
        if overrides:
            self._overrides[topic] = dict(overrides)
        else:
            self._overrides.pop(topic, None)
        self._write()

    def add_topic(self, topic: str, overrides: Mapping[str, Any]) -> None:
        """A new topic's overrides, persisted; on an OSError they are removed again (no
        overrides without the topic: its creation is undone as a whole) and it propagates."""
        self._overrides[topic] = dict(overrides)
        try:
            self._write()
        except OSError:
            del self._overrides[topic]
            with contextlib.suppress(OSError):
                self._write()
            raise

    def remove_topic(self, topic: str) -> None:
        """Forget the overrides of a topic no longer hosted (the file is written if it had any)."""
        if self._overrides.pop(topic, None) is not None:
            self._write()

    def _write(self) -> None:
        if self.source is not None:
            return  # ZooKeeper holds them
        data = {"version": TOPIC_OVERRIDES_VERSION, "topics": self._overrides}
        try:
            atomic_write(self.path, json.dumps(data, indent=2, sort_keys=True).encode() + b"\n")
        except OSError as exc:
            self.failure_channel.report(self.log_dir, exc, f"writing {TOPIC_OVERRIDES_FILE}")
            raise
