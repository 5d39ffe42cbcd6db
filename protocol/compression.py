"""The four record-batch codecs: gzip, snappy, lz4, zstd.

- gzip: RFC 1952 (Java's ``GZIPOutputStream``); concatenated members are read.
- snappy: Java clients frame it with xerial's ``SnappyOutputStream``: an
  8-byte magic ``\\x82SNAPPY\\x00``, int32 version and int32 compatible version,
  then blocks of (int32 length, raw snappy block). librdkafka reads both that
  and raw snappy, and so do we; we write the xerial framing, which every client
  reads.
- lz4: the LZ4 frame format (magic 0x184D2204), as Kafka's
  ``Lz4BlockOutputStream`` writes for magic 2 batches.
- zstd: a zstd frame (KIP-110).

In a batch only the bytes after ``recordsCount`` are compressed.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import cramjam

from protocol.primitives import DecodeError

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}
BY_NAME = {v: k for k, v in NAMES.items()}

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")
_I32 = struct.Struct(">i")
XERIAL_BLOCK_SIZE = 32 * 1024  # SnappyOutputStream's default block size


class CompressionError(DecodeError):
    """Compressed bytes that do not decompress."""


def _gunzip(data: Any) -> bytes:
    out = []
    raw = bytes(data)
    while raw:
        d = zlib.decompressobj(wbits=31)
        out.append(d.decompress(raw))
        if not d.eof:
            raise CompressionError("truncated gzip stream")
        raw = d.unused_data
    return b"".join(out)


def _snappy_decompress(data: Any) -> bytes:
    mv = memoryview(data)
    if len(mv) >= 16 and bytes(mv[:8]) == XERIAL_MAGIC:
        pos = 16
        out = []
        while pos < len(mv):
            if pos + 4 > len(mv):
                raise CompressionError("truncated xerial snappy block header")
            (n,) = _I32.unpack_from(mv, pos)
            pos += 4
            if n < 0 or pos + n > len(mv):
                raise CompressionError("truncated xerial snappy block")
            out.append(bytes(cramjam.snappy.decompress_raw(mv[pos : pos + n])))
            pos += n
        return b"".join(out)
    return bytes(cramjam.snappy.decompress_raw(mv))


def _snappy_compress(data: Any) -> bytes:
    mv = memoryview(data)
    parts = [_XERIAL_HEADER.pack(XERIAL_MAGIC, 1, 1)]
    for start in range(0, len(mv), XERIAL_BLOCK_SIZE):
        block = bytes(cramjam.snappy.compress_raw(mv[start : start + XERIAL_BLOCK_SIZE]))
        parts.append(_I32.pack(len(block)))
        parts.append(block)
    return b"".join(parts)


def decompress(codec: int, data: Any) -> bytes:
    """Decompress the records section of a batch compressed with ``codec``."""
    try:
        if codec == NONE:
            return bytes(data)
        if codec == GZIP:
            return _gunzip(data)
        if codec == SNAPPY:
            return _snappy_decompress(data)
        if codec == LZ4:
            return bytes(cramjam.lz4.decompress(bytes(data)))
        if codec == ZSTD:
            return bytes(cramjam.zstd.decompress(bytes(data)))
    except CompressionError:
        raise
    except Exception as exc:  # the codecs raise their own error types
        raise CompressionError(f"{NAMES.get(codec, codec)} decompression failed: {exc}") from None
    raise CompressionError(f"unknown compression codec {codec}")


def compress(codec: int, data: Any) -> bytes:
    if codec == NONE:
        return bytes(data)
    if codec == GZIP:
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        return c.compress(bytes(data)) + c.flush()
    if codec == SNAPPY:
        return _snappy_compress(data)
    if codec == LZ4:
        return bytes(cramjam.lz4.compress(bytes(data)))
    if codec == ZSTD:
        return bytes(cramjam.zstd.compress(bytes(data)))
    raise ValueError(f"unknown compression codec {codec}")
