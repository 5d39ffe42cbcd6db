"""Checkpoint files, partition.metadata and meta.properties in Kafka's exact text formats."""

from __future__ import annotations

import os
import uuid

import pytest

from storage.checkpoints import (
    CheckpointError,
    LeaderEpochCheckpointFile,
    OffsetCheckpointFile,
)
from storage.durable_io import atomic_write
from storage.partition_metadata import (
    MetadataFileError,
    MetaProperties,
    decode_properties,
    encode_properties,
    kafka_str_to_uuid,
    random_kafka_uuid,
    read_meta_properties,
    read_partition_metadata,
    uuid_to_kafka_str,
    write_meta_properties,
    write_partition_metadata,
)


def test_offset_checkpoint_text_is_kafkas(tmp_path):
    path = tmp_path / "recovery-point-offset-checkpoint"
    OffsetCheckpointFile(path).write({("orders", 0): 42, ("orders.v2-x_y", 13): 0})
    assert path.read_bytes() == b"0\n2\norders 0 42\norders.v2-x_y 13 0\n"
    assert OffsetCheckpointFile(path).read() == {("orders", 0): 42, ("orders.v2-x_y", 13): 0}
    assert not (tmp_path / "recovery-point-offset-checkpoint.tmp").exists()


def test_empty_checkpoint(tmp_path):
    path = tmp_path / "cp"
    OffsetCheckpointFile(path).write({})
    assert path.read_bytes() == b"0\n0\n"
    assert OffsetCheckpointFile(path).read() == {}
    path.write_bytes(b"")
    assert OffsetCheckpointFile(path).read() == {}
    assert OffsetCheckpointFile(tmp_path / "missing").read() == {}


def test_reader_splits_on_any_whitespace(tmp_path):
    path = tmp_path / "cp"
    path.write_bytes(b"0\n1\nt   3\t99\n")
    assert OffsetCheckpointFile(path).read() == {("t", 3): 99}


@pytest.mark.parametrize(
    "content",
    [
        b"1\n0\n",  # wrong version
        b"0\n2\nt 0 1\n",  # count mismatch
        b"0\n1\nt 0\n",  # missing field
        b"0\n1\nt x 1\n",  # not a number
        b"zero\n0\n",
        b"0\n",
    ],
)
def test_malformed_checkpoints_raise(tmp_path, content):
    path = tmp_path / "cp"
    path.write_bytes(content)
    with pytest.raises(CheckpointError):
        OffsetCheckpointFile(path).read()


def test_leader_epoch_checkpoint_text(tmp_path):
    path = tmp_path / "leader-epoch-checkpoint"
    LeaderEpochCheckpointFile(path).write([(0, 0), (3, 120)])
    assert path.read_bytes() == b"0\n2\n0 0\n3 120\n"
    assert LeaderEpochCheckpointFile(path).read() == [(0, 0), (3, 120)]


def test_atomic_write_replaces_whole_file(tmp_path):
    path = tmp_path / "f"
    atomic_write(path, b"old content that is long")
    atomic_write(path, b"new")
    assert path.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["f"]


def test_kafka_uuid_string_form():
    # Uuid.toString is URL-safe base64 without padding: Uuid.METADATA_TOPIC_ID, new Uuid(0L, 1L),
    # is the "AAAAAAAAAAAAAAAAAAAAAQ" every KRaft cluster shows for __cluster_metadata.
    value = uuid.UUID(int=1)
    assert uuid_to_kafka_str(value) == "AAAAAAAAAAAAAAAAAAAAAQ"
    assert kafka_str_to_uuid("AAAAAAAAAAAAAAAAAAAAAQ") == value
    u = uuid.UUID("f3e1c5a2-0d4b-4f47-9b6c-95b5a3c0e0ff")
    assert kafka_str_to_uuid(uuid_to_kafka_str(u)) == u
    assert "-" in uuid_to_kafka_str(uuid.UUID(bytes=b"\xfb" + bytes(15)))  # URL-safe alphabet
    for _ in range(50):
        s = uuid_to_kafka_str(random_kafka_uuid())
        assert len(s) == 22 and not s.startswith("-")
    with pytest.raises(MetadataFileError):
        kafka_str_to_uuid("short")


def test_partition_metadata_exact_bytes(tmp_path):
    topic_id = uuid.UUID(int=1)
    write_partition_metadata(tmp_path, topic_id)
    assert (tmp_path / "partition.metadata").read_bytes() == b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
    assert read_partition_metadata(tmp_path) == topic_id
    assert read_partition_metadata(tmp_path / "nope") is None


@pytest.mark.parametrize(
    "content",
    [
        b"version: 1\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ",
        b"version: 0\n",
        b"version: 0\ntopic: AAAAAAAAAAAAAAAAAAAAAQ",
        b"x",
    ],
)
def test_partition_metadata_malformed(tmp_path, content):
    (tmp_path / "partition.metadata").write_bytes(content)
    with pytest.raises(MetadataFileError):
        read_partition_metadata(tmp_path)


def test_meta_properties_as_java_properties_store(tmp_path):
    write_meta_properties(tmp_path, MetaProperties(7, "Y8zh4pPRQXSEVnk4ZcuE8w"))
    lines = (tmp_path / "meta.properties").read_text().split("\n")
    # Properties.store(writer, ""): "#", "#<Date.toString()>", then key=value (sorted, JDK 18+).
    assert lines[0] == "#"
    assert lines[1].startswith("#") and len(lines[1].split()) == 6
    assert lines[2:] == ["broker.id=7", "cluster.id=Y8zh4pPRQXSEVnk4ZcuE8w", "version=0", ""]
    assert read_meta_properties(tmp_path) == MetaProperties(7, "Y8zh4pPRQXSEVnk4ZcuE8w")


def test_meta_properties_reads_kafka_written_files(tmp_path):
    # A file as a Kafka 3.x ZooKeeper-mode broker writes it (hash order, Java date comment).
    (tmp_path / "meta.properties").write_text(
        "#\n#Tue Jan 09 12:32:57 UTC 2024\ncluster.id=Y8zh4pPRQXSEVnk4ZcuE8w\nversion=0\nbroker.id=3\n"
    )
    assert read_meta_properties(tmp_path) == MetaProperties(3, "Y8zh4pPRQXSEVnk4ZcuE8w")
    (tmp_path / "meta.properties").write_text("version=1\nnode.id=4\ncluster.id=abc\ndirectory.id=x\n")
    meta = read_meta_properties(tmp_path)
    assert (meta.version, meta.broker_id, meta.cluster_id) == (1, 4, "abc")
    (tmp_path / "meta.properties").write_text("version=0\n")
    with pytest.raises(MetadataFileError):
        read_meta_properties(tmp_path)


def test_properties_escapes_round_trip():
    props = {"a key": "va=l:ue#!", "b": " leading space"}
    text = encode_properties(props).decode()
    assert "a\\ key=va\\=l\\:ue\\#\\!" in text
    assert "b=\\ leading space" in text
    assert decode_properties(text) == props
    assert decode_properties("k : v\nx y\n! comment\n") == {"k": "v", "x": "y"}
