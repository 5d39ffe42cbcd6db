"""Every partition log under ``log.dirs`` (Kafka's ``LogManager``).

Per log directory:

- ``meta.properties`` (``ensure_meta_properties``), ``.lock`` (held while running);
- ``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint`` and
  ``replication-offset-checkpoint`` (high watermarks), Kafka's text files,
  written atomically;
- ``.kafka_cleanshutdown``: written last by a clean ``shutdown``; at startup
  its presence skips recovery and it is removed. Without it, every segment
  from each partition's recovery point on is scanned and cut after its last
  valid batch (``PartitionLog``);
- ``<topic>-<partition>`` partition directories; ``-delete`` directories
  (deleted topics) are removed, ``-future``/``-stray`` ones are left alone.

Per-topic config overrides (``topic-config-overrides.json`` in the first log dir, or
ZooKeeper's ``/config/topics``) are kept by ``storage.topic_config_store``; the offset
checkpoint files are written by ``storage.log_dir_checkpoints`` and the periodic work runs
in ``storage.log_background``, both built here over the hosted logs.

Threading: ``startup`` and ``shutdown`` may run in an executor while nothing
else touches the logs; everything else runs on the event loop.
``run_background_tasks`` runs retention, flushing (fsync in the default
executor), checkpointing, producer expiry and the log cleaner
(``storage.log_cleaner``, when ``log.cleaner.enable``) until cancelled. Each log dir also
holds ``cleaner-offset-checkpoint`` (the first dirty offset of each compacted log).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from storage.broker_metadata import ensure_meta_properties, read_meta
from storage.checkpoints import (
    HIGH_WATERMARK_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    CheckpointError,
    OffsetCheckpointFile,
)
from storage.durable_io import atomic_write, fsync_dir
from storage.local_log import DELETE_DIR_SUFFIX, FUTURE_DIR_SUFFIX, STRAY_DIR_SUFFIX, parse_topic_partition
from storage.log_background import LogBackgroundTasks, LogManagerIntervals
from storage.log_cleaner import LogCleaner
from storage.log_cleaner_manager import CleanerConfig
from storage.log_config import LogConfig
from storage.log_creation import LogCreationPlan, build_logs, discard_logs, rename_for_deletion
from storage.log_dir_checkpoints import LogDirCheckpoints
from storage.log_dir_failure import LogDirError, LogDirFailureChannel
from storage.log_types import ProducerStateOptions
from storage.partition_log import PartitionLog
from storage.partition_metadata import (
    META_PROPERTIES_FILE,
    MetadataFileError,
    read_partition_metadata,
    uuid_to_kafka_str,
)
from storage.topic_config_store import TOPIC_OVERRIDES_FILE, TopicConfigSource, TopicConfigStore

log = logging.getLogger(__name__)

CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"
LOCK_FILE = ".lock"
PROGRESS_LOG_INTERVAL_S = 5.0

__all__ = [
    "CLEAN_SHUTDOWN_FILE",
    "TOPIC_OVERRIDES_FILE",
    "CleanerConfig",
    "LogManager",
    "LogManagerIntervals",
    "ProducerStateOptions",
    "TopicConfigSource",
    "TopicInfo",
]


def _ignore_flush_time(_seconds: float) -> None:
    """``LogManager.on_flush_time`` of a broker without metrics."""


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class TopicInfo:
    topic_id: uuid.UUID | None  # None: no log of the topic has its partition.metadata
    partitions: int
    overrides: dict[str, Any] = field(default_factory=dict)


class LogManager:
    def __init__(
        self,
        log_dirs: Sequence[Path],
        topic_defaults: Mapping[str, Any],
        *,
        producer_state: ProducerStateOptions | None = None,
        intervals: LogManagerIntervals | None = None,
        cleaner: CleanerConfig | None = None,
        time_ms: Callable[[], int] = _now_ms,
        topic_configs: TopicConfigSource | None = None,
    ) -> None:
        if not log_dirs:
            raise ValueError("log.dirs is empty")
        self.log_dirs = [Path(d) for d in log_dirs]
        self.producer_state_options = producer_state or ProducerStateOptions()
        self.intervals = intervals or LogManagerIntervals()
        self._time_ms = time_ms
        self._logs: dict[tuple[str, int], PartitionLog] = {}
        # How many partitions of each topic ``_logs`` holds: a deletion asks whether the
        # topic's last log went in O(1), not by a scan of every hosted log.
        self._hosted_partitions: dict[str, int] = {}
        self._topic_ids: dict[str, uuid.UUID] = {}
        # Topics whose first logs here are being made, with whether their config changed
        # meanwhile (Kafka's ``partitionsInitializing``): see ``initializing_logs_of``.
        self._initializing: dict[str, list] = {}
        self.failure_channel = LogDirFailureChannel(self.log_dirs)
        # The topic defaults and each topic's overrides (the file in the first log dir, or
        # ZooKeeper's /config/topics when topic_configs is given).
        self.topic_config_store = TopicConfigStore(
            self.log_dirs[0], topic_defaults, self.failure_channel, topic_configs
        )
        self._lock_fds: list[int] = []
        self._last_progress_log = 0.0
        self._started = False
        # Kafka's LogCleaner for compacted logs (storage.log_cleaner); without a config (tests
        # of other parts) it does not run.
        self.cleaner = LogCleaner(
            cleaner or CleanerConfig(enable=False),
            self.log_dirs,
            self.logs,
            time_ms=time_ms,
            failure_channel=self.failure_channel,
        )
        # The offset checkpoint files, and the periodic work (run_background_tasks).
        self.checkpoints = LogDirCheckpoints(
            self.log_dirs, self._logs, self.failure_channel, self.cleaner, lambda: self._started
        )
        self.background = LogBackgroundTasks(
            self._logs, self.intervals, time_ms, self.cleaner, self.checkpoints, self.flush_log
        )
        # For the broker's metrics: logs of each dir still to load at start (Kafka's
        # remainingLogsToRecover; written by the loading thread), and each flush's time.
        self.logs_to_recover: dict[str, int] = {}
        self.on_flush_time: Callable[[float], None] = _ignore_flush_time

    # ------------------------------------------------------------------ startup / shutdown

    def startup(self) -> None:
        """Lock the log dirs and load every partition (recovering after an unclean shutdown):
        ``open_dirs`` then ``load_logs``. A broker checks ``meta.properties`` between the two
        (``ensure_meta_properties``), as Kafka checks it before building its LogManager.

        As Kafka's ``createAndValidateLogDirs`` / ``lockLogDirs`` / ``loadLogs``: an I/O error
        in one dir (creating, locking, reading ``meta.properties``, loading a log) takes that
        dir offline, without its logs, and the others start; LogDirError when no dir is
        left (Kafka halts), for a dir another process holds, or for inconsistent metadata.
        """
        self.open_dirs()
        self.load_logs()

    def open_dirs(self) -> None:
        """Create and lock the log dirs and read their ``meta.properties`` (a dir failing any
        of it goes offline; LogDirError when none is left). Nothing is written."""
        failures: dict[Path, tuple[BaseException, str, str]] = {}
        for d in self.log_dirs:
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                failures[d] = (
                    exc,
                    "creating the log dir",
                    f"cannot create log dir {d}: {exc.strerror}; check log.dirs",
                )
                continue
            self._lock_dir(d, failures)
        # Kafka reads every meta.properties before loading any log: a bad one stops the
        # broker before a possibly long recovery.
        for d in self.log_dirs:
            if d not in failures:
                try:
                    read_meta(d)
                except OSError as exc:
                    path = d / META_PROPERTIES_FILE
                    why = f"cannot read {path}: {exc.strerror}; check that it is a readable file"
                    failures[d] = (exc, f"reading {path}", why)
        self._take_offline_or_halt(failures)

    def load_logs(self) -> None:
        """Load every partition of the open dirs (after ``open_dirs``)."""
        self.topic_config_store.load(self._topics_on_disk)
        started = time.monotonic()
        failures = {}
        for d in self._online_dirs():
            try:
                self._load_dir(d)
            except (OSError, KafkaError) as exc:
                # LogManager.loadLogs: handleIOException -> the dir goes offline.
                self._drop_logs_of(d)
                failures[d] = (exc, "loading logs", f"cannot load the logs of {d}: {exc}")
        self._take_offline_or_halt(failures)
        self.cleaner.manager.load_checkpoints()
        self._started = True
        log.info(
            "loaded %d partition logs of %d topics from %s in %.0f ms",
            len(self._logs),
            len(self._topic_ids),
            ", ".join(str(d) for d in self._online_dirs()),
            (time.monotonic() - started) * 1000,
        )

    def _online_dirs(self) -> list[Path]:
        return [d for d in self.log_dirs if not self.failure_channel.is_offline(d)]

    def _take_offline_or_halt(self, failures: Mapping[Path, tuple[BaseException, str, str]]) -> None:
        """The dirs that failed a step of ``startup`` go offline (one ERROR line each), unless
        no dir would be left: then LogDirError (Kafka's createAndValidateLogDirs halts), with
        nothing logged before it when it is the only dir."""
        if not failures:
            return
        if all(d in failures or self.failure_channel.is_offline(d) for d in self.log_dirs):
            reasons = [why for _, _, why in failures.values()]
            if len(self.log_dirs) == 1:
                raise LogDirError(reasons[0])
            raise LogDirError(
                f"Shutdown broker because none of the specified log dirs from "
                f"{', '.join(str(d) for d in self.log_dirs)} can be used: {'; '.join(reasons)}"
            )
        for d, (exc, while_doing, _) in failures.items():
            self.failure_channel.take_offline(d, exc, while_doing)

    def _drop_logs_of(self, d: Path) -> None:
        """Forget the logs of a dir that failed to load (and the ids of topics left without a log)."""
        for key in [k for k, plog in self._logs.items() if plog.dir.parent == d]:
            with contextlib.suppress(Exception):
                self._logs[key].close_handlers()
            del self._logs[key]
        self._hosted_partitions = {}
        for topic, _ in self._logs:
            self._hosted_partitions[topic] = self._hosted_partitions.get(topic, 0) + 1
        self._topic_ids = {t: i for t, i in self._topic_ids.items() if t in self._hosted_partitions}
        self.logs_to_recover[str(d)] = 0

    def _lock_dir(self, d: Path, failures: dict[Path, tuple[BaseException, str, str]]) -> None:
        """Kafka's ``LogManager.lockLogDirs``: an exclusive ``flock`` on ``.lock``, held until
        shutdown. A lock held elsewhere stops the broker (LogDirError); an I/O error is the
        dir's failure."""
        try:
            fd = os.open(d / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            why = f"cannot open {d / LOCK_FILE}: {exc.strerror}; check the permissions of {d}"
            failures[d] = (exc, "locking the log dir", why)
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LogDirError(
                f"Failed to acquire lock on file .lock in {d}. A Kafka instance in another process "
                "or thread is using this directory. Stop that broker, or give this one other log.dirs."
            ) from None
        except OSError as exc:
            os.close(fd)
            failures[d] = (exc, "locking the log dir", f"cannot lock {d / LOCK_FILE}: {exc.strerror}")
            return
        self._lock_fds.append(fd)

    def _read_offsets(self, d: Path, name: str) -> dict[tuple[str, int], int]:
        try:
            return OffsetCheckpointFile(d / name).read()
        except (CheckpointError, OSError, UnicodeDecodeError) as exc:
            # Kafka: "Error occurred while reading ... resetting to empty"; recovery covers it.
            log.warning("ignoring unreadable %s: %s", d / name, exc)
            return {}

    def _load_dir(self, d: Path) -> None:
        marker = d / CLEAN_SHUTDOWN_FILE
        clean = marker.exists()
        recovery_points = self._read_offsets(d, RECOVERY_POINT_CHECKPOINT)
        start_offsets = self._read_offsets(d, LOG_START_OFFSET_CHECKPOINT)
        high_watermarks = self._read_offsets(d, HIGH_WATERMARK_CHECKPOINT)
        with os.scandir(d) as listing:
            # Sorted by name (as Paths would be, for a cheaper comparison).
            entries = [d / name for name in sorted(e.name for e in listing if e.is_dir())]
        configs: dict[str, LogConfig] = {}  # one (immutable) config per topic
        if not clean and any(parse_topic_partition(p.name) for p in entries):
            log.info("%s: no clean shutdown marker; recovering unflushed segments", d)
        remaining = sum(1 for p in entries if parse_topic_partition(p.name) is not None)
        self.logs_to_recover[str(d)] = remaining
        for path in entries:
            name = path.name
            if name.endswith(DELETE_DIR_SUFFIX):
                log.info("removing deleted partition directory %s", path)
                shutil.rmtree(path, ignore_errors=True)
                continue
            if name.endswith((FUTURE_DIR_SUFFIX, STRAY_DIR_SUFFIX)):
                log.warning("skipping %s (future and stray replicas are not supported)", path)
                continue
            parsed = parse_topic_partition(name)
            if parsed is None:
                continue
            if parsed in self._logs:
                raise LogDirError(
                    f"Duplicate log directories for {name}: {self._logs[parsed].dir} and {path}"
                )
            topic, _ = parsed
            topic_id = self._topic_id_for(path, topic)
            config = configs.get(topic)
            if config is None:
                config = configs[topic] = self.topic_config_store.config_for(topic)
            plog = PartitionLog(
                path,
                config,
                topic_id=topic_id,
                log_start_offset=start_offsets.get(parsed, 0),
                recovery_point=recovery_points.get(parsed, 0),
                high_watermark=high_watermarks.get(parsed, 0),
                had_clean_shutdown=clean,
                producer_state=self.producer_state_options,
                time_ms=self._time_ms,
                progress=self._log_progress,
            )
            self._register(plog)
            remaining -= 1
            self.logs_to_recover[str(d)] = remaining
        self.logs_to_recover[str(d)] = 0  # skipped directories were counted too
        if clean:
            marker.unlink()
            fsync_dir(d)

    def _topic_id_for(self, path: Path, topic: str) -> uuid.UUID | None:
        """The log's topic id from its ``partition.metadata``; None when the file is missing (a
        crash between the directory's creation and the file's write) or unreadable: Kafka's
        ``UnifiedLog.initializeTopicId`` leaves such a log without an id until the controller's
        (LeaderAndIsr, or the embedded registry) assigns one (``assign_topic_id``)."""
        try:
            topic_id = read_partition_metadata(path)
        except (MetadataFileError, ValueError) as exc:
            # Content that does not parse is rewritten once an id is assigned (Kafka would fail
            # the dir). An I/O error propagates: the dir goes offline and the file keeps its id
            # (Kafka's PartitionMetadataFile.read -> LogDirFailureChannel, KafkaStorageException).
            log.warning(
                "%s: unreadable partition.metadata (%s); it is rewritten with the topic's id", path, exc
            )
            topic_id = None
        known = self._topic_ids.get(topic)
        if topic_id is None:
            log.info("%s: no topic id (partition.metadata missing); waiting for the controller's", path)
            self._topic_ids.setdefault(topic, None)
            return None
        if known is not None and known != topic_id:
            raise LogDirError(
                f"{path}: topic id {uuid_to_kafka_str(topic_id)} differs from "
                f"{uuid_to_kafka_str(known)} of the other partitions of {topic}"
            )
        self._topic_ids[topic] = topic_id
        return topic_id

    def _log_progress(self, what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last_progress_log >= PROGRESS_LOG_INTERVAL_S:
            self._last_progress_log = now
            log.info(
                "recovering %s: %d of %d bytes (%.0f%%)", what, done, total, 100.0 * done / max(total, 1)
            )

    def _register(self, plog: PartitionLog) -> None:
        key = (plog.topic, plog.partition)
        if key not in self._logs:
            self._hosted_partitions[plog.topic] = self._hosted_partitions.get(plog.topic, 0) + 1
        self._logs[key] = plog
        plog.on_flush_needed = self.background.request_flush
        plog.on_epoch_checkpoint_dirty = self.background.request_epoch_checkpoint
        plog.on_truncated = self._lower_cleaner_checkpoint
        plog.dir_state = self.failure_channel.state(plog.dir.parent)

    def _lower_cleaner_checkpoint(self, plog: PartitionLog) -> None:
        """A compacted log truncated below its cleaner checkpoint: the checkpoint comes down to
        the active segment's base offset, so what is written again there is dirty (Kafka's
        ``LogManager.maybeTruncateCleanerCheckpointToActiveSegmentBaseOffset``)."""
        if not plog.config.compact:
            return
        manager = self.cleaner.manager
        checkpoint = manager.checkpoint(plog)
        active = plog.segments()[-1].base_offset
        if checkpoint is not None and checkpoint > active:
            manager.update_checkpoint(plog, active)

    def shutdown(self) -> None:
        """Flush, snapshot and close every log, write checkpoints and the clean-shutdown marker.

        After a failed ``startup`` only the locks are released: the dirs may belong to
        another broker (lock refused) or were not fully loaded, so nothing is written.
        """
        if not self._started:
            for plog in list(self._logs.values()):
                with contextlib.suppress(Exception):
                    plog.close_handlers()
            self._logs.clear()
            self._hosted_partitions.clear()
            self._release_locks()
            return
        failed_dirs: set[Path] = set(self.failure_channel.offline_dirs())
        for plog in list(self._logs.values()):
            if plog.dir.parent in failed_dirs:
                plog.close_handlers()
                continue
            try:
                plog.mark_flushed(plog.flush())
                plog.leader_epoch_cache.flush()  # an empty cache's cut, left unwritten at load
                plog.close()
            except (OSError, KafkaError) as exc:  # KafkaError: the epoch checkpoint's write
                log.error("%s: error while closing: %s", plog.name, exc)
                failed_dirs.add(plog.dir.parent)
            except Exception:
                log.exception("%s: error while closing", plog.name)
                failed_dirs.add(plog.dir.parent)
        self.cleaner.write_checkpoints_now(
            k for k, plog in self._logs.items() if plog.dir.parent not in failed_dirs
        )
        failed_dirs.update(self.failure_channel.offline_dirs())  # a failed cleaner checkpoint
        for d in self.log_dirs:
            if d in failed_dirs:
                continue
            try:
                self.checkpoints.write_files(d, self.checkpoints.data(d))
            except OSError as exc:
                log.error("%s: cannot write checkpoints: %s", d, exc)
                failed_dirs.add(d)
        self.background.delete_pending_dirs()
        for d in self.log_dirs:
            if d in failed_dirs:
                log.warning("%s: not marked clean; its logs will be recovered at the next start", d)
                continue
            # Kafka 3.7+ (CleanShutdownFileHandler) writes this JSON; older Kafka an empty file.
            try:
                atomic_write(d / CLEAN_SHUTDOWN_FILE, b'{"version":0,"brokerEpoch":-1}')
            except OSError as exc:
                log.error(
                    "%s: cannot write %s (%s); its logs will be recovered at the next start",
                    d,
                    CLEAN_SHUTDOWN_FILE,
                    exc,
                )
        self._release_locks()
        self._logs.clear()
        self._hosted_partitions.clear()
        self._started = False
        log.info("log manager shut down cleanly")

    def _release_locks(self) -> None:
        for fd in self._lock_fds:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        self._lock_fds.clear()

    # ------------------------------------------------------------------ meta.properties

    def ensure_meta_properties(self, broker_id: int, cluster_id: str | None) -> tuple[int, str]:
        """Check or write ``meta.properties`` in every online log dir; returns (broker id,
        cluster id). See ``storage.broker_metadata.ensure_meta_properties``."""
        return ensure_meta_properties(self.log_dirs, self.failure_channel, broker_id, cluster_id)

    # ------------------------------------------------------------------ queries

    def get_log(self, topic: str, partition: int) -> PartitionLog | None:
        return self._logs.get((topic, partition))

    def logs(self) -> list[PartitionLog]:
        return list(self._logs.values())

    def assign_topic_id(self, plog: PartitionLog, topic_id: uuid.UUID) -> None:
        """Give a log loaded without a topic id the controller's (``PartitionLog.assign_topic_id``,
        Kafka's ``Partition.checkOrSetTopicId``); KafkaError(KAFKA_STORAGE_ERROR) if the file
        cannot be written."""
        plog.assign_topic_id(topic_id)
        if self._topic_ids.get(plog.topic) is None:
            self._topic_ids[plog.topic] = topic_id

    def assign_missing_topic_ids(self, topic: str, topic_id: uuid.UUID) -> None:
        """Embedded mode: the logs of ``topic`` loaded without a topic id take the registry's
        (``topic_id``: a sibling partition's, or a new one when no log of the topic had one).
        A log whose file cannot be written is left without (its dir is told)."""
        for (name, _), plog in self._logs.items():
            if name == topic and plog.topic_id is None:
                with contextlib.suppress(KafkaError):
                    self.assign_topic_id(plog, topic_id)
        self._topic_ids[topic] = topic_id

    def topics(self) -> dict[str, TopicInfo]:
        """The topics the log dirs hold (ids from ``partition.metadata``: None when no log of the
        topic has one, overrides from the overrides file). The controller loads its registry
        from this once at start; after that the registry is the controller's and this is only
        what the broker hosts."""
        counts: dict[str, int] = {}
        for topic, _ in self._logs:
            counts[topic] = counts.get(topic, 0) + 1
        return {
            name: TopicInfo(self._topic_ids[name], n, self.topic_config_store.overrides(name))
            for name, n in sorted(counts.items())
        }

    def topic_config(self, name: str) -> LogConfig:
        return self.topic_config_store.config_for(name)

    # ------------------------------------------------------------------ topic changes

    def create_topic(
        self, name: str, partitions: int, topic_id: uuid.UUID, overrides: Mapping[str, Any]
    ) -> list[PartitionLog]:
        """Create ``partitions`` empty partition logs with their ``partition.metadata`` (at once,
        on the calling thread: for small counts; large ones go through ``plan_topic``)."""
        plan = self.plan_topic(name, partitions, topic_id, overrides)
        return self._create_now(plan)

    def add_partitions(self, name: str, new_total: int) -> list[PartitionLog]:
        plan = self.plan_partitions(name, new_total)
        return self._create_now(plan)

    def _create_now(self, plan: LogCreationPlan) -> list[PartitionLog]:
        """``build_logs`` and ``commit_logs`` on the calling thread (small creations)."""
        try:
            logs = build_logs(plan)
        except OSError as exc:
            raise self.creation_error(plan, exc) from None
        try:
            return self.commit_logs(plan, logs)
        except BaseException:
            discard_logs(logs, plan.dirs)
            raise

    def creation_error(self, plan: LogCreationPlan, exc: BaseException) -> BaseException:
        """What a failed ``build_logs`` answers: an I/O error is reported to the log dir's
        failure channel (Kafka's ``LogManager.getOrCreateLog``: an IOException is a log dir
        failure) and becomes KAFKA_STORAGE_ERROR for the topic; anything else is unchanged."""
        if not isinstance(exc, OSError):
            return exc
        failed = next(
            (d for d in self.log_dirs if exc.filename and str(exc.filename).startswith(str(d))), None
        )
        where = failed or (plan.dirs[0].parent if plan.dirs else self.log_dirs[0])
        self.failure_channel.report(where, exc, f"creating logs of {plan.topic}")
        return _storage_error(exc, f"creating logs of {plan.topic}")

    def plan_topic(
        self, name: str, partitions: int, topic_id: uuid.UUID, overrides: Mapping[str, Any]
    ) -> LogCreationPlan:
        """On the loop: check and choose the dirs of a new topic's partitions; the files are
        made by ``build_logs`` (in an executor) and registered by ``commit_logs``."""
        if name in self._topic_ids:
            raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        if partitions <= 0:
            raise KafkaError(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
        return self._plan(name, range(partitions), topic_id, dict(overrides), new_topic=True)

    def plan_partitions(self, name: str, new_total: int) -> LogCreationPlan:
        """On the loop: the plan of growing ``name`` to ``new_total`` partitions."""
        info = self.topics().get(name)
        if info is None:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist.")
        if new_total <= info.partitions:
            raise KafkaError(
                ErrorCode.INVALID_PARTITIONS,
                f"Topic currently has {info.partitions} partitions, which is higher than the requested {new_total}.",
            )
        return self._plan(name, range(info.partitions, new_total), info.topic_id, None, new_topic=False)

    def _plan(
        self,
        name: str,
        partitions: range,
        topic_id: uuid.UUID,
        overrides: dict[str, Any] | None,
        *,
        new_topic: bool,
    ) -> LogCreationPlan:
        for p in partitions:
            if (name, p) in self._logs:
                raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Partition {name}-{p} already exists.")
        online = [d for d in self.log_dirs if not self.failure_channel.is_offline(d)]
        if not online:
            raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, "All log dirs are offline")
        if len(online) == 1:
            # Cheap with one dir: a Metadata request may auto-create many topics.
            dirs = [online[0] / f"{name}-{p}" for p in partitions]
        else:
            # Kafka's ``nextLogDirs``: each new partition goes to the online dir holding the
            # fewest; a dir known to be full (it stays online, see storage.log_dir_failure)
            # comes last.
            counts = {d: 0 for d in online}
            for plog in self._logs.values():
                parent = plog.dir.parent
                if parent in counts:
                    counts[parent] += 1
            dirs = []
            for p in partitions:
                d = min(online, key=lambda d: (self.failure_channel.state(d).full, counts[d]))
                counts[d] += 1
                dirs.append(d / f"{name}-{p}")
        store = self.topic_config_store
        config = store.config(overrides) if new_topic else store.config_for(name)
        return LogCreationPlan(
            name,
            topic_id,
            list(partitions),
            dirs,
            config,
            self.producer_state_options,
            self._time_ms,
            overrides,
            new_topic,
        )

    def commit_logs(self, plan: LogCreationPlan, logs: Sequence[PartitionLog]) -> list[PartitionLog]:
        """On the loop: host the logs ``build_logs`` made (the topic's id and overrides too).
        On a failure nothing is hosted (the caller discards the logs)."""
        if plan.new_topic:
            if plan.topic in self._topic_ids:
                raise KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{plan.topic}' already exists.")
            if plan.overrides:
                try:
                    self.topic_config_store.add_topic(plan.topic, plan.overrides)
                except OSError as exc:
                    # No overrides without the topic: the creation is undone as a whole.
                    raise _storage_error(exc, f"creating topic {plan.topic}") from None
            self._topic_ids[plan.topic] = plan.topic_id
        for plog in logs:
            self._register(plog)
        # DEBUG: the controller (or LeaderAndIsr, or the offsets topic's creation, one call per
        # partition) says what was created at INFO; fifty lines per new __consumer_offsets is noise.
        log.debug("created %d partition logs of %s", len(logs), plan.topic)
        return list(logs)

    def delete_topic(self, name: str) -> None:
        """Kafka's ``asyncDelete``: each partition dir is renamed ``<dir>.<uuid>-delete``, then
        removed (at once, on the calling thread; the broker uses ``detach_topic``)."""
        self.dirs_renamed_for_deletion(rename_for_deletion(self.detach_topic(name)))

    def detach_topic(self, name: str) -> list[PartitionLog]:
        """On the loop: stop hosting ``name``; its logs are returned for
        ``rename_for_deletion`` (the file work, in an executor)."""
        if name not in self._topic_ids:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic.")
        logs = [self._logs.pop(key) for key in sorted(k for k in self._logs if k[0] == name)]
        self._hosted_partitions.pop(name, None)
        for plog in logs:
            self.cleaner.manager.forget(plog.topic, plog.partition)
        del self._topic_ids[name]
        self.topic_config_store.remove_topic(name)
        self.checkpoints.after_deletion(plog.dir.parent for plog in logs)
        log.info("deleted topic %s", name)
        return logs

    def get_or_create_log(
        self, topic: str, partition: int, topic_id: uuid.UUID, overrides: Mapping[str, Any]
    ) -> PartitionLog:
        """One partition's log, created empty if missing (Kafka's ``LogManager.getOrCreateLog``
        for ``Partition.createLogIfNotExists``): a broker hosts only the partitions it is a
        replica of. The first log of a topic records its id and ``overrides``."""
        found = self._logs.get((topic, partition))
        if found is not None:
            return found
        new_topic = topic not in self._topic_ids
        plan = self._plan(
            topic,
            range(partition, partition + 1),
            topic_id if new_topic else self._topic_ids[topic] or topic_id,
            dict(overrides) if new_topic else None,
            new_topic=new_topic,
        )
        return self._create_now(plan)[0]

    def delete_log(self, topic: str, partition: int) -> bool:
        """Kafka's ``asyncDelete`` of one partition, at once on the calling thread: the dir is
        renamed ``<dir>.<uuid>-delete`` now and removed by the background task. False if not
        hosted; an OSError of the rename is raised (the log is no longer hosted). The broker's
        StopReplica uses ``detach_log``, ``rename_each_for_deletion`` (in an executor) and
        ``logs_renamed_for_deletion`` instead."""
        plog = self.detach_log(topic, partition)
        if plog is None:
            return False
        self.logs_renamed_for_deletion([plog], rename_for_deletion([plog]))
        return True

    def detach_log(self, topic: str, partition: int) -> PartitionLog | None:
        """On the loop: stop hosting one partition (StopReplica with delete), so that nothing
        new reaches its log (the flusher, retention, checkpoints and the cleaner go by the
        hosted logs; a cleaning in progress stops at the close). Returns the log, still open
        and in its dir, for ``rename_for_deletion`` / ``rename_each_for_deletion`` (the file
        work, in an executor), then ``logs_renamed_for_deletion``; None if not hosted. The
        topic's id and overrides go with its last hosted partition."""
        plog = self._logs.pop((topic, partition), None)
        if plog is None:
            return None
        left = self._hosted_partitions.get(topic, 1) - 1
        if left > 0:
            self._hosted_partitions[topic] = left
        else:
            self._hosted_partitions.pop(topic, None)
            self._topic_ids.pop(topic, None)
            try:
                self.topic_config_store.remove_topic(topic)
            except OSError as exc:  # the overrides file (not ZooKeeper's): its dir was told
                log.error("cannot remove the overrides of deleted topic %s: %s", topic, exc)
        self.cleaner.manager.forget(topic, partition)
        return plog

    def logs_renamed_for_deletion(self, logs: Sequence[PartitionLog], renamed: list[Path]) -> None:
        """On the loop, after the file work of deleting detached ``logs``: their ``-delete``
        dirs (``renamed``) are queued for removal, and the checkpoints of their log dirs are
        written without them (once per dir, off the loop when the background tasks run)."""
        self.dirs_renamed_for_deletion(renamed)
        self.checkpoints.after_deletion(dict.fromkeys(plog.dir.parent for plog in logs))
        if len(logs) == 1:
            log.info("deleted log of partition %s-%d", logs[0].topic, logs[0].partition)
        elif logs:
            log.info("deleted %d partition logs (%s)", len(logs), ", ".join(sorted({p.topic for p in logs})))

    def dirs_renamed_for_deletion(self, renamed: list[Path]) -> None:
        """On the loop: queue the renamed dirs for removal (now, without background tasks)."""
        self.background.dirs_renamed_for_deletion(renamed)

    # ------------------------------------------------------------------ topic configs

    @property
    def topic_defaults(self) -> dict[str, Any]:
        return self.topic_config_store.defaults

    @property
    def topic_configs(self) -> TopicConfigSource | None:
        """ZooKeeper mode: where the overrides come from (None: the overrides file)."""
        return self.topic_config_store.source

    def set_topic_overrides(self, name: str, overrides: Mapping[str, Any]) -> None:
        """Replace a topic's config overrides (persisted), and apply them to its logs."""
        if name not in self._topic_ids:
            raise KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist.")
        self.topic_config_store.set_overrides(name, overrides)
        config = self.topic_config_store.config_for(name)
        for (topic, _), plog in self._logs.items():
            if topic == name:
                plog.config = config

    def initializing_logs_of(self, topic: str) -> None:
        """Kafka's ``initializingLog``: logs of ``topic`` are about to be made with overrides
        read before they are hosted; a change of them meanwhile (``topic_config_updated``,
        which finds nothing hosted to apply it to) must be read again once they are
        (``take_topic_config_change``). Paired with ``finished_initializing_logs_of``."""
        entry = self._initializing.setdefault(topic, [0, False])
        entry[0] += 1

    def topic_config_updated(self, topic: str) -> None:
        """Kafka's ``topicConfigUpdated``: ``topic``'s overrides changed in ZooKeeper."""
        entry = self._initializing.get(topic)
        if entry is not None:
            entry[1] = True

    def take_topic_config_change(self, topic: str) -> bool:
        """Whether ``topic``'s overrides changed since the last call (or since
        ``initializing_logs_of``); the mark is cleared."""
        entry = self._initializing.get(topic)
        if entry is None or not entry[1]:
            return False
        entry[1] = False
        return True

    def finished_initializing_logs_of(self, topic: str) -> None:
        """Kafka's ``finishedInitializingLog`` (the caller has read the changed config again)."""
        entry = self._initializing[topic]
        entry[0] -= 1
        if entry[0] == 0:
            del self._initializing[topic]

    def topic_overrides(self, name: str) -> dict[str, Any] | None:
        """The config overrides of a topic hosted here ({} if none), None if not hosted."""
        if name not in self._topic_ids:
            return None
        return self.topic_config_store.overrides(name)

    def set_topic_defaults(self, defaults: Mapping[str, Any]) -> None:
        """Kafka's ``LogManager.reconfigureDefaultLogConfig`` (a dynamic broker config changed):
        new topic defaults, and a new config for every log (those without an override of a
        changed key take the new default)."""
        self.topic_config_store.set_defaults(defaults)
        configs: dict[str, LogConfig] = {}
        for (topic, _), plog in self._logs.items():
            config = configs.get(topic)
            if config is None:
                config = configs[topic] = self.topic_config_store.config_for(topic)
            plog.config = config

    def _topics_on_disk(self) -> list[str]:
        """The topics of the partition dirs in the online log dirs (before they are loaded)."""
        return sorted(
            {
                parsed[0]
                for d in self._online_dirs()
                for p in d.iterdir()
                if p.is_dir() and (parsed := parse_topic_partition(p.name)) is not None
            }
        )

    # ------------------------------------------------------------------ checkpoints, background tasks

    def checkpoint_now(self) -> None:
        """Write all three checkpoints of every log dir (synchronously)."""
        self.checkpoints.write_all_now()

    async def flush_log(self, plog: PartitionLog, up_to: int | None = None) -> int:
        """fsync a log in the default executor, then advance its recovery point on the loop."""
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        try:
            offset = await loop.run_in_executor(None, plog.flush, up_to)
            self.on_flush_time(time.monotonic() - started)
        except OSError as exc:
            # Kafka's UnifiedLog.flush: a failed fsync takes the dir offline (the data may
            # be lost). The recovery point stays where it was.
            plog.dir_state.report(exc, f"flushing {plog.name}")
            return plog.recovery_point
        if not plog.closed:
            plog.mark_flushed(offset, self._time_ms())
        return offset

    async def run_background_tasks(self) -> None:
        """Retention, flush, checkpoints, producer expiry and the log cleaner, until cancelled."""
        await self.background.run()


def _storage_error(exc: KafkaError | OSError, while_doing: str) -> KafkaError:
    """A creation's failure as the KafkaError the handlers answer per topic."""
    if isinstance(exc, KafkaError):
        return exc
    return KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, f"Error while {while_doing}: {exc.strerror or exc}")
