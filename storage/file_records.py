"""Record bytes left in their segment files until they are sent (Kafka's ``FileRecords`` slice).

A fetch that may send its records straight from the page cache (``os.sendfile``) gets a
``FileRecords`` from ``PartitionLog.read(..., file_records=True)`` instead of the bytes: one
or more (descriptor, position, size) slices of segment files, whole batches only, as the
read found them. The broker's response writer sends them with ``os.sendfile`` or, where a
socket cannot take them directly (TLS), copies them with ``os.preadv`` into its output
buffer (``readinto``); nothing else needs to read them.

Each slice holds its own duplicate of the segment's descriptor (``os.dup``), so the bytes
stay readable whatever happens to the segment until the response is written: an inactive
segment's descriptor closed by the open-file limit, a segment deleted by retention or
replaced by the cleaner (Kafka keeps the old file open the same way: its channel lives
until the ``FileRecords`` is closed). ``close`` gives the duplicates back; it is called
once the response is written or dropped (a garbage-collected ``FileRecords`` closes
itself, so a response lost with its connection does not leak descriptors).

A file cut below a slice after the read (a follower's truncation) leaves fewer bytes than
announced: ``readinto`` raises ``OSError`` then, and the writer closes the connection, as
Kafka's ``FileRecords.writeTo`` fails on a truncated file.
"""

from __future__ import annotations

import os

MIN_FILE_SLICE = 16 * 1024  # a smaller read is copied at once: a system call more costs more than its copy


class FileRecords:
    """Whole batches in segment files: ``len()`` bytes in ``slices`` of (fd, position, size)."""

    __slots__ = ("size", "slices")

    def __init__(self, slices: list[tuple[int, int, int]]) -> None:
        self.slices = slices
        self.size = sum(s[2] for s in slices)

    @classmethod
    def of_file(cls, fd: int, position: int, size: int) -> FileRecords:
        """``size`` bytes at ``position`` of the open file ``fd`` (duplicated: the caller keeps ``fd``)."""
        return cls([(os.dup(fd), position, size)])

    @classmethod
    def join(cls, parts: list[FileRecords]) -> FileRecords:
        """One ``FileRecords`` of several, in order; the parts give up their slices to it."""
        slices = [s for part in parts for s in part.slices]
        for part in parts:
            part.slices = []
            part.size = 0
        return cls(slices)

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"FileRecords({self.size} bytes in {len(self.slices)} slice(s))"

    def readinto(self, view: memoryview) -> None:
        """Copy all the bytes into ``view`` (exactly ``len(self)`` long); OSError if the file is shorter."""
        done = 0
        for fd, position, size in self.slices:
            end = done + size
            while done < end:
                n = os.preadv(fd, [view[done:end]], position + size - (end - done))
                if n <= 0:
                    raise OSError(
                        f"segment file truncated under a fetch response ({end - done} bytes missing)"
                    )
                done += n

    def read(self) -> bytes:
        """All the bytes (a copy): tests, and readers that need them in memory."""
        buf = bytearray(self.size)
        self.readinto(memoryview(buf))
        return bytes(buf)

    def __bytes__(self) -> bytes:
        return self.read()

    def close(self) -> None:
        slices, self.slices = self.slices, []
        for fd, _, _ in slices:
            os.close(fd)

    @property
    def closed(self) -> bool:
        return not self.slices and self.size > 0

    def __del__(self) -> None:
        if self.slices:
            self.close()
