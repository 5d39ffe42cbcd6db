"""Inactive segments hold no file descriptor until read (Kafka's LazyIndex, for the .log too),
and the descriptors opened for reads are bounded in all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from storage.segment import INACTIVE_LOG_FILES, LogSegment


def _fds_under(directory: Path) -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)):
            count += 1
    return count


def _segment(directory: Path, base: int, *, active: bool = True) -> LogSegment:
    return LogSegment(directory, base, index_interval_bytes=4096, max_index_size=1024 * 1024, active=active)


@pytest.fixture
def small_limit():
    limit = INACTIVE_LOG_FILES.limit
    INACTIVE_LOG_FILES.limit = 2
    yield
    INACTIVE_LOG_FILES.limit = limit


def test_rolled_segments_release_their_descriptors_until_read(tmp_path: Path, small_limit) -> None:
    segments = []
    for i in range(4):
        seg = _segment(tmp_path, i * 10)
        seg.append(bytes([i]) * 100, i * 10, 1_000 + i)
        if segments:
            segments[-1].on_become_inactive()
        segments.append(seg)
    assert [s.holds_descriptor for s in segments] == [False, False, False, True]
    # The active segment's .log only: its indexes open at their first entry (Kafka's LazyIndex).
    assert _fds_under(tmp_path) == 1
    active = segments[-1]
    for n in range(60):  # past index.interval.bytes: an offset index entry is written
        active.append(b"x" * 100, 31 + n, 2_000 + n)
    assert _fds_under(tmp_path) == 3 and active.index.entries == 1
    assert segments[0].pread(0, 100) == bytes([0]) * 100
    assert segments[0].holds_descriptor
    assert segments[1].pread(0, 1) == b"\x01"
    assert segments[2].pread(0, 1) == b"\x02"  # past the limit: the least recently read closes
    assert not segments[0].holds_descriptor
    assert segments[0].pread(99, 1) == b"\x00"  # and reopens when read again
    for seg in segments:
        seg.close()
    assert _fds_under(tmp_path) == 0
    assert all(not s.is_open for s in segments)
    with pytest.raises(OSError):
        segments[0].pread(0, 1)


def test_loaded_inactive_segment_opens_on_read_and_can_become_active(tmp_path: Path, small_limit) -> None:
    seg = _segment(tmp_path, 0)
    seg.append(b"a" * 50, 0, 1)
    seg.close()
    loaded = _segment(tmp_path, 0, active=False)
    assert loaded.size == 50 and not loaded.holds_descriptor
    assert loaded.pread(0, 5) == b"aaaaa"
    loaded.make_active()
    loaded.append(b"b" * 10, 1, 2)
    assert loaded.pread(50, 10) == b"b" * 10
    loaded.close()
    assert _fds_under(tmp_path) == 0


@pytest.mark.parametrize("closing", ["close", "close_handlers"])
def test_a_read_while_the_descriptor_is_released_fails_instead_of_reopening_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closing: str
) -> None:
    """A deletion closes a log's segments in an executor while the loop may still read one:
    a read landing between the descriptor's close and the segment's closed mark would open
    a descriptor that nothing closes again."""
    seg = _segment(tmp_path, 0)
    seg.append(b"a" * 50, 0, 1)
    close_fd = LogSegment._close_fd
    reads: list[object] = []

    def close_fd_then_read(self: LogSegment) -> None:
        close_fd(self)
        try:
            reads.append(self.pread(0, 5))
        except OSError as exc:
            reads.append(exc)

    monkeypatch.setattr(LogSegment, "_close_fd", close_fd_then_read)
    getattr(seg, closing)()
    assert len(reads) == 1 and isinstance(reads[0], OSError)
    assert not seg.holds_descriptor
    assert _fds_under(tmp_path) == 0
