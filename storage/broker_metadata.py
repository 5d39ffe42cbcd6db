"""The broker's identity in the ``meta.properties`` of its log dirs.

Kafka checks these files outside its ``LogManager``: ``KafkaServer`` loads them all
(``MetaPropertiesEnsemble.Loader``), verifies that they agree with each other and with the
configuration (``MetaPropertiesEnsemble.verify``, ``InconsistentBrokerIdException``,
``InconsistentClusterIdException``) and writes the missing ones. ``read_meta`` is the read
``LogManager.startup`` makes of each dir before loading any log; ``ensure_meta_properties``
the check and write ``LogManager.ensure_meta_properties`` makes once the logs are loaded.
The file format is ``storage.partition_metadata``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from storage.log_dir_failure import LogDirError, LogDirFailureChannel
from storage.partition_metadata import (
    META_PROPERTIES_FILE,
    MetadataFileError,
    MetaProperties,
    random_kafka_uuid,
    read_meta_properties,
    uuid_to_kafka_str,
    write_meta_properties,
)

__all__ = ["ensure_meta_properties", "read_meta"]


def read_meta(d: Path) -> MetaProperties | None:
    """``meta.properties`` of ``d``; LogDirError if its content is unusable, OSError if it
    cannot be read (the dir's failure)."""
    try:
        return read_meta_properties(d)
    except (MetadataFileError, UnicodeDecodeError) as exc:
        path = d / META_PROPERTIES_FILE
        reason = str(exc).removeprefix(f"{path}: ")
        raise LogDirError(
            f"{path} is corrupt ({reason}). Restore it from a backup, or delete it to have the "
            "broker write a new one (with broker.id and a new cluster id)."
        ) from None


def ensure_meta_properties(
    log_dirs: Sequence[Path],
    failure_channel: LogDirFailureChannel,
    broker_id: int,
    cluster_id: str | None,
) -> tuple[int, str]:
    """Check or write ``meta.properties`` in every online log dir; returns (broker id,
    cluster id). An I/O error reading or writing a dir's file is that dir's failure.

    As Kafka's ZooKeeper-mode broker: a stored broker.id must equal the
    configured one (InconsistentBrokerIdException) unless none is
    configured (-1), and all dirs must agree on the cluster id
    (InconsistentClusterIdException). A new cluster id is a random Kafka Uuid.
    """
    stored: dict[Path, MetaProperties] = {}
    for d in _online(log_dirs, failure_channel):  # Kafka: the offline dirs are not read nor written
        try:
            meta = read_meta(d)
        except OSError as exc:
            failure_channel.report(d, exc, f"reading {d / META_PROPERTIES_FILE}")
            continue
        if meta is not None:
            stored[d] = meta
    ids = {m.broker_id for m in stored.values()}
    clusters = {m.cluster_id for m in stored.values() if m.cluster_id is not None}
    if len(ids) > 1:
        raise LogDirError(f"BrokerMetadata is not consistent across log.dirs: broker ids {sorted(ids)}")
    if len(clusters) > 1:
        raise LogDirError(f"BrokerMetadata is not consistent across log.dirs: cluster ids {sorted(clusters)}")
    stored_id = ids.pop() if ids else None
    if broker_id >= 0 and stored_id is not None and stored_id != broker_id:
        raise LogDirError(
            f"Configured broker.id {broker_id} doesn't match stored broker.id Some({stored_id}) in "
            "meta.properties. If you moved your data, make sure your configured broker.id matches."
        )
    final_id = broker_id if broker_id >= 0 else (stored_id if stored_id is not None else 0)
    stored_cluster = clusters.pop() if clusters else None
    if cluster_id and stored_cluster and cluster_id != stored_cluster:
        raise LogDirError(
            f"The Cluster ID {cluster_id} doesn't match stored clusterId Some({stored_cluster}) in "
            "meta.properties. The broker is trying to join the wrong cluster."
        )
    final_cluster = stored_cluster or cluster_id or uuid_to_kafka_str(random_kafka_uuid())
    wanted = MetaProperties(final_id, final_cluster)
    for d in _online(log_dirs, failure_channel):
        if stored.get(d) != wanted:
            try:
                write_meta_properties(d, wanted)
            except OSError as exc:
                # KafkaServer's meta.properties copier: setWriteErrorHandler -> offline dir
                failure_channel.report(d, exc, f"writing {d / META_PROPERTIES_FILE}")
    return final_id, final_cluster


def _online(log_dirs: Sequence[Path], failure_channel: LogDirFailureChannel) -> list[Path]:
    return [d for d in log_dirs if not failure_channel.is_offline(d)]
