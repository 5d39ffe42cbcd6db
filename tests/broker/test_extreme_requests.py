"""Every served API at every served version, fed valid-but-extreme requests.

The requests are generated from the message classes' ``FIELDS`` metadata (field
types, versions, nullability), one request per fixed *profile* and (API, version):
nulls where nullable, empty strings and arrays, strings of the full 32767 bytes a
Kafka string can hold (multi-byte characters too), int extremes, -1, unknown
names and random UUIDs, names that exist (so commits, joins and produces reach
the log) alone or with every number at its largest or smallest, long arrays,
"mixes" that draw a profile per field (seeded), and, for flexible versions, a
compact string longer than 32767 bytes (Kafka's readers refuse it: the
connection is closed).

The broker runs in the test's own event loop; each request goes through the
server's dispatch path (``KafkaConnection._dispatch``) with a stand-in
transport, so a handler's exception surfaces here with its traceback instead of
closing a connection. What is checked: no handler raises (except the documented
``CloseConnection`` of an acks=0 produce that fails), and every answer encodes at
the request's version and decodes again. A sample goes over a real socket too,
with an ApiVersions request after it on the same connection to show that the
connection stays open.
"""

from __future__ import annotations

import asyncio
import random
import struct
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.handlers import REGISTRY, CloseConnection, HandlerSpec, load_handlers
from broker.server import KafkaConnection
from protocol.headers import (
    RequestHeader,
    decode_request_header,
    encode_request_header,
    request_header_version,
    response_header_version,
)
from protocol.messages import ApiKey, ApiVersionsRequest, ApiVersionsResponse
from protocol.messages._base import FieldMeta, Message
from protocol.primitives import ZERO_UUID, DecodeError, write_uvarint
from protocol.records import build_batch
from tests.protocol.strategies import INT_RANGES, covers

load_handlers()

KNOWN_TOPIC = "extreme-known"
KNOWN_GROUP = "extreme-group"
MAX_STRING = 32767
# ASCII and two-byte UTF-8 strings of (nearly) the full int16 length; the second is
# 16383 UTF-16 units, far past offset.metadata.max.bytes.
LONG_ASCII = "x" * MAX_STRING
LONG_UTF8 = "\u00e9" * (MAX_STRING // 2)
OVERLONG_BYTES = 40_000  # a compact string no Kafka reader accepts (> 0x7fff)
OVERLONG_MARKER = "\x01overlong-marker\x01"
MANY = 300  # elements of a top-level array in the "many" profile
BIG_BYTES = b"\xff" * 65_536
ALL_ONES_UUID = uuid.UUID(int=(1 << 128) - 1)
PARK_TIMEOUT_S = 10.0
VALID_TIMEOUT_MS = 6000

# The plain profiles: each gives every field the same kind of value.
PLAIN_PROFILES = (
    "zero",
    "null",
    "known",
    "known-max",
    "known-min",
    "max",
    "long-ids",
    "min",
    "unknown",
    "many",
)
# "known-max" and "known-min" name what exists, like "known", with every other number at its
# largest or smallest value, so that extreme numbers reach the deep paths.
KNOWN_NAMES = ("known", "known-max", "known-min")
# Profiles a "mix" draws from, field by field ("many" only matters for top-level arrays).
MIXED_PROFILES = ("zero", "null", "known", "known-max", "known-min", "max", "long-ids", "min", "unknown")
MIXES = 3
PROFILES = (*PLAIN_PROFILES, *(f"mix-{i}" for i in range(1, MIXES + 1)), "overlong")

# ---------------------------------------------------------------- the generator


@dataclass(frozen=True)
class Case:
    api_key: int
    version: int
    profile: str

    @property
    def spec(self) -> HandlerSpec:
        return REGISTRY[self.api_key]

    @property
    def id(self) -> str:
        return f"{self.spec.name}-v{self.version}-{self.profile}"


def _is_topic_field(owner: type, f: FieldMeta) -> bool:
    return "topic" in f.attr or (f.attr == "name" and "Topic" in owner.__name__)


def _is_partition_field(f: FieldMeta) -> bool:
    return "partition" in f.attr and f.type == "int32"


def _fit(base: str, suffix: str) -> str:
    """``base`` ending in ``suffix``, no longer in UTF-8 bytes than ``base``."""
    return base[: len(base) - len(suffix)] + suffix


class RequestGenerator:
    """Builds one request of ``cls`` at ``version`` for a profile (seeded: the same each run).

    A "mix-N" profile draws, for every field on its own, one of the plain profiles.
    """

    def __init__(self, profile: str, seed: int, *, flexible: bool) -> None:
        self.case_profile = profile
        self.profile = profile
        self.rng = random.Random(seed)
        # Names differ per case so that each case meets fresh groups (a group left with a
        # member by one case would make the next join wait for that member's rebalance).
        self.seed = seed
        self.suffix = f"-{seed:08x}"
        self.flexible = flexible
        self.marker_placed = False

    def build(self, cls: type, version: int, depth: int = 0) -> Any:
        kwargs = {}
        for f in cls.FIELDS:
            if covers(f.versions, version):
                if self.case_profile.startswith("mix"):
                    self.profile = self.rng.choice(MIXED_PROFILES)
                kwargs[f.attr] = self.field(cls, f, version, depth)
        return cls(**kwargs)

    def field(self, owner: type, f: FieldMeta, version: int, depth: int) -> Any:
        nullable = covers(f.nullable_versions, version)
        p = self.profile
        if nullable and (p == "null" or (p in KNOWN_NAMES and f.type == "string" and not f.is_array)):
            return None
        if f.is_array:
            if p == "null":
                return []
            if p == "many" and depth == 0:
                n = MANY
            elif p == "unknown":
                n = self.rng.randint(1, 3)
            else:
                n = 1
            return [self.element(owner, f, version, depth + 1) for _ in range(n)]
        return self.element(owner, f, version, depth + 1)

    def element(self, owner: type, f: FieldMeta, version: int, depth: int) -> Any:
        if f.struct is not None:
            return self.build(f.struct, version, depth)
        value = self.scalar(owner, f)
        if f.attr == "max_wait_ms" and self.case_profile.startswith("mix"):
            # A long poll on a partition that exists is answered when it ends, not a crash;
            # the mix may name one, so it waits at most 100 ms.
            value = min(value, 100)
        return value

    def scalar(self, owner: type, f: FieldMeta) -> Any:
        p, t = self.profile, f.type
        topicish = _is_topic_field(owner, f)
        if t in INT_RANGES:
            lo, hi = INT_RANGES[t]
            if p in (*KNOWN_NAMES, "long-ids", "overlong") and _is_partition_field(f):
                return 0
            if p in (*KNOWN_NAMES, "long-ids") and f.attr.endswith("timeout_ms"):
                return VALID_TIMEOUT_MS  # within group.min/max.session.timeout.ms: joins go through
            if p == "unknown":
                return self.rng.randint(lo, hi)
            return {"zero": 0, "many": 0, "max": hi, "known-max": hi, "min": lo, "known-min": lo}.get(
                p, max(lo, -1)
            )
        if p in KNOWN_NAMES:
            p = "known"
        if t == "string":
            if p == "overlong" and self.flexible and not self.marker_placed and not topicish:
                self.marker_placed = True
                return OVERLONG_MARKER
            if p in ("known", "long-ids", "overlong") and topicish:
                return KNOWN_TOPIC
            if p in ("known", "long-ids") and f.attr == "member_id":
                return ""  # a new member: joins go through, commits are an admin's
            return {
                "known": KNOWN_GROUP + self.suffix,
                "overlong": KNOWN_GROUP + self.suffix,
                "long-ids": _fit(LONG_UTF8, self.suffix),
                "max": _fit(LONG_ASCII, self.suffix),
                "min": "\U0001f600\x00" + self.suffix,
                "unknown": f"unknown-{self.rng.getrandbits(40):010x}",
            }.get(p, "")
        if t == "bool":
            return {"zero": False, "max": True, "null": True}.get(p, self.rng.random() < 0.5)
        if t == "uuid":
            if p in ("zero", "null"):
                return ZERO_UUID
            return ALL_ONES_UUID if p == "max" else uuid.UUID(int=self.rng.getrandbits(128))
        if t == "float64":
            return {"max": float("inf"), "min": float("-inf")}.get(p, 0.0)
        if t == "records":
            if p in ("known", "long-ids"):
                return bytes(build_batch([(b"k", b"v")]))
            if p == "max":
                return BIG_BYTES
            if p == "unknown":
                return self.rng.randbytes(64)
            return b""
        if t == "bytes":
            return {"max": BIG_BYTES, "unknown": self.rng.randbytes(16), "min": b"\x00"}.get(p, b"")
        raise AssertionError(f"no profile value for {owner.__name__}.{f.attr} ({t})")


CLIENT_IDS = {"null": None, "zero": "", "max": LONG_ASCII, "long-ids": LONG_UTF8}


def client_id_for(profile: str, seed: int) -> str | None:
    if profile.startswith("mix"):
        return random.Random(seed).choice([*CLIENT_IDS.values(), "extreme"])
    return CLIENT_IDS.get(profile, "extreme")


def generate(case: Case) -> tuple[Any, RequestGenerator] | None:
    """The request of ``case`` and its generator; None if the profile does not apply (the
    overlong profile needs a flexible version with a string field)."""
    spec, version = case.spec, case.version
    flexible = spec.request_cls.is_flexible(version)
    if case.profile == "overlong" and not flexible:
        return None
    gen = RequestGenerator(case.profile, zlib.crc32(case.id.encode()), flexible=flexible)
    request = gen.build(spec.request_cls, version)
    if case.profile == "overlong" and not gen.marker_placed:
        return None
    return request, gen


def request_frame(
    case: Case, correlation_id: int = 1, patch: Callable[[Any], None] | None = None
) -> bytes | None:
    """The request of ``case`` as a frame (size prefix included); None if the profile does
    not apply (the overlong profile needs a flexible version with a string field).
    ``patch`` may change the generated request before it is encoded."""
    generated = generate(case)
    if generated is None:
        return None
    request, gen = generated
    version, seed = case.version, gen.seed
    if patch is not None:
        patch(request)
    w = bytearray()
    header = RequestHeader(
        case.api_key,
        version,
        correlation_id,
        client_id_for(case.profile, seed),
        request_header_version(case.api_key, version),
    )
    encode_request_header(w, header)
    request.write(w, version)
    body = bytes(w)
    if gen.marker_placed and OVERLONG_MARKER.encode() in body:
        raw = OVERLONG_MARKER.encode()
        encoded = bytearray()
        write_uvarint(encoded, len(raw) + 1)
        overlong = bytearray()
        write_uvarint(overlong, OVERLONG_BYTES + 1)
        assert body.count(bytes(encoded) + raw) == 1
        body = body.replace(bytes(encoded) + raw, bytes(overlong) + b"o" * OVERLONG_BYTES)
    return struct.pack(">i", len(body)) + body


def _embedded_served() -> dict[int, HandlerSpec]:
    """What the broker of these tests (no ZooKeeper) serves: no controller-to-broker APIs."""
    return {k: s for k, s in REGISTRY.items() if s.served_when is None}


def all_cases() -> Iterator[Case]:
    for api_key, spec in sorted(_embedded_served().items()):
        for version in range(spec.min_version, spec.max_version + 1):
            for profile in PROFILES:
                case = Case(api_key, version, profile)
                if profile != "overlong" or request_frame(case) is not None:
                    yield case


CASES = list(all_cases())


# ---------------------------------------------------------------- running a case


class _Transport:
    def write(self, data: Any) -> None:  # the in-process path never writes
        raise AssertionError("unexpected write")

    def close(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


@dataclass
class Outcome:
    kind: str  # "response", "none" (no answer, acks=0), "closed" (with the reason)
    detail: str = ""
    response: Message | None = None


def _decode_response(spec: HandlerSpec, version: int, out: bytes) -> Message:
    (size,) = struct.unpack_from(">i", out, 0)
    assert size == len(out) - 4, "size prefix does not match the frame"
    pos = 8 + (1 if response_header_version(spec.api_key, version) >= 1 else 0)
    return spec.response_cls.decode(memoryview(out), version, pos)


async def dispatch(broker: Broker, case: Case, frame: bytes) -> Outcome:
    """Run one frame through the server's dispatch; exceptions propagate to the test."""
    conn = KafkaConnection(broker.server, "PLAINTEXT", "127.0.0.1")
    conn.transport = _Transport()  # type: ignore[assignment]
    conn.peer = "127.0.0.1:40000"
    closed: list[str | None] = []
    conn.close = closed.append  # type: ignore[method-assign]
    try:
        result = conn._dispatch(bytearray(frame[4:]))
        if result is not None and not isinstance(result, bytes | bytearray):
            result = await asyncio.wait_for(result, PARK_TIMEOUT_S)
    except CloseConnection as exc:
        return Outcome("closed", f"CloseConnection: {exc}")
    if closed:
        return Outcome("closed", str(closed[0]))
    if result is None:
        return Outcome("none")
    return Outcome("response", response=_decode_response(case.spec, case.version, bytes(result)))


def check_outcome(case: Case, outcome: Outcome) -> None:
    if case.profile == "overlong":
        assert outcome.kind == "closed" and "does not decode" in outcome.detail, outcome
        return
    if case.api_key == ApiKey.PRODUCE and outcome.kind != "response":
        # acks=0: no answer, or the connection closed when the produce failed (as Kafka).
        assert outcome.kind == "none" or outcome.detail.startswith("CloseConnection"), outcome
        return
    assert outcome.kind == "response", outcome


# ---------------------------------------------------------------- the broker


class ExtremeBroker:
    """One in-process broker for the module, on a loop the tests drive."""

    def __init__(self, data_dir: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.config = BrokerConfig(
            {
                "log.dirs": str(data_dir),
                "listeners": "PLAINTEXT://127.0.0.1:0",
                "offsets.topic.num.partitions": "3",
                "group.initial.rebalance.delay.ms": "0",
            }
        )
        self.broker = self._start()

    def _start(self) -> Broker:
        broker = Broker(self.config)
        self.run(broker.start())
        self.broker = broker
        self.ensure_known_topic()
        broker.groups.topic.ensure_created()
        return broker

    def restart(self) -> None:
        self.run(self.broker.stop())
        self._start()

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def ensure_known_topic(self) -> None:
        """The topic the "known" profiles name (DeleteTopics may have removed it)."""
        if self.broker.controller.topic(KNOWN_TOPIC) is None:
            self.broker.controller.create_topic(KNOWN_TOPIC, 2, {})

    def call(self, request: Message, version: int, client_id: str | None = "extreme") -> Any:
        """Send ``request`` through the dispatch path; its decoded response."""
        api_key = request.API_KEY
        assert api_key is not None
        w = bytearray()
        encode_request_header(
            w, RequestHeader(api_key, version, 7, client_id, request_header_version(api_key, version))
        )
        request.write(w, version)
        case = Case(api_key, version, "call")
        outcome = self.run(dispatch(self.broker, case, struct.pack(">i", len(w)) + bytes(w)))
        assert outcome.kind == "response", outcome
        return outcome.response

    def close(self) -> None:
        self.run(self.broker.stop())
        self.loop.close()


@pytest.fixture(scope="module")
def extreme_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtremeBroker]:
    b = ExtremeBroker(tmp_path_factory.mktemp("extreme") / "data")
    yield b
    b.close()


@pytest.mark.parametrize("case", [pytest.param(case, id=case.id) for case in CASES])
def test_handler_answers_extreme_request(extreme_broker: ExtremeBroker, case: Case) -> None:
    extreme_broker.ensure_known_topic()
    frame = request_frame(case)
    assert frame is not None
    outcome = extreme_broker.run(dispatch(extreme_broker.broker, case, frame))
    check_outcome(case, outcome)


def test_generator_covers_every_served_version() -> None:
    served = {(k, v) for k, s in _embedded_served().items() for v in range(s.min_version, s.max_version + 1)}
    assert {(c.api_key, c.version) for c in CASES} == served
    overlong = {c.api_key for c in CASES if c.profile == "overlong"}
    assert ApiKey.OFFSET_COMMIT in overlong and ApiKey.JOIN_GROUP in overlong


# ---------------------------------------------------------------- over a real socket

SOCKET_PROFILES = ("null", "max", "long-ids", "overlong")


def _socket_sample() -> list[Case]:
    """Each API at its highest version in a few profiles."""
    return [c for c in CASES if c.version == c.spec.max_version and c.profile in SOCKET_PROFILES]


def _api_versions_frame(correlation_id: int) -> bytes:
    w = bytearray()
    encode_request_header(w, RequestHeader(ApiKey.API_VERSIONS, 3, correlation_id, "probe", 2))
    ApiVersionsRequest(client_software_name="probe", client_software_version="1").write(w, 3)
    return struct.pack(">i", len(w)) + bytes(w)


async def _read_frames(reader: asyncio.StreamReader) -> list[bytes]:
    """Frames until EOF or the ApiVersions answer (correlation id 2)."""
    frames = []
    while True:
        try:
            head = await reader.readexactly(4)
        except asyncio.IncompleteReadError:
            return frames
        frame = head + await reader.readexactly(struct.unpack(">i", head)[0])
        frames.append(frame)
        if struct.unpack_from(">i", frame, 4)[0] == 2:
            return frames


def test_connection_stays_open_after_extreme_requests(extreme_broker: ExtremeBroker) -> None:
    broker = extreme_broker.broker
    host, port = broker.server.bound[0]
    sample = _socket_sample()
    assert len({c.api_key for c in sample}) == len(_embedded_served())

    async def one(case: Case) -> None:
        frame = request_frame(case, correlation_id=1)
        assert frame is not None
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(frame + _api_versions_frame(2))
            await writer.drain()
            frames = await asyncio.wait_for(_read_frames(reader), PARK_TIMEOUT_S)
        finally:
            writer.close()
        correlations = [struct.unpack_from(">i", f, 4)[0] for f in frames]
        if case.profile == "overlong":
            assert correlations == [], f"{case.id}: the connection should have been closed"
            return
        if case.api_key == ApiKey.PRODUCE and correlations in ([2], []):
            return  # acks=0: no answer; closed if it failed
        assert correlations == [1, 2], f"{case.id}: answers {correlations}"
        _decode_response(case.spec, case.version, frames[0])
        ApiVersionsResponse.decode(memoryview(frames[1]), 3, 8)

    async def run_all() -> None:
        for case in sample:
            extreme_broker.ensure_known_topic()
            await one(case)

    extreme_broker.run(run_all())


def test_decode_refuses_overlong_compact_strings() -> None:
    """Kafka's generated readers refuse a string longer than 0x7fff, compact or not."""
    case = next(c for c in CASES if c.api_key == ApiKey.OFFSET_COMMIT and c.profile == "overlong")
    frame = request_frame(case)
    assert frame is not None
    mv = memoryview(frame)[4:]
    _, pos = decode_request_header(mv)
    with pytest.raises(DecodeError, match="exceeds 32767"):
        case.spec.request_cls.decode(mv, case.version, pos, exact=False)
