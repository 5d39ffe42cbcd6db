"""KafkaJS (``tests/support/kafkajs_client.py``) against a broker subprocess.

KafkaJS speaks the protocol with its own code, so it is a canary for what the Java client and
librdkafka forgive:

- the plain path: admin createTopics, produce (uncompressed and gzip), a consumer group that
  reads every record once, in order per partition, and commits offsets the group then resumes
  from;
- transactions: a transactional producer commits and aborts interleaved; a consumer with
  ``readUncommitted: false`` sees exactly the committed records in order (cross-checked with
  confluent-kafka), ``readUncommitted: true`` all of them;
- consume-transform-produce with ``transaction.sendOffsets``, aborted rounds included: every
  source record lands in the sink exactly once, checked by an independent reader of the
  segment files, and the group's committed offsets are the source's end offsets.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict

import pytest

from tests.support.broker_process import BrokerProcess
from tests.support.kafkajs_client import KafkaJSClient, require_kafkajs
from tests.transactions.test_transactions_clients import check_committed_view, read_log

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def kafkajs_broker(tmp_path_factory: pytest.TempPathFactory):
    require_kafkajs()  # before a broker is started for nothing
    b = BrokerProcess(
        tmp_path_factory.mktemp("kafkajs-broker") / "data",
        {
            "transaction.state.log.num.partitions": "3",
            "offsets.topic.num.partitions": "3",
            "group.initial.rebalance.delay.ms": "0",
        },
    )
    b.start()
    yield b
    if b.alive():
        b.stop()
    # KafkaJS's requests never made the broker log an error (an unhandled case would)
    problems = [
        line for line in b.lines if "level=ERROR" in line or "level=WARNING" in line or " exc=" in line
    ]
    assert not problems, "\n".join(problems[:20])


@pytest.fixture
def kafkajs(kafkajs_broker) -> KafkaJSClient:
    return KafkaJSClient(kafkajs_broker.bootstrap, runtime=require_kafkajs())


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def by_partition(records: list[dict]) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = defaultdict(list)
    for r in records:
        out[r["p"]].append(r)
    return out


def test_kafkajs_produce_and_consumer_group(kafkajs):
    topic, group = unique("kjs-plain"), unique("kjs-group")
    assert kafkajs.create_topic(topic, 3).event("created")["partitions"] == 3
    plain = [{"key": f"k{i % 7}", "value": f"plain-{i}"} for i in range(150)]
    gzip = [{"key": f"k{i % 7}", "value": f"gzip-{i}"} for i in range(150)]
    for messages, compression in ((plain, "none"), (gzip, "gzip")):
        produced = kafkajs.produce(topic, messages, compression=compression).event("produced")
        assert all(b["error"] == 0 for b in produced["batches"])

    records = kafkajs.consume(topic, group, 300).records()
    assert Counter(r["v"] for r in records) == Counter(m["value"] for m in plain + gzip)
    partitions = by_partition(records)
    for rs in partitions.values():
        offsets = [r["o"] for r in rs]
        assert offsets == list(range(len(rs)))  # every offset once, in order
    # one key, one partition (KafkaJS's murmur2 partitioner, as Java's), in send order
    keys: dict[str, set[int]] = defaultdict(set)
    for r in records:
        keys[r["k"]].add(r["p"])
    assert all(len(ps) == 1 for ps in keys.values())
    for key in keys:
        values = [r["v"] for r in sorted(records, key=lambda r: r["o"]) if r["k"] == key]
        assert values == [m["value"] for m in plain + gzip if m["key"] == key]

    # the group committed its position: it resumes at the end, and the offsets say so
    assert kafkajs.fetch_offsets(group, topic) == {p: len(rs) for p, rs in partitions.items()}
    assert kafkajs.consume(topic, group, 0, idle_ms=1500).records() == []


def test_kafkajs_commit_and_abort_read_committed(kafkajs, kafkajs_broker):
    topic = unique("kjs-txn")
    kafkajs.create_topic(topic, 3)
    steps, committed, aborted = [], [], []
    for t in range(8):
        end = "abort" if t % 3 == 1 else "commit"
        messages = [{"key": f"k{i}", "value": f"t{t}-{end}-{i}"} for i in range(6)]
        steps.append((end, messages))
        (committed if end == "commit" else aborted).extend(m["value"] for m in messages)
    result = kafkajs.transactions(topic, unique("kjs-tx"), steps)
    assert [e["end"] for e in result.events("transaction")] == [end for end, _ in steps]

    seen = kafkajs.consume(topic, unique("kjs-rc"), len(committed)).records()
    assert sorted(r["v"] for r in seen) == sorted(committed)
    for rs in by_partition(seen).values():
        offsets = [r["o"] for r in rs]
        assert offsets == sorted(offsets)
        # each key's values in the order the transactions sent them
        for key in {r["k"] for r in rs}:
            values = [r["v"] for r in rs if r["k"] == key]
            assert values == [v for v in committed if f"-{key[1:]}" == v[v.rindex("-") :]]
    everything = kafkajs.consume(
        topic, unique("kjs-ru"), len(committed) + len(aborted), read_uncommitted=True
    )
    assert sorted(r["v"] for r in everything.records()) == sorted(committed + aborted)
    # another client's read_committed view agrees
    check_committed_view(kafkajs_broker.bootstrap, topic, committed, aborted)


def test_kafkajs_read_committed_stops_at_the_open_transaction(kafkajs):
    """The last stable offset: while the transaction is open only the record before it is
    read; after its commit the rest follow, in offset order."""
    topic = unique("kjs-lso")
    kafkajs.create_topic(topic, 1)
    txn_values, plain_values = [f"txn-{i}" for i in range(5)], [f"plain-{i}" for i in range(5)]
    result = kafkajs.open_transaction(
        topic, unique("kjs-lso-g"), unique("kjs-lso-tx"), txn_values, plain_values
    )
    assert result.event("open")["seen"] == 1
    assert result.event("committed")["seen"] == 11
    records = result.records()
    assert [r["v"] for r in records] == ["before", *txn_values, *plain_values]
    assert [r["o"] for r in records] == sorted(r["o"] for r in records)


def test_kafkajs_consume_transform_produce(kafkajs, kafkajs_broker):
    source, sink, group = unique("kjs-in"), unique("kjs-out"), unique("kjs-eos")
    kafkajs.create_topic(source, 2)
    kafkajs.create_topic(sink, 2)
    values = [f"s{i}" for i in range(600)]
    kafkajs.produce(source, [{"key": f"k{i % 5}", "value": v} for i, v in enumerate(values)], send_size=20)

    done = kafkajs.copy_exactly_once(source, sink, group, unique("kjs-eos-tx"), len(values), abort_every=3)
    summary = done.event("copied")
    assert summary["copied"] == len(values) and not summary["timedOut"]
    assert summary["aborted"] >= 1

    # independent reader: the sink's committed records, from the segment files
    log_dir = kafkajs_broker.log_dir
    copied = [value.decode() for p in range(2) for _, _, value in read_log(log_dir, sink, p)]
    assert Counter(copied) == Counter(f"copied:{v}" for v in values)
    # the aborted copies are in the log too, and a read_committed consumer skips them
    aborted_copies = sum(b["n"] for b in done.events("batch") if b["end"] == "abort")
    rc = kafkajs.consume(sink, unique("kjs-check"), len(values)).records()
    assert Counter(r["v"] for r in rc) == Counter(copied)
    ru = kafkajs.consume(sink, unique("kjs-check"), len(values) + aborted_copies, read_uncommitted=True)
    assert len(ru.records()) == len(values) + aborted_copies
    # the group's offsets committed with the transactions are the source's end offsets
    source_ends = {p: len(read_log(log_dir, source, p)) for p in range(2)}
    assert kafkajs.fetch_offsets(group, source) == source_ends


def test_kafkajs_group_of_two_consumers(kafkajs):
    topic, group = unique("kjs-two"), unique("kjs-two-group")
    kafkajs.create_topic(topic, 4)
    values = [f"v{i}" for i in range(200)]
    kafkajs.produce(topic, [{"key": f"k{i % 11}", "value": v} for i, v in enumerate(values)])
    result = kafkajs.group_of_two(topic, group, len(values))
    described = result.event("group")
    assert (described["state"], described["members"]) == ("Stable", 2)
    assert described["protocol"] == "RoundRobinAssigner"
    first, second = described["assignments"]
    assert sorted(first + second) == [0, 1, 2, 3] and len(first) == len(second) == 2
    # every record read (a record read again around the rebalance is allowed: at-least-once)
    assert {r["v"] for r in result.records()} == set(values)


def test_kafkajs_second_producer_fences_the_first(kafkajs):
    topic = unique("kjs-fence")
    kafkajs.create_topic(topic, 1)
    result = kafkajs.fence(topic, unique("kjs-fenced"))
    error = result.event("fenced")["error"]
    assert error is not None and error["type"] in ("PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH"), error
    result.event("committed")
    assert [r["v"] for r in kafkajs.consume(topic, unique("kjs-fence-rc"), 1).records()] == ["winner"]
