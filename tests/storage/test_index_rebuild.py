"""A deleted or corrupt index is rebuilt at load, with Kafka's log line naming the log file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.storage.log_factory import append_batches, open_log

CONFIG = dict(segment_bytes=700, index_interval_bytes=60, segment_index_bytes=1024)


def _index_files(directory: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.suffix in (".index", ".timeindex")
    }


@pytest.mark.parametrize(
    ("suffix", "damage", "level", "wording"),
    [
        (".index", "delete", logging.ERROR, "Could not find offset index file corresponding to log file"),
        (".timeindex", "delete", logging.ERROR, "Could not find time index file corresponding to log file"),
        (".index", "corrupt", logging.WARNING, "Found a corrupted index file corresponding to log file"),
    ],
)
def test_damaged_index_is_rebuilt_with_a_log_line(tmp_path, caplog, suffix, damage, level, wording):
    plog = open_log(tmp_path, **CONFIG)
    append_batches(plog, [2] * 25, value_size=8)
    bases = [s.base_offset for s in plog.segments()]
    leo = plog.log_end_offset
    plog.close()  # a clean shutdown: only damaged indexes make a segment recover
    before = _index_files(tmp_path / "t-0")
    victim = tmp_path / "t-0" / f"{bases[1]:020d}{suffix}"
    if damage == "delete":
        victim.unlink()
    else:
        victim.write_bytes(b"\x00" * 13)  # not a whole number of entries

    with caplog.at_level(logging.INFO, logger="storage.log_loader"):
        got = open_log(tmp_path, **CONFIG)
    log_file = tmp_path / "t-0" / f"{bases[1]:020d}.log"
    lines = [r for r in caplog.records if wording in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in caplog.records]
    assert lines[0].levelno == level
    assert str(log_file) in lines[0].getMessage()
    assert lines[0].getMessage().endswith("recovering segment and rebuilding index files...")
    assert got.log_end_offset == leo
    got.close()
    assert _index_files(tmp_path / "t-0") == before


def test_intact_indexes_log_nothing_about_rebuilding(tmp_path, caplog):
    plog = open_log(tmp_path, **CONFIG)
    append_batches(plog, [2] * 10, value_size=8)
    plog.close()
    with caplog.at_level(logging.INFO, logger="storage.log_loader"):
        open_log(tmp_path, **CONFIG).close()
    assert not [r for r in caplog.records if "rebuilding index" in r.getMessage()]
