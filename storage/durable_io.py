"""Writing files so that they survive a crash: the one place that does it.

Kafka writes checkpoints, snapshots and metadata through a temporary file that
is fsynced and renamed over the target, then fsyncs the directory so the
rename itself is durable (``Utils.atomicMoveWithFallback``,
``CheckpointFile.write``). Every durable file of Moldau goes through here:
offset checkpoints, ``meta.properties``, ``partition.metadata``, producer
snapshots, the producer-id lease file.
"""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(path: Path, *, best_effort: bool = False) -> None:
    """fsync a directory so a rename or a new file in it survives a crash.

    ``best_effort`` ignores errors (a directory removed meanwhile, a file system
    that refuses to fsync directories) where the caller can do without.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        if best_effort:
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not best_effort:
            raise
    finally:
        os.close(fd)


def fsync_file_if_exists(path: Path) -> None:
    """fsync a file by path; a file deleted (or renamed for deletion) meanwhile is skipped,
    as Kafka's ``Utils.flushFileIfExists``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path | str, data: bytes, *, fsync: bool = True, dir_fd: int | None = None) -> None:
    """Create or truncate ``path`` (relative to ``dir_fd`` if given) and write all of ``data``;
    fsynced unless ``fsync`` is False."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, fsync: bool = True, best_effort_dir_sync: bool = False) -> None:
    """Write ``data`` to ``path`` via ``path.tmp``: write all, fsync, rename, fsync the directory.

    Without ``fsync`` the file is renamed into place unsynced; the caller fsyncs it (and the
    directory) later, off the hot path.
    """
    tmp = path.with_name(path.name + ".tmp")
    write_file(tmp, data, fsync=fsync)
    os.replace(tmp, path)
    if fsync:
        fsync_dir(path.parent, best_effort=best_effort_dir_sync)


def atomic_write_at(dir_fd: int, name: str, data: bytes) -> None:
    """``atomic_write`` of ``name`` in the directory open as ``dir_fd`` (write ``name.tmp``,
    fsync, rename, fsync the directory), every step relative to that descriptor: a directory
    renamed meanwhile (a deleted partition's) takes the file with it, and one created under the
    old name is not touched."""
    tmp = name + ".tmp"
    write_file(tmp, data, dir_fd=dir_fd)
    os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    os.fsync(dir_fd)


def read_small_file(path: Path | str) -> bytes:
    """The whole file, read with plain system calls (open, read until the end, close).

    ``Path.read_bytes`` / ``read_text`` go through ``io.open``, which adds a stat, an ioctl
    and a seek per file: a start-up reading a few small files for each of 10,000 partitions
    (checkpoints, ``partition.metadata``, indexes) spends most of its system time on those.
    FileNotFoundError (and any other OSError) as ``open`` raises it.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
