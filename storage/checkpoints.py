"""Kafka's checkpoint text files, written atomically.

Format (Kafka's ``CheckpointFile``)::

    <version>\\n
    <entry count>\\n
    <entry>\\n ...

Offset checkpoints (``recovery-point-offset-checkpoint``,
``log-start-offset-checkpoint``, ``replication-offset-checkpoint``; Kafka's
``OffsetCheckpointFile``, version 0) have ``topic partition offset`` entries;
``leader-epoch-checkpoint`` (``LeaderEpochCheckpointFile``, version 0) has
``epoch startOffset`` entries. Readers split on whitespace, as Kafka does.

Every write goes to ``<file>.tmp``, is fsynced, renamed over the file, and the
directory is fsynced (Kafka's ``Utils.atomicMoveWithFallback``), so a crash
leaves either the old or the new file, never a torn one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from storage.durable_io import atomic_write, atomic_write_at, read_small_file

RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"
HIGH_WATERMARK_CHECKPOINT = "replication-offset-checkpoint"  # ReplicaManager.HighWatermarkFilename
LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"

OFFSET_CHECKPOINT_VERSION = 0
LEADER_EPOCH_CHECKPOINT_VERSION = 0


class CheckpointError(OSError):
    """A checkpoint file that does not parse (Kafka throws IOException)."""


def encode_checkpoint(version: int, lines: Iterable[str]) -> bytes:
    entries = list(lines)
    out = [str(version), str(len(entries)), *entries]
    return ("\n".join(out) + "\n").encode("utf-8")


def decode_checkpoint(path: Path, text: str, version: int, fields: int) -> list[list[str]]:
    """Entries of a checkpoint file as lists of ``fields`` strings.

    An empty file has no entries (Kafka's ``CheckpointReadBuffer``); a wrong
    version, a malformed line or a wrong count raise CheckpointError.
    """
    lines = text.splitlines()
    if not lines:
        return []
    try:
        found_version = int(lines[0].strip())
    except ValueError:
        raise CheckpointError(f"Malformed version line in checkpoint file {path}: {lines[0]!r}")
    if found_version != version:
        raise CheckpointError(f"Unrecognised version {found_version} in checkpoint file {path}")
    if len(lines) < 2:
        raise CheckpointError(f"Missing entry count in checkpoint file {path}")
    try:
        expected = int(lines[1].strip())
    except ValueError:
        raise CheckpointError(f"Malformed entry count in checkpoint file {path}: {lines[1]!r}")
    entries: list[list[str]] = []
    for line in lines[2:]:
        parts = line.split()
        if not parts:
            continue
        if len(parts) != fields:
            raise CheckpointError(f"Malformed line in checkpoint file {path}: {line!r}")
        entries.append(parts)
    if len(entries) != expected:
        raise CheckpointError(
            f"Expected {expected} entries in checkpoint file {path}, but found {len(entries)}"
        )
    return entries


def _read_text(path: Path) -> str | None:
    try:
        return read_small_file(path).decode("utf-8")
    except FileNotFoundError:
        return None


class OffsetCheckpointFile:
    """``topic partition offset`` checkpoint in a log directory (Kafka's ``OffsetCheckpointFile``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, offsets: Mapping[tuple[str, int], int]) -> None:
        lines = (f"{topic} {partition} {offset}" for (topic, partition), offset in offsets.items())
        atomic_write(self.path, encode_checkpoint(OFFSET_CHECKPOINT_VERSION, lines))

    def read(self) -> dict[tuple[str, int], int]:
        """The checkpointed offsets; a missing file has none. Raises CheckpointError."""
        text = _read_text(self.path)
        if text is None:
            return {}
        out: dict[tuple[str, int], int] = {}
        for topic, partition, offset in decode_checkpoint(self.path, text, OFFSET_CHECKPOINT_VERSION, 3):
            try:
                out[(topic, int(partition))] = int(offset)
            except ValueError:
                raise CheckpointError(
                    f"Malformed line in checkpoint file {self.path}: {topic} {partition} {offset}"
                )
        return out


class LeaderEpochCheckpointFile:
    """``epoch startOffset`` checkpoint in a partition directory (Kafka's ``LeaderEpochCheckpointFile``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, entries: Iterable[tuple[int, int]], *, fsync: bool = True) -> None:
        lines = (f"{epoch} {start}" for epoch, start in entries)
        atomic_write(self.path, encode_checkpoint(LEADER_EPOCH_CHECKPOINT_VERSION, lines), fsync=fsync)

    def write_at(self, dir_fd: int, entries: Iterable[tuple[int, int]]) -> None:
        """``write`` into the partition directory open as ``dir_fd`` (a write off the loop)."""
        lines = (f"{epoch} {start}" for epoch, start in entries)
        atomic_write_at(dir_fd, self.path.name, encode_checkpoint(LEADER_EPOCH_CHECKPOINT_VERSION, lines))

    def read(self) -> list[tuple[int, int]]:
        text = _read_text(self.path)
        if text is None:
            return []
        out = []
        for epoch, start in decode_checkpoint(self.path, text, LEADER_EPOCH_CHECKPOINT_VERSION, 2):
            try:
                out.append((int(epoch), int(start)))
            except ValueError:
                raise CheckpointError(f"Malformed line in checkpoint file {self.path}: {epoch} {start}")
        return out


def remove_if_exists(path: Path) -> bool:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        return True
    return False
