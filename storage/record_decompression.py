"""Inflating a compressed batch's records with a bound on the output, for ``storage.log_validator``.

Kafka inflates through its codecs' streams (``Compression.wrapForInput``: ``GzipCompression``,
``SnappyCompression``, ``Lz4Compression``, ``ZstdCompression``) and has no bound on what a
batch inflates to. Each function here returns the records section of one codec, or raises
``DecompressedTooLarge`` as soon as it would pass ``limit`` bytes, before it holds them:
gzip inflates ``limit + 1`` bytes at most, snappy checks the lengths its blocks declare, lz4
and zstd write into a buffer that grows up to ``limit``. Data that does not decompress raises
the codec's error (``protocol.compression.CompressionError``, ``zlib.error``,
``cramjam.DecompressionError``, ``ValueError``).

The bound, and the answers to a client (MESSAGE_TOO_LARGE, CORRUPT_MESSAGE, or the work moved
off the event loop) are the validator's (``storage.log_validator._decompress``, and its
"Knowingly different" list).
"""

from __future__ import annotations

import struct
import zlib

import cramjam

from protocol import compression

_I32 = struct.Struct(">i")


class DecompressedTooLarge(Exception):
    """The records inflate to more than the bound."""


def gunzip_bounded(raw: memoryview, limit: int) -> bytes:
    """gzip: every member of the stream, at most ``limit`` bytes in all."""
    out = bytearray()
    data = bytes(raw)
    if not data:
        raise compression.CompressionError("empty gzip stream")
    while data:  # concatenated members, as Java's GZIPInputStream reads them
        d = zlib.decompressobj(wbits=31)
        out += d.decompress(data, limit - len(out) + 1)
        if len(out) > limit:
            raise DecompressedTooLarge
        if not d.eof:
            raise compression.CompressionError("truncated gzip stream")
        data = d.unused_data
    return bytes(out)


def snappy_bounded(raw: memoryview, limit: int) -> bytes:
    """snappy, raw or xerial-framed, once the lengths its blocks declare fit ``limit``."""
    # Raw snappy blocks state their uncompressed length up front: check it before inflating.
    if len(raw) >= 16 and bytes(raw[:8]) == compression.XERIAL_MAGIC:
        total = 0
        pos = 16
        while pos < len(raw):
            if pos + 4 > len(raw):
                raise compression.CompressionError("truncated xerial snappy block header")
            (n,) = _I32.unpack_from(raw, pos)
            pos += 4
            if n < 0 or pos + n > len(raw):
                raise compression.CompressionError("truncated xerial snappy block")
            total += cramjam.snappy.decompress_raw_len(raw[pos : pos + n])
            if total > limit:
                raise DecompressedTooLarge
            pos += n
    elif cramjam.snappy.decompress_raw_len(raw) > limit:
        raise DecompressedTooLarge
    return compression.decompress(compression.SNAPPY, raw)


_TOO_SMALL = "failed to write whole buffer"


_LZ4_MAGIC = 0x184D2204


def check_lz4_frame_descriptor(data: bytes) -> None:
    """Kafka's ``KafkaLZ4BlockInputStream.readHeader`` (``FLG`` / ``BD`` ``validate``): a frame
    of version 1 with independent blocks and no reserved bit (nor a dictionary id) set, blocks
    of 64 KiB-4 MiB; anything else is refused before inflating (ValueError)."""
    if len(data) < 7:
        raise ValueError("Stream ended prematurely")
    if int.from_bytes(data[:4], "little") != _LZ4_MAGIC:
        raise ValueError("Stream unsupported (invalid magic bytes)")
    flg, bd = data[4], data[5]
    if flg & 0x03 or bd & 0x8F:
        raise ValueError("Reserved bits must be 0")
    if flg >> 6 != 1:
        raise ValueError("Version unsupported")
    if not flg & 0x20:
        raise ValueError("Dependent block stream is unsupported")
    if (bd >> 4) & 0x07 < 4:
        raise ValueError("Block size value must be between 4 and 7")


def frame_bounded(codec: int, raw: memoryview, limit: int) -> bytes:
    """lz4 frame / zstd into a growing buffer: the codec stops when the buffer is full."""
    module = cramjam.lz4 if codec == compression.LZ4 else cramjam.zstd
    data = bytes(raw)
    if codec == compression.LZ4:
        check_lz4_frame_descriptor(data)
    size = min(limit, max(64 * 1024, 8 * len(data)))
    while True:
        out = bytearray(size)
        try:
            n = module.decompress_into(data, out)
        except cramjam.DecompressionError as exc:
            if _TOO_SMALL not in str(exc):
                raise
            if size >= limit:
                raise DecompressedTooLarge from None
            size = min(limit, size * 4)
            continue
        del out[n:]
        return bytes(out)
