"""Member ids are built from the client id or group.instance.id; they must still fit a
Kafka string (JoinGroupResponse, GroupMetadataValue) when those are 32767 bytes long."""

from __future__ import annotations

import re

from coordinator.group_metadata import Group, GroupState, fit_string_prefix

UUID_SUFFIX = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def test_member_id_is_prefix_dash_uuid() -> None:
    group = Group("g", GroupState.EMPTY, 0)
    assert UUID_SUFFIX.search(group.generate_member_id("client", None))
    assert group.generate_member_id("client", "inst").startswith("inst-")
    assert group.generate_member_id("client", None).startswith("client-")


def test_member_id_from_a_32767_byte_prefix_fits_a_kafka_string() -> None:
    group = Group("g", GroupState.EMPTY, 0)
    for prefix in ("x" * 32767, "\u00e9" * 16383, "\U0001f600" * 8191):
        for member_id in (group.generate_member_id(prefix, None), group.generate_member_id("c", prefix)):
            assert len(member_id.encode("utf-8")) <= 32767
            assert UUID_SUFFIX.search(member_id)
            assert prefix.startswith(UUID_SUFFIX.sub("", member_id))


def test_fit_string_prefix_cuts_whole_characters() -> None:
    assert fit_string_prefix("abc", 5) == "abc"
    assert fit_string_prefix("\u00e9\u00e9\u00e9", 5) == "\u00e9\u00e9"
    assert fit_string_prefix("\U0001f600", 3) == ""
