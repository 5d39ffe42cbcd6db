"""Group APIs and DescribeProducers denials (KafkaApis)."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from protocol.messages import DescribeProducersRequest, JoinGroupRequest, SyncGroupRequest
from tests.security.authz_broker import create_topic, secured_fixtures, unique
from tests.support.wire_client import WireClient

secured, admin, alice, clean_acls = secured_fixtures("authz-groups")


def test_sync_group_v5_missing_protocol_checked_before_authorization(alice: WireClient) -> None:
    """KafkaApis.handleSyncGroupRequest: ``!areMandatoryProtocolTypeAndNamePresent()``
    (v5+) answers INCONSISTENT_GROUP_PROTOCOL before the Read-on-group check."""
    r = alice.request(
        SyncGroupRequest(
            group_id=unique("g"),
            generation_id=1,
            member_id="m",
            group_instance_id=None,
            protocol_type=None,
            protocol_name=None,
            assignments=[],
        ),
        5,
    )
    assert r.error_code == ErrorCode.INCONSISTENT_GROUP_PROTOCOL.code


def test_describe_producers_invalid_topic_name_before_authorization(alice: WireClient) -> None:
    """KafkaApis.handleDescribeProducersRequest: ``checkValidTopic`` (Topic.validate) runs
    first, so a name no topic can have answers INVALID_TOPIC_EXCEPTION, not
    TOPIC_AUTHORIZATION_FAILED."""
    r = alice.request(
        DescribeProducersRequest(
            topics=[DescribeProducersRequest.TopicRequest(name="bad/name", partition_indexes=[0])]
        ),
        0,
    )
    assert [p.error_code for t in r.topics for p in t.partitions] == [ErrorCode.INVALID_TOPIC_EXCEPTION.code]


def test_describe_producers_denial_message(admin: WireClient, alice: WireClient) -> None:
    """KafkaApis.handleDescribeProducersRequest: ``new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED)``
    carries Errors' message, written as the partition's ErrorMessage."""
    name = unique("dp")
    create_topic(admin, name)
    r = alice.request(
        DescribeProducersRequest(
            topics=[DescribeProducersRequest.TopicRequest(name=name, partition_indexes=[0])]
        ),
        0,
    )
    (p,) = [p for t in r.topics for p in t.partitions]
    assert (p.error_code, p.error_message) == (
        ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
        "Topic authorization failed.",
    )


@pytest.mark.parametrize(("version", "protocol_name"), [(5, ""), (9, None)])
def test_join_group_denial_is_get_error_response(
    alice: WireClient, version: int, protocol_name: str | None
) -> None:
    """KafkaApis.handleJoinGroupRequest answers ``joinGroupRequest.getErrorResponse``:
    MemberId and Leader UNKNOWN_MEMBER_ID (""), GenerationId -1, ProtocolName "" before v7
    and null from v7, whatever member id the request carried."""
    r = alice.request(
        JoinGroupRequest(
            group_id=unique("g"),
            session_timeout_ms=10_000,
            rebalance_timeout_ms=10_000,
            member_id="some-member",
            group_instance_id=None,
            protocol_type="consumer",
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"")],
            reason=None,
        ),
        version,
    )
    assert r.error_code == ErrorCode.GROUP_AUTHORIZATION_FAILED.code
    assert (r.member_id, r.leader, r.generation_id, r.protocol_name) == ("", "", -1, protocol_name)
