"""``meta.properties`` (per log dir) and ``partition.metadata`` (per partition dir).

``partition.metadata`` is Kafka's ``PartitionMetadataFile``: the exact text
``version: 0\\ntopic_id: <id>`` (no trailing newline), the topic id in Kafka's
``Uuid.toString()`` form (URL-safe base64 of the 16 bytes, no padding).

``meta.properties`` is Kafka's ``MetaProperties`` v0 (ZooKeeper mode):
``version=0``, ``broker.id`` and ``cluster.id``, written as Java's
``Properties.store(writer, "")`` does: a ``#`` line, a ``#<date>`` line, then
``key=value`` lines (sorted by key, as JDK 18+ writes them).
"""

from __future__ import annotations

import base64
import os
import re
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from storage.durable_io import atomic_write, read_small_file

PARTITION_METADATA_FILE = "partition.metadata"
META_PROPERTIES_FILE = "meta.properties"
PARTITION_METADATA_VERSION = 0


class MetadataFileError(ValueError):
    """A meta.properties or partition.metadata file that does not parse, or disagrees."""


# ------------------------------------------------------------------ Kafka's Uuid


def uuid_to_kafka_str(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode("ascii").rstrip("=")


def kafka_str_to_uuid(text: str) -> uuid.UUID:
    """Kafka's ``Uuid.fromString``; MetadataFileError for anything but 22 base64url characters."""
    if len(text) != 22:
        raise MetadataFileError(
            f"Input string with prefix `{text[:22]}` is too long or too short to be decoded as a base64 UUID"
        )
    try:
        raw = base64.urlsafe_b64decode(text + "==")
    except (ValueError, TypeError):
        raise MetadataFileError(f"Invalid base64 UUID: {text}") from None
    if len(raw) != 16:
        raise MetadataFileError(f"Invalid base64 UUID: {text}")
    return uuid.UUID(bytes=raw)


def random_kafka_uuid() -> uuid.UUID:
    """Kafka's ``Uuid.randomUuid``: never the zero id, never one whose string starts with '-'."""
    while True:
        value = uuid.uuid4()
        if value.int != 0 and value.int != 1 and not uuid_to_kafka_str(value).startswith("-"):
            return value


# ------------------------------------------------------------------ partition.metadata


def encode_partition_metadata(topic_id: uuid.UUID) -> bytes:
    # PartitionMetadata.encode(): no trailing newline.
    return f"version: {PARTITION_METADATA_VERSION}\ntopic_id: {uuid_to_kafka_str(topic_id)}".encode()


def write_partition_metadata(partition_dir: Path, topic_id: uuid.UUID) -> None:
    atomic_write(partition_dir / PARTITION_METADATA_FILE, encode_partition_metadata(topic_id))


def read_partition_metadata(partition_dir: Path) -> uuid.UUID | None:
    """The topic id in ``partition.metadata``; None if the file does not exist.

    Parsed as Kafka's ``PartitionMetadataReadBuffer``: lines split on ``:\\s+``,
    version must be 0. Raises MetadataFileError on malformed content.
    """
    path = partition_dir / PARTITION_METADATA_FILE
    try:
        text = read_small_file(path).decode("utf-8")
    except FileNotFoundError:
        return None
    lines = text.splitlines()
    if len(lines) < 2:
        raise MetadataFileError(f"Malformed partition metadata file {path}")
    version_line = re.split(r":\s+", lines[0], maxsplit=1)
    if len(version_line) != 2 or version_line[0] != "version":
        raise MetadataFileError(f"Malformed version line in {path}: {lines[0]!r}")
    if version_line[1].strip() != str(PARTITION_METADATA_VERSION):
        raise MetadataFileError(f"Unrecognized version of partition metadata file {path}: {version_line[1]}")
    id_line = re.split(r":\s+", lines[1], maxsplit=1)
    if len(id_line) != 2 or id_line[0] != "topic_id":
        raise MetadataFileError(f"Malformed topic id line in {path}: {lines[1]!r}")
    return kafka_str_to_uuid(id_line[1].strip())


# ------------------------------------------------------------------ meta.properties

_ESCAPES = {
    "\\": "\\\\",
    "=": "\\=",
    ":": "\\:",
    "#": "\\#",
    "!": "\\!",
    "\t": "\\t",
    "\n": "\\n",
    "\r": "\\r",
    "\f": "\\f",
}


def _java_escape(text: str, *, is_key: bool) -> str:
    """Properties.saveConvert (writer variant: non-ASCII written as is)."""
    out = []
    for i, ch in enumerate(text):
        if ch == " ":
            out.append("\\ " if is_key or i == 0 else " ")
        else:
            out.append(_ESCAPES.get(ch, ch))
    return "".join(out)


def encode_properties(props: Mapping[str, str], *, now: float | None = None) -> bytes:
    """Java's ``Properties.store(writer, "")`` output, with keys sorted (JDK 18+)."""
    stamp = time.strftime("%a %b %d %H:%M:%S %Z %Y", time.localtime(now))
    lines = ["#", f"#{stamp}"]
    for key in sorted(props):
        lines.append(f"{_java_escape(key, is_key=True)}={_java_escape(props[key], is_key=False)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _unescape(text: str) -> str:
    out = []
    i = 0
    mapping = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and i + 6 <= len(text):
                try:
                    out.append(chr(int(text[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
            out.append(mapping.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def decode_properties(text: str) -> dict[str, str]:
    """A Java properties file (comments, ``=``/``:``/space separators, escapes; no line continuations)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.lstrip()
        if not line or line[0] in "#!":
            continue
        i = 0
        key_chars = []
        while i < len(line):
            ch = line[i]
            if ch == "\\" and i + 1 < len(line):
                key_chars.append(line[i : i + 2])
                i += 2
                continue
            if ch in "=: \t\f":
                break
            key_chars.append(ch)
            i += 1
        rest = line[i:].lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t\f")
        out[_unescape("".join(key_chars))] = _unescape(rest)
    return out


class MetaProperties:
    """The v0 (ZooKeeper-mode) ``meta.properties`` of a log directory."""

    def __init__(self, broker_id: int, cluster_id: str | None, version: int = 0) -> None:
        self.version = version
        self.broker_id = broker_id
        self.cluster_id = cluster_id

    def to_properties(self) -> dict[str, str]:
        props = {"version": str(self.version), "broker.id": str(self.broker_id)}
        if self.cluster_id is not None:
            props["cluster.id"] = self.cluster_id
        return props

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MetaProperties) and self.to_properties() == other.to_properties()

    def __repr__(self) -> str:
        return f"MetaProperties(version={self.version}, broker_id={self.broker_id}, cluster_id={self.cluster_id!r})"


def write_meta_properties(log_dir: Path, meta: MetaProperties) -> None:
    atomic_write(log_dir / META_PROPERTIES_FILE, encode_properties(meta.to_properties()))


def read_meta_properties(log_dir: Path) -> MetaProperties | None:
    """``meta.properties`` of a log dir, None if absent. MetadataFileError if unusable.

    Version 1 (KRaft) files carry ``node.id`` instead of ``broker.id``; both are read.
    """
    path = log_dir / META_PROPERTIES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    props = decode_properties(text)
    try:
        version = int(props["version"])
    except (KeyError, ValueError):
        raise MetadataFileError(f"{path}: missing or bad 'version'") from None
    id_key = "broker.id" if version == 0 else "node.id"
    try:
        broker_id = int(props[id_key])
    except (KeyError, ValueError):
        raise MetadataFileError(f"{path}: missing or bad '{id_key}'") from None
    return MetaProperties(broker_id, props.get("cluster.id"), version)


def sync_partition_dir(path: Path) -> None:
    """Create a partition directory and make its entry in the log dir durable."""
    path.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
