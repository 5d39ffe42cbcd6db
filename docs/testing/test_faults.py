"""The fault hooks: lost and slow answers, broken connections, a crash, a full disk."""

import time

from confluent_kafka import Consumer, Producer


def consume(moldau_broker, topic, count, group="checker"):
    """The values of ``count`` records of ``topic``, read by a member of ``group``."""
    consumer = Consumer(
        {
            "bootstrap.servers": moldau_broker.bootstrap_servers,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    values = []
    while len(values) < count:
        message = consumer.poll(10)
        assert message is not None, f"only {len(values)} of {count} records arrived"
        assert message.error() is None, message.error()
        values.append(message.value())
    consumer.close()
    return values


def test_a_lost_answer_is_retried_and_written_once(moldau_broker):
    moldau_broker.create_topic("payments")
    lost = moldau_broker.drop_responses("Produce")  # handled, but its answer never comes

    producer = Producer(
        {
            "bootstrap.servers": moldau_broker.bootstrap_servers,
            "enable.idempotence": True,
            "socket.timeout.ms": 1000,  # give up on the lost answer after a second
        }
    )
    producer.produce("payments", value=b"pay-1")
    assert producer.flush(30) == 0

    assert lost.handled == 1
    assert moldau_broker.requests("Produce") >= 2  # the client sent it again
    assert consume(moldau_broker, "payments", 1) == [b"pay-1"]  # idempotence: no duplicate


def test_a_slow_answer_still_arrives(moldau_broker):
    moldau_broker.create_topic("audit")
    slow = moldau_broker.delay_responses("Produce", seconds=0.5, count=3)

    producer = Producer({"bootstrap.servers": moldau_broker.bootstrap_servers, "linger.ms": 0})
    for i in range(3):
        producer.produce("audit", value=f"entry-{i}")
        assert producer.flush(10) == 0

    assert slow.handled == 3
    assert consume(moldau_broker, "audit", 3) == [b"entry-0", b"entry-1", b"entry-2"]


def test_clients_reconnect_after_their_connections_are_closed(moldau_broker):
    moldau_broker.create_topic("jobs")
    producer = Producer({"bootstrap.servers": moldau_broker.bootstrap_servers})
    producer.produce("jobs", value=b"job-1")
    assert producer.flush(10) == 0

    assert moldau_broker.close_connections() >= 1  # every client's (or one client_id's)

    producer.produce("jobs", value=b"job-2")
    assert producer.flush(10) == 0
    assert consume(moldau_broker, "jobs", 2) == [b"job-1", b"job-2"]


def test_a_crash_keeps_acknowledged_records_and_committed_offsets(moldau_broker):
    moldau_broker.create_topic("ledger")
    producer = Producer({"bootstrap.servers": moldau_broker.bootstrap_servers, "acks": "all"})
    for i in range(20):
        producer.produce("ledger", value=f"entry-{i}")
    assert producer.flush(10) == 0

    # A member of group "audit" reads 10 records and commits.
    consumer = Consumer(
        {
            "bootstrap.servers": moldau_broker.bootstrap_servers,
            "group.id": "audit",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe(["ledger"])
    for _ in range(10):
        message = consumer.poll(10)
        assert message is not None and message.error() is None
    consumer.commit(message=message, asynchronous=False)
    consumer.close()

    moldau_broker.kill()  # no clean shutdown: the next start recovers the log
    moldau_broker.start()  # same port, same data

    # The group goes on where it committed.
    rest = consume(moldau_broker, "ledger", 10, group="audit")
    assert rest == [f"entry-{i}".encode() for i in range(10, 20)]


def test_a_full_disk_fails_writes_until_space_is_freed(moldau_broker):
    moldau_broker.create_topic("metrics")
    producer = Producer({"bootstrap.servers": moldau_broker.bootstrap_servers})

    with moldau_broker.disk_full():
        producer.produce("metrics", value=b"cpu=0.5")
        deadline = time.monotonic() + 10
        while not moldau_broker.disk_full_reported():  # the append failed: KAFKA_STORAGE_ERROR
            assert time.monotonic() < deadline, "no write failed"
            producer.poll(0.05)

    # Space is back: the producer's retry (KAFKA_STORAGE_ERROR is retriable) goes through.
    assert producer.flush(30) == 0
    assert consume(moldau_broker, "metrics", 1) == [b"cpu=0.5"]
