"""PartitionLog reads that leave the records in the segment files (FileRecords)."""

from __future__ import annotations

import errno
import os

from storage.file_records import MIN_FILE_SLICE, FileRecords
from storage.segment import LogSegment
from tests.storage.log_factory import append_batches, open_log


def test_a_file_read_holds_the_same_bytes_as_a_read(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [100] * 20, value_size=200)
    for offset, max_bytes in ((0, 10**7), (0, 50_000), (700, 30_000), (1990, 10**7)):
        expected = plog.read(offset, max_bytes).records
        got = plog.read(offset, max_bytes, file_records=True).records
        if len(expected) >= MIN_FILE_SLICE:
            assert isinstance(got, FileRecords)
            assert got.read() == expected
            got.close()
        else:
            assert got == expected  # a small read is copied at once
    plog.close()


def test_file_records_outlive_the_segment_they_were_read_from(tmp_path):
    plog = open_log(tmp_path, segment_bytes=64 * 1024)
    append_batches(plog, [100] * 20, value_size=200)
    assert len(plog.segments()) > 2
    expected = plog.read(0, 10**7).records
    got = plog.read(0, 10**7, file_records=True).records
    assert isinstance(got, FileRecords)
    plog.delete_records_before(plog.segments()[-1].base_offset)
    plog.delete_old_segments()
    plog.purge_deleted_files(force=True)
    assert not os.path.exists(tmp_path / "t-0" / "00000000000000000000.log")
    assert got.read() == expected  # its own descriptor still reads the removed file
    got.close()
    plog.close()


def test_no_descriptor_left_reads_the_bytes_instead(tmp_path, monkeypatch):
    plog = open_log(tmp_path)
    append_batches(plog, [100] * 20, value_size=200)

    def no_descriptors(self, position, size):
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(LogSegment, "file_slice", no_descriptors)
    got = plog.read(0, 10**7, file_records=True).records
    assert isinstance(got, bytes) and got == plog.read(0, 10**7).records
    assert not plog.dir_state.offline
    plog.close()
