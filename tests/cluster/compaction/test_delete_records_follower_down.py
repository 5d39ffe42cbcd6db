"""DeleteRecords (log start inside a batch) while a follower is down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from protocol.messages import DeleteRecordsRequest
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import zookeeper_shared

from .helpers import create_topic, leader_of, make_cluster, pstate, records, retention

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


def test_follower_back_after_delete_records_inside_a_batch(tmp_path: Path, zookeeper_shared: Any) -> None:
    """Kafka ``Partition.doAppendRecordsToFollowerOrFutureReplica`` (UnexpectedAppendOffsetException:
    the log restarts at the batch's base) then ``processPartitionData``'s
    ``maybeIncrementLogStartOffset(leaderLogStartOffset)``: the follower ends with the leader's
    log start offset and records."""
    c = make_cluster(tmp_path, zookeeper_shared)
    try:
        topic = "drf"
        create_topic(c, topic, 3, **{"segment.bytes": "2000", "min.insync.replicas": "1"})
        lead = leader_of(c, topic)
        follower = next(i for i in range(3) if i != lead)
        c.stop(follower)
        p = Producer(
            {"bootstrap.servers": c.bootstrap, "acks": "all", "linger.ms": 50, "batch.num.messages": 10}
        )
        for r in range(6):
            for i in range(10):
                p.produce(topic, key=b"k%d" % i, value=b"v%d-%d" % (r, i), partition=0)
            p.flush(30)
        end = pstate(c, lead, topic)["end"]
        assert end == 60
        req = DeleteRecordsRequest(
            topics=[
                DeleteRecordsRequest.DeleteRecordsTopic(
                    name=topic,
                    partitions=[DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=45)],
                )
            ],
            timeout_ms=10_000,
        )
        with WireClient("127.0.0.1", c.port(lead)) as client:
            (pr,) = client.request(req, 2).topics[0].partitions
        assert pr.error_code == 0
        c.run(retention(c, lead))
        c.start_broker(follower)

        def ok() -> dict | None:
            s = pstate(c, follower, topic)
            return s if s is not None and s["end"] == 60 and s["hw"] == 60 else None

        wait_until(ok, "follower caught up", 30)
        wait_until(lambda: pstate(c, follower, topic)["start"] == 45, "follower log start 45", 10)
        mine = records(c, follower, topic)
        theirs = {o: (k, v) for o, k, v in records(c, lead, topic)}
        assert all(theirs.get(o) == (k, v) for o, k, v in mine)
    finally:
        c.close()
