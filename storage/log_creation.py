"""The file work of creating and deleting partition logs, safe in an executor.

A creation is decided on the event loop (``LogManager.plan_topic`` / ``plan_partitions``
make a ``LogCreationPlan``), built anywhere by ``build_logs`` (each partition's directory,
``partition.metadata``, its empty segment, one parent-dir fsync; undone by ``discard_logs``
on failure or cancellation) and registered on the loop by ``LogManager.commit_logs``. A
deletion detaches the logs on the loop and ``rename_for_deletion`` closes them and renames
their dirs ``-delete`` (Kafka's ``LogManager.asyncDelete``), removed later by the manager;
``rename_each_for_deletion`` (StopReplica) does the same for every log whatever the others'
errors. Either fsyncs each parent dir once. These functions touch only the plan's or the
logs' own directories: a creation that finds a partition dir with files in it (a deleted
log's, not renamed yet) fails without removing it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage.durable_io import fsync_dir
from storage.local_log import DELETE_DIR_SUFFIX
from storage.log_config import LogConfig
from storage.log_dir_failure import LogDirError
from storage.log_types import ProducerStateOptions
from storage.partition_log import PartitionLog
from storage.partition_metadata import write_partition_metadata


@dataclass
class LogCreationPlan:
    """Partition logs to create: decided on the loop, built by ``build_logs`` anywhere."""

    topic: str
    topic_id: uuid.UUID
    partitions: list[int]
    dirs: list[Path]
    config: LogConfig
    producer_state: ProducerStateOptions
    time_ms: Callable[[], int]
    overrides: dict[str, Any] | None
    new_topic: bool
    # The leader epoch the new partitions will be led in, when known: recorded in each
    # leader-epoch-checkpoint here (an fsync per partition) so that becoming leader finds
    # it there and writes nothing on the loop.
    leader_epoch: int | None = None


def build_logs(plan: LogCreationPlan, cancelled: Callable[[], bool] = lambda: False) -> list[PartitionLog]:
    """The file work of a creation, safe in an executor (touches only the plan's own dirs):
    each partition's directory, ``partition.metadata``, parent-dir fsync and empty segment.
    On an error or ``cancelled()``, what was made is closed and removed again."""
    logs: list[PartitionLog] = []
    made: list[Path] = []  # what a failure removes: never a dir that was there with files
    try:
        for path in plan.dirs:
            if cancelled():
                raise CreationCancelled(plan.topic)
            if path.exists() and any(path.iterdir()):
                # Another log's files (one being deleted: its rename to ``-delete`` may not
                # have run yet): neither taken nor removed.
                raise LogDirError(f"{path} already exists and is not empty")
            made.append(path)
            path.mkdir(parents=True, exist_ok=True)
            write_partition_metadata(path, plan.topic_id)
            plog = PartitionLog(
                path,
                plan.config,
                topic_id=plan.topic_id,
                producer_state=plan.producer_state,
                time_ms=plan.time_ms,
            )
            logs.append(plog)
            if plan.leader_epoch is not None:
                plog.leader_epoch_cache.assign(plan.leader_epoch, plog.log_end_offset)
        # The new directories' entries: one fsync per parent, before the logs are hosted.
        for parent in dict.fromkeys(path.parent for path in plan.dirs):
            fsync_dir(parent)
    except BaseException:
        discard_logs(logs, made)
        raise
    return logs


def split_plan(plan: LogCreationPlan, size: int) -> list[LogCreationPlan]:
    """``plan`` in parts of at most ``size`` partitions (built in parallel threads)."""
    return [
        dataclasses.replace(plan, partitions=plan.partitions[i : i + size], dirs=plan.dirs[i : i + size])
        for i in range(0, len(plan.dirs), size)
    ]


def discard_logs(logs: Sequence[PartitionLog], dirs: Sequence[Path]) -> None:
    """Undo ``build_logs`` (safe in an executor): close the logs and remove their dirs."""
    for plog in logs:
        with contextlib.suppress(Exception):
            plog.close_handlers()
    for path in dirs:
        shutil.rmtree(path, ignore_errors=True)


class CreationCancelled(Exception):
    """``build_logs`` stopped because its creation was abandoned."""


def rename_for_deletion(logs: Sequence[PartitionLog]) -> list[Path]:
    """The file work of a deletion, safe in an executor once the logs are detached: close
    each log, rename its dir ``<dir>.<uuid>-delete`` (Kafka's ``asyncDelete``), then fsync
    each parent once. The first OSError stops it (the dirs renamed before are fsynced)."""
    renamed: list[Path] = []
    try:
        for plog in logs:
            renamed.append(_rename_one(plog))
    finally:
        _fsync_parents(renamed)
    return renamed


def rename_each_for_deletion(logs: Sequence[PartitionLog]) -> list[Path | OSError]:
    """As ``rename_for_deletion`` (in an executor, the logs detached), every log whatever
    the others did: each log's ``-delete`` dir, or the OSError that stopped its close or
    rename (its dir stays where it was). One fsync per parent of the dirs renamed."""
    results: list[Path | OSError] = []
    try:
        for plog in logs:
            try:
                results.append(_rename_one(plog))
            except OSError as exc:
                results.append(exc)
    finally:
        _fsync_parents([r for r in results if isinstance(r, Path)])
    return results


def _rename_one(plog: PartitionLog) -> Path:
    """Close ``plog`` and rename its dir to a new ``-delete`` name (a uuid in it: a later log
    of the same partition, deleted in turn, never meets this one's dir)."""
    plog.close_handlers()
    target = plog.dir.with_name(_delete_dir_name(plog.topic, plog.partition))
    os.replace(plog.dir, target)
    return target


def _fsync_parents(renamed: Sequence[Path]) -> None:
    """The renames' entries: one fsync per log dir, not per partition (errors ignored, as
    before: the rename stands, and a ``-delete`` dir found at start is removed anyway)."""
    for parent in dict.fromkeys(path.parent for path in renamed):
        with contextlib.suppress(OSError):
            fsync_dir(parent)


def _delete_dir_name(topic: str, partition: int) -> str:
    """Kafka's ``logDeleteDirName``: ``<topic>-<p>.<uuid hex>-delete``, the topic cut to fit 255 characters."""
    suffix = f"-{partition}.{uuid.uuid4().hex}{DELETE_DIR_SUFFIX}"
    return topic[: 255 - len(suffix)] + suffix
