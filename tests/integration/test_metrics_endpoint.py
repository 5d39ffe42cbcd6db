"""The Prometheus endpoint against what real clients did (issue 16's "Done when": a test
scrapes the metrics endpoint during a produce/consume run and checks bytes, messages, lag).

A broker subprocess with ``metrics.prometheus.port=0`` (its port read from its log line);
confluent-kafka produces N records of a known size to a one-partition topic, a consumer
group reads them all and commits part; the endpoint is scraped over HTTP between the steps
and parsed with prometheus_client's parser.
"""

from __future__ import annotations

import re
import time
import urllib.request

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.test_consumer_groups_support import create_topic, start_group_broker
from tests.support.broker_process import BrokerProcess

pytestmark = pytest.mark.integration

TOPIC = "metered"
GROUP = "metered-group"
RECORDS = 200
VALUE_SIZE = 100
COMMITTED = 120
_ENDPOINT = re.compile(r"metrics endpoint listening on http://([^:]+):(\d+)/metrics")


class Scrape:
    """One scrape: samples by name and labels."""

    def __init__(self, text: str) -> None:
        self.samples: dict[tuple[str, frozenset], float] = {}
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                self.samples[(s.name, frozenset(s.labels.items()))] = s.value

    def get(self, name: str, **labels: str) -> float:
        key = (name, frozenset(labels.items()))
        assert key in self.samples, f"no sample {name}{labels}"
        return self.samples[key]

    def total(self, name: str, **labels: str) -> float:
        """The sum over every sample of ``name`` whose labels include ``labels``."""
        want = set(labels.items())
        return sum(v for (n, lbl), v in self.samples.items() if n == name and want <= lbl)


def endpoint_of(b: BrokerProcess) -> str:
    for line in b.lines:
        found = _ENDPOINT.search(line)
        if found:
            return f"http://{found.group(1)}:{found.group(2)}/metrics"
    raise AssertionError("the broker logged no metrics endpoint")


def scrape(url: str) -> Scrape:
    with urllib.request.urlopen(url, timeout=30) as resp:
        assert resp.status == 200
        return Scrape(resp.read().decode())


@pytest.fixture
def metered_broker(tmp_path):
    b = start_group_broker(tmp_path / "data", {"metrics.prometheus.port": "0"})
    yield b
    if b.alive():
        b.stop()


def produce(bootstrap: str) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
    for i in range(RECORDS):
        p.produce(TOPIC, value=f"{i:08d}".encode().ljust(VALUE_SIZE, b"v"), partition=0)
    assert p.flush(30) == 0


def consume_and_commit(bootstrap: str) -> int:
    """Read every record in the group, then commit COMMITTED (not all): the lag is the rest."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": GROUP,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    seen = 0
    try:
        c.subscribe([TOPIC])
        deadline = time.monotonic() + 60
        while seen < RECORDS:
            assert time.monotonic() < deadline, f"consumed {seen} of {RECORDS}"
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            assert len(m.value()) == VALUE_SIZE
            seen += 1
        c.commit(offsets=[TopicPartition(TOPIC, 0, COMMITTED)], asynchronous=False)
    finally:
        c.close()
    return seen


def test_scraped_metrics_match_what_the_clients_did(metered_broker):
    b = metered_broker
    url = endpoint_of(b)
    create_topic(b, TOPIC, partitions=1)
    before = scrape(url)
    assert before.get("kafka_log_log_logendoffset", topic=TOPIC, partition="0") == 0
    assert before.total("kafka_network_requestmetrics_requests_total", request="Produce") == 0

    produce(b.bootstrap)
    after_produce = scrape(url)
    topic = {"topic": TOPIC}
    assert after_produce.get("kafka_server_brokertopicmetrics_messagesin_total", **topic) == RECORDS
    bytes_in = after_produce.get("kafka_server_brokertopicmetrics_bytesin_total", **topic)
    # Every byte appended is in the log (one partition, nothing deleted), and the records'
    # values alone are RECORDS * VALUE_SIZE bytes (uncompressed: the client's default).
    assert bytes_in == after_produce.get("kafka_log_log_size", topic=TOPIC, partition="0")
    assert bytes_in > RECORDS * VALUE_SIZE
    assert after_produce.get("kafka_log_log_logendoffset", topic=TOPIC, partition="0") == RECORDS
    assert after_produce.get("kafka_log_log_logstartoffset", topic=TOPIC, partition="0") == 0
    # One partition per Produce request here: the topic's produce meter equals the API's count.
    produce_requests = after_produce.total("kafka_network_requestmetrics_requests_total", request="Produce")
    assert produce_requests >= 1
    assert after_produce.get("kafka_server_brokertopicmetrics_totalproducerequests_total", **topic) == (
        produce_requests
    )
    assert after_produce.get(
        "kafka_network_requestmetrics_errors_total", request="Produce", error="NONE"
    ) == (produce_requests)
    assert after_produce.get("kafka_network_requestmetrics_totaltimems_count", request="Produce") == (
        produce_requests
    )
    assert after_produce.get("moldau_producer_duplicate_batches_total", **topic) == 0
    assert after_produce.get("kafka_server_replicamanager_produceridcount") >= 1

    assert consume_and_commit(b.bootstrap) == RECORDS
    after_consume = scrape(url)
    assert after_consume.get("kafka_server_brokertopicmetrics_bytesout_total", **topic) >= bytes_in
    fetches = after_consume.total("kafka_network_requestmetrics_requests_total", request="Fetch")
    assert fetches >= 1
    assert after_consume.get("kafka_network_requestmetrics_remotetimems_count", request="Fetch") == fetches
    assert after_consume.get("kafka_server_brokertopicmetrics_totalfetchrequests_total", **topic) >= 1
    assert after_consume.total("kafka_network_requestmetrics_requests_total", request="OffsetCommit") >= 1
    group = {"consumergroup": GROUP, "topic": TOPIC, "partition": "0"}
    assert after_consume.get("kafka_consumergroup_current_offset", **group) == COMMITTED
    assert after_consume.get("kafka_consumergroup_lag", **group) == RECORDS - COMMITTED
    assert after_consume.get("kafka_consumergroup_lag_sum", consumergroup=GROUP, topic=TOPIC) == (
        RECORDS - COMMITTED
    )
    # Nothing more was produced: the produce side did not move.
    assert after_consume.get("kafka_server_brokertopicmetrics_messagesin_total", **topic) == RECORDS
    assert after_consume.get("kafka_server_replicamanager_underreplicatedpartitions") == 0
    assert after_consume.get("kafka_controller_kafkacontroller_offlinepartitionscount") == 0
