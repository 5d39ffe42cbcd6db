"""The four record-batch codecs: gzip, snappy, lz4, zstd.

- gzip: RFC 1952 (Java's ``GZIPOutputStream``); concatenated members are read.
- snappy: Java clients frame it with xerial's ``SnappyOutputStream``: an
  8-byte magic ``\\x82SNAPPY\\x00``, int32 version and int32 compatible version,
  then blocks of (int32 length, raw snappy block). librdkafka reads both that
  and raw snappy, and so do we; we write the xerial framing, which every client
  reads.
- lz4: the LZ4 frame format (magic 0x184D2204), as Kafka's
  ``Lz4BlockOutputStream`` writes for magic 2 batches: independent 64 KiB blocks and no
  checksums (Kafka's reader refuses a frame of linked blocks, the usual libraries' default).
- zstd: a zstd frame (KIP-110).

In a batch only the bytes after ``recordsCount`` are compressed.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import cramjam
import lz4.block

from protocol.primitives import DecodeError

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}
BY_NAME = {v: k for k, v in NAMES.items()}

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")
_I32 = struct.Struct(">i")
XERIAL_BLOCK_SIZE = 32 * 1024  # SnappyOutputStream's default block size

# Kafka's Lz4BlockOutputStream frame descriptor: FLG 0x60 (version 1, independent blocks, no
# block or content checksum), BD 0x40 (64 KiB blocks), then 0x82, the second byte of the
# xxHash32 of those two bytes (the descriptor checksum).
_LZ4_FRAME_HEADER = b"\x04\x22\x4d\x18\x60\x40\x82"
_LZ4_BLOCK_SIZE = 64 * 1024
_LZ4_INCOMPRESSIBLE = 0x80000000
_LZ4_END_MARK = b"\x00\x00\x00\x00"
_U32LE = struct.Struct("<I")

# Kafka's default levels (CompressionType: gzip -1 is zlib's default, 6; lz4 9 means lz4-java's
# fast compressor, any other level its high-compression one; zstd 3).
GZIP_DEFAULT_LEVEL = -1
LZ4_DEFAULT_LEVEL = 9
ZSTD_DEFAULT_LEVEL = 3


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


def _lz4_compress(data: Any, level: int) -> bytes:
    """Kafka's ``Lz4BlockOutputStream``: the frame descriptor, then each 64 KiB of ``data`` as
    one independent block (stored as is when it does not shrink), then the end mark."""
    mv = memoryview(data).cast("B")
    parts = [_LZ4_FRAME_HEADER]
    for start in range(0, len(mv), _LZ4_BLOCK_SIZE):
        chunk = mv[start : start + _LZ4_BLOCK_SIZE]
        if level == LZ4_DEFAULT_LEVEL:
            block = lz4.block.compress(chunk, store_size=False)
        else:
            block = lz4.block.compress(chunk, mode="high_compression", compression=level, store_size=False)
        if len(block) >= len(chunk):
            parts.append(_U32LE.pack(len(chunk) | _LZ4_INCOMPRESSIBLE))
            parts.append(bytes(chunk))
        else:
            parts.append(_U32LE.pack(len(block)))
            parts.append(bytes(block))
    parts.append(_LZ4_END_MARK)
    return b"".join(parts)


def compress(codec: int, data: Any, level: int | None = None) -> bytes:
    """``data`` compressed with ``codec`` as Kafka's clients and broker write it; ``level`` is
    the codec's level (None: Kafka's default)."""
    if codec == NONE:
        return bytes(data)
    if codec == GZIP:
        gzip_level = 6 if level is None or level == GZIP_DEFAULT_LEVEL else level
        c = zlib.compressobj(gzip_level, zlib.DEFLATED, 31)
        return c.compress(data) + c.flush()
    if codec == SNAPPY:
        return _snappy_compress(data)
    if codec == LZ4:
        return _lz4_compress(data, LZ4_DEFAULT_LEVEL if level is None else level)
    if codec == ZSTD:
        return bytes(cramjam.zstd.compress(data, level=ZSTD_DEFAULT_LEVEL if level is None else level))
    raise ValueError(f"unknown compression codec {codec}")
