#!/usr/bin/env python3
"""The replication path's CPU per batch in one process, without sockets or other processes.

A leader and two followers (three ReplicaManagers over their own log dirs, replicas 0-2, ISR
all three, min.insync.replicas 2) on one event loop (uvloop): the leader appends 16 KiB
batches (15 x 1 KiB records) with acks=-1, five outstanding as a producer's in-flight
requests; each follower loops as its replica fetcher does: a Fetch v12 request encoded and
decoded, ``handle_fetch`` on the leader (parked in the fetch purgatory until an append),
the answer encoded as the connection would (``FileRecords`` left in the files and copied once,
as the TLS path does), decoded, appended with ``append_as_follower``, the high watermark
taken. Every acks=-1 append completes when both followers fetched past it.

It prints the process CPU time (user + system) per GiB of records and per batch. What it
leaves out is the connection (framing, dispatch, metrics, socket system calls) and the
kernel's loopback TCP work, which ``replication_bench.py`` measures end to end; what it
keeps is the handlers, the purgatories, the partition bookkeeping and the log reads and
writes, with far less noise than a run of four processes on a shared machine.

``--burst N`` appends N batches per loop turn, so each follower fetch carries about N of
them: the CPU per batch falls with the fetches per batch (the replication cost is per
request, not per byte).

Usage: python bench/replication_path_bench.py [--batches N] [--burst N] [--trials N] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import uvloop  # noqa: E402

from broker.fetch_session import FetchManager, FetchSessionCache  # noqa: E402
from broker.handlers import RequestContext  # noqa: E402
from broker.handlers.fetch import handle_fetch  # noqa: E402
from broker.replica_manager import ReplicaManager  # noqa: E402
from broker.response_writer import FileResponse, encode_response  # noqa: E402
from coordinator.cluster_state import PartitionState  # noqa: E402
from protocol.messages import FetchRequest, FetchResponse  # noqa: E402
from storage.log_config import resolve_topic_defaults  # noqa: E402
from storage.log_manager import LogManager  # noqa: E402
from storage.producer_state import AppendOrigin  # noqa: E402
from tests.storage.batch_factory import make_batch  # noqa: E402

GIB = 1 << 30
RECORDS_PER_BATCH = 15
RECORD_SIZE = 1024
FETCH_VERSION = 12
IN_FLIGHT = 5
TOPIC = "t"


class _AllowAll:
    """Every authorization passes (the bench measures the path, not the authorizer)."""

    def __getattr__(self, _name: str):  # type: ignore[no-untyped-def]
        return lambda *_args, **_kwargs: True


def _replica(base: Path, broker_id: int) -> tuple[LogManager, ReplicaManager]:
    logs = LogManager([base / f"broker-{broker_id}"], resolve_topic_defaults({}))
    logs.startup()
    logs.create_topic(TOPIC, 1, uuid.uuid4(), {"min.insync.replicas": 2})
    manager = ReplicaManager(broker_id, logs, lambda: int(time.time() * 1000))
    manager.on_topics_changed({}, [PartitionState(TOPIC, 0, 0, 1, (0, 1, 2), (0, 1, 2))])
    return logs, manager


def _fetch_request(replica_id: int, offset: int, last_epoch: int) -> FetchRequest:
    """A follower's fetch, through its bytes (the leader decodes what the fetcher encoded)."""
    request = FetchRequest(
        replica_id=replica_id,
        max_wait_ms=500,
        min_bytes=1,
        max_bytes=10_485_760,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            FetchRequest.FetchTopic(
                topic=TOPIC,
                partitions=[
                    FetchRequest.FetchPartition(
                        partition=0,
                        current_leader_epoch=1,
                        fetch_offset=offset,
                        last_fetched_epoch=last_epoch,
                        log_start_offset=0,
                        partition_max_bytes=1_048_576,
                    )
                ],
            )
        ],
    )
    w = bytearray()
    request.write(w, FETCH_VERSION)
    return FetchRequest.decode(memoryview(w), FETCH_VERSION)


async def trial(base: Path, batches: int, burst: int, profile: cProfile.Profile | None) -> float:
    """CPU seconds per GiB of one trial."""
    managers = [_replica(base, i) for i in range(3)]
    leader = managers[0][1]
    broker = SimpleNamespace(
        authorizer=_AllowAll(),
        replica_manager=leader,
        config={"fetch.max.bytes": 52_428_800},
        fetch_manager=FetchManager(FetchSessionCache(1000, lambda: 0)),
    )
    running = True

    async def follow(replica_id: int) -> None:
        ctx = RequestContext(
            broker, 1, FETCH_VERSION, 1, f"broker-{replica_id}-fetcher-0", "peer", 1, "PLAINTEXT",
            sends_file_records=True,
        )  # fmt: skip
        partition = managers[replica_id][1].get_partition_or_error(TOPIC, 0)
        plog = partition.log
        while running:
            epoch = plog.leader_epoch_cache.latest_epoch
            request = _fetch_request(replica_id, plog.log_end_offset, -1 if epoch is None else epoch)
            answer = handle_fetch(ctx, request)
            if not isinstance(answer, FetchResponse):
                answer = await answer
            frame = encode_response(answer, FETCH_VERSION, 1, 9)
            if isinstance(frame, FileResponse):
                raw, _ = frame.materialize(), frame.close()
            else:
                raw = frame
            data = FetchResponse.decode(memoryview(raw)[9:], FETCH_VERSION).responses[0].partitions[0]
            if data.records is not None and len(data.records):
                partition.append_records_as_follower(data.records)
            partition.update_follower_high_watermark(data.high_watermark, data.log_start_offset)

    followers = [asyncio.ensure_future(follow(i)) for i in (1, 2)]
    await asyncio.sleep(0.05)  # both followers parked in the fetch purgatory
    batch = bytes(make_batch(RECORDS_PER_BATCH, value_size=RECORD_SIZE))
    outstanding: list[asyncio.Future] = []
    started = time.process_time()
    if profile is not None:
        profile.enable()
    for n in range(batches):
        result = leader.append_records(
            [((TOPIC, 0), memoryview(bytearray(batch)))],
            required_acks=-1,
            origin=AppendOrigin.CLIENT,
            timeout_ms=30_000,
            produce_version=9,
        )
        if not isinstance(result, dict):
            outstanding.append(asyncio.ensure_future(result))
        if len(outstanding) >= IN_FLIGHT * burst:
            await outstanding.pop(0)
        if (n + 1) % burst == 0:
            await asyncio.sleep(0)  # a loop turn: the followers' fetches run
    for pending in outstanding:
        await pending
    if profile is not None:
        profile.disable()
    used = time.process_time() - started
    running = False
    for task in followers:
        task.cancel()
    await asyncio.gather(*followers, return_exceptions=True)
    hw = leader.get_partition_or_error(TOPIC, 0).log.high_watermark
    if hw != batches * RECORDS_PER_BATCH:
        raise RuntimeError(f"high watermark {hw}, expected {batches * RECORDS_PER_BATCH}")
    for logs, _ in managers:
        logs.shutdown()
    return used / (batches * RECORDS_PER_BATCH * RECORD_SIZE / GIB)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=4000, help="16 KiB batches per trial (default 4000)")
    ap.add_argument("--burst", type=int, default=1, help="batches appended per loop turn (default 1)")
    ap.add_argument("--trials", type=int, default=3, help="trials, each on fresh logs (default 3)")
    ap.add_argument("--profile", type=Path, help="cProfile the last trial into this file")
    args = ap.parse_args()
    if args.batches < 1 or args.burst < 1 or args.trials < 1:
        ap.error("--batches, --burst and --trials must be >= 1")
    results = []
    for i in range(args.trials):
        base = Path(tempfile.mkdtemp(prefix="moldau-repl-path-"))
        profile = cProfile.Profile() if args.profile is not None and i == args.trials - 1 else None
        try:
            results.append(uvloop.run(trial(base, args.batches, args.burst, profile)))
        finally:
            shutil.rmtree(base, ignore_errors=True)
        if profile is not None:
            profile.dump_stats(args.profile)
    per_batch_us = [r * RECORDS_PER_BATCH * RECORD_SIZE / GIB * 1e6 for r in results]
    print(
        f"replication path, burst {args.burst}: CPU {statistics.median(results):.2f} s/GiB "
        f"(trials {', '.join(f'{r:.2f}' for r in results)}), "
        f"{statistics.median(per_batch_us):.0f} us per 16 KiB batch"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
