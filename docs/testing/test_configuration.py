"""Broker properties, more brokers, and one broker shared by the whole session."""

import uuid

import pytest

from broker.testing.embedded import TopicCreationError


def test_the_ini_file_sets_broker_properties(moldau_broker):
    # pytest.ini: moldau_overrides = auto.create.topics.enable=false
    assert moldau_broker.config["auto.create.topics.enable"] is False


def test_more_brokers_with_properties_of_their_own(moldau_broker_factory):
    wide = moldau_broker_factory({"num.partitions": 4})
    assert wide.config["num.partitions"] == 4
    assert wide.config["auto.create.topics.enable"] is False  # the ini file still applies


@pytest.mark.parametrize("run", range(3))
def test_one_broker_serves_the_session(moldau_broker_session, run):
    topic = f"session-{uuid.uuid4().hex[:8]}"  # topics outlive the test: unique names
    moldau_broker_session.create_topic(topic, config={"retention.ms": 60_000})
    with pytest.raises(TopicCreationError, match="TOPIC_ALREADY_EXISTS"):
        moldau_broker_session.create_topic(topic)
