"""DescribeLogDirs (key 35), versions 1-4.

Behaviour (Kafka's ``ReplicaManager.describeLogDirs``): one result per ``log.dirs`` entry,
named by its absolute path. Each online dir lists the topics it holds with, for the asked
partitions (all with ``topics`` null), the partition's size in bytes, its offset lag
(``max(high watermark - log end offset, 0)``: 0 on a leader, the catch-up left on a
follower) and ``is_future_key`` false. A topic of the dir none of whose partitions was asked
for is not listed (Kafka 3.9, KAFKA-16807: ``filterNot(_.partitions().isEmpty)``). v4 adds the file system's total and usable
bytes (``os.statvfs``; -1 before v4). An offline dir answers KAFKA_STORAGE_ERROR with no
topics.

Version notes: v0 was removed in Kafka 4.0; v2 is flexible; v3 adds the top-level error
code (always NONE here); v4 adds total and usable bytes. v5 (cordoned log dirs) is not served.

Authorization: Describe on the cluster, else CLUSTER_AUTHORIZATION_FAILED (v3+ top-level
error) with no log dirs.

Not implemented: future replicas (AlterReplicaLogDirs), so no ``-future`` log is listed.
"""

from __future__ import annotations

import os
from pathlib import Path

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DescribeLogDirsRequest, DescribeLogDirsResponse

Result = DescribeLogDirsResponse.DescribeLogDirsResult
Topic = DescribeLogDirsResponse.DescribeLogDirsTopic
PartitionEntry = DescribeLogDirsResponse.DescribeLogDirsPartition


def _space(path: Path) -> tuple[int, int]:
    """(total, usable) bytes of the file system holding ``path`` (Kafka's FileStore)."""
    st = os.statvfs(path)
    return st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize


@handler(ApiKey.DESCRIBE_LOG_DIRS, versions=(1, 4))
def handle_describe_log_dirs(ctx: RequestContext, request: DescribeLogDirsRequest) -> DescribeLogDirsResponse:
    lm = ctx.broker.log_manager
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        return DescribeLogDirsResponse(
            throttle_time_ms=0, error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, results=[]
        )
    wanted: set[tuple[str, int]] | None = None
    if request.topics is not None:
        wanted = {(t.topic, p) for t in request.topics for p in t.partitions}
    by_dir: dict[Path, dict[str, list[PartitionEntry]]] = {}
    for plog in lm.logs():
        if plog.closed:
            continue
        topics = by_dir.setdefault(plog.dir.parent, {})
        entries = topics.setdefault(plog.topic, [])
        if wanted is not None and (plog.topic, plog.partition) not in wanted:
            continue
        entries.append(
            PartitionEntry(
                partition_index=plog.partition,
                partition_size=plog.size_in_bytes,
                offset_lag=max(plog.high_watermark - plog.log_end_offset, 0),
                is_future_key=False,
            )
        )
    results = []
    for d in lm.log_dirs:
        path = str(d.absolute())
        if lm.failure_channel.is_offline(d):
            results.append(Result(error_code=ErrorCode.KAFKA_STORAGE_ERROR.code, log_dir=path, topics=[]))
            continue
        total = usable = -1
        if ctx.api_version >= 4:
            try:
                total, usable = _space(d)
            except OSError:
                results.append(Result(error_code=ErrorCode.KAFKA_STORAGE_ERROR.code, log_dir=path, topics=[]))
                continue
        # Kafka 3.9 describeLogDirs (KAFKA-16807): a topic without an asked partition is left out.
        topics = [
            Topic(name=name, partitions=sorted(parts, key=lambda e: e.partition_index))
            for name, parts in sorted(by_dir.get(d, {}).items())
            if parts
        ]
        results.append(
            Result(error_code=0, log_dir=path, topics=topics, total_bytes=total, usable_bytes=usable)
        )
    return DescribeLogDirsResponse(throttle_time_ms=0, error_code=0, results=results)
