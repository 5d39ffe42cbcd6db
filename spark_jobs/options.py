"""The data source's options, with the names and rules of Spark's Kafka source.

Which partitions (one of):
  ``topics`` (alias ``subscribe``): comma list of topics;
  ``topicPattern`` (alias ``subscribePattern``): a regex, full match;
  ``assign``: JSON ``{"topicA":[0,1],"topicB":[2]}``;
  none: every topic but internal ones (``__`` prefix).
  ``partitions``: comma list of partition numbers (of every chosen topic) or
  JSON like ``assign``, narrowing the choice further.

Which offsets, as Spark's Kafka source (``KafkaSourceProvider``):
  ``startingOffsets``: ``earliest`` (batch default), ``latest`` (streaming
  default; not allowed in batch) or JSON ``{"topicA":{"0":23,"1":-2}}`` (-2
  earliest, -1 latest) naming every chosen partition;
  ``endingOffsets`` (batch only): ``latest`` (default) or JSON (-1 latest;
  -2 not allowed);
  ``startingTimestamp`` / ``endingTimestamp`` (ms, all partitions), or
  ``startingOffsetsByTimestamp`` / ``endingOffsetsByTimestamp`` (JSON of ms),
  resolved through the time index to the first offset whose timestamp is
  >= the given one; they take precedence over ``startingOffsets`` /
  ``endingOffsets``. ``startingOffsetsByTimestampStrategy``: ``error``
  (default) or ``latest`` when no record is that late.

Other options: ``failOnDataLoss`` (default true), ``checkCrcs`` (default
true; Kafka's ``check.crcs``), ``isolationLevel`` (``read_committed``
default, skips aborted transactions; ``read_uncommitted``),
``maxBytesPerPartition`` (default 32 MiB per Spark input partition),
``minPartitions`` (split segments further to get at least this many),
``maxOffsetsPerTrigger`` (streaming rate limit). Log dirs come from
``load(path)`` (comma-separated like ``log.dirs``, or a list) or ``logDirs``:
the log dirs of one broker, where a partition may be in one dir only.

Several brokers of a replicated cluster: ``brokerLogDirs``, each broker's log
dirs comma-separated, brokers separated by ``;`` (``/b1/logs;/b2/logs;/b3/logs``).
Each partition is then read once, from the copy whose high watermark (its
``replication-offset-checkpoint`` entry, clamped to its last whole batch) is
highest (an in-sync replica: the leader's or a follower's that caught up), the
first broker's on a tie, never past that high watermark nor below the largest
log start offset of any copy (see ``LogDirs.scan_brokers``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EARLIEST = -2  # Kafka's ListOffsetsRequest.EARLIEST_TIMESTAMP, as Spark's JSON uses it
LATEST = -1

DEFAULT_MAX_BYTES_PER_PARTITION = 32 * 1024 * 1024  # about 1 s of decoding per task


class OptionError(ValueError):
    """An option value the data source cannot accept (Spark's IllegalArgumentException)."""


@dataclass(frozen=True)
class OffsetSpec:
    """``earliest`` / ``latest`` / per-partition offsets / a timestamp for all / per-partition timestamps."""

    kind: str  # "earliest" | "latest" | "offsets" | "timestamp" | "timestamps"
    offsets: Mapping[tuple[str, int], int] | None = None
    timestamp: int | None = None


@dataclass(frozen=True)
class ReadOptions:
    log_dirs: tuple[str, ...]  # every log dir, of every broker
    broker_log_dirs: tuple[tuple[str, ...], ...]  # the log dirs of each broker (one for logDirs)
    topics: tuple[str, ...] | None
    topic_pattern: str | None
    partitions: Any  # None | set[int] | dict[str, set[int]]
    starting: OffsetSpec
    ending: OffsetSpec
    no_match_latest: bool
    fail_on_data_loss: bool
    check_crcs: bool
    read_committed: bool
    max_bytes_per_partition: int
    min_partitions: int
    max_offsets_per_trigger: int | None


def _lower(options: Mapping[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in options.items()}


def _bool(opts: dict[str, str], name: str, default: bool) -> bool:
    raw = opts.get(name.lower())
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise OptionError(f"option {name} must be true or false, not {raw!r}")
    return value == "true"


def _int(opts: dict[str, str], name: str, default: int | None, minimum: int = 1) -> int | None:
    raw = opts.get(name.lower())
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise OptionError(f"option {name} must be an integer, not {raw!r}") from None
    if value < minimum:
        raise OptionError(f"option {name} must be at least {minimum}, not {value}")
    return value


def parse_log_dirs(opts: dict[str, str]) -> tuple[str, ...]:
    dirs: list[str] = []
    if "paths" in opts:
        try:
            paths = json.loads(opts["paths"])
        except json.JSONDecodeError:
            raise OptionError(f"paths must be a JSON array, not {opts['paths']!r}") from None
        dirs.extend(str(p) for p in paths)
    for key in ("path", "logdirs"):
        if key in opts:
            dirs.extend(p.strip() for p in opts[key].split(",") if p.strip())
    if not dirs:
        raise OptionError("no log dir given: use load(<log dir>[,<log dir>...]) or option logDirs")
    return tuple(dict.fromkeys(dirs))


def parse_broker_log_dirs(opts: dict[str, str]) -> tuple[tuple[str, ...], ...]:
    """``brokerLogDirs`` (``b1dir1,b1dir2;b2dir1;...``), else the one broker of ``logDirs`` / ``load()``."""
    raw = opts.get("brokerlogdirs")
    if raw is None:
        return (parse_log_dirs(opts),)
    if any(key in opts for key in ("paths", "path", "logdirs")):
        raise OptionError("give either brokerLogDirs or logDirs / load(<log dirs>), not both")
    brokers = []
    seen: set[str] = set()
    for group in raw.split(";"):
        dirs = tuple(dict.fromkeys(d.strip() for d in group.split(",") if d.strip()))
        if not dirs:
            continue
        again = seen.intersection(dirs)
        if again:
            raise OptionError(f"brokerLogDirs names log dir {sorted(again)[0]} twice")
        seen.update(dirs)
        brokers.append(dirs)
    if not brokers:
        raise OptionError("brokerLogDirs is empty: use e.g. brokerLogDirs=/b1/logs;/b2/logs;/b3/logs")
    return tuple(brokers)


def _parse_partition_list(raw: str, name: str) -> Any:
    raw = raw.strip()
    if raw.startswith("{"):
        try:
            parsed = json.loads(raw)
            return {str(t): {int(p) for p in parts} for t, parts in parsed.items()}
        except (json.JSONDecodeError, TypeError, ValueError, AttributeError):
            raise OptionError(f'{name} must be like {{"topicA":[0,1],"topicB":[2]}}, not {raw!r}') from None
    try:
        return {int(p) for p in raw.split(",") if p.strip()}
    except ValueError:
        raise OptionError(f"{name} must be a comma list of partition numbers or JSON, not {raw!r}") from None


def _parse_partition_json(raw: str, name: str, example: str) -> dict[tuple[str, int], int]:
    """Spark's JsonUtils.partitionOffsets / partitionTimestamps: {"topic":{"0":n}}."""
    try:
        parsed = json.loads(raw)
        if not isinstance(parsed, dict):
            raise TypeError
        out: dict[tuple[str, int], int] = {}
        for topic, parts in parsed.items():
            for part, value in parts.items():
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError
                out[(str(topic), int(part))] = value
        return out
    except (json.JSONDecodeError, TypeError, ValueError, AttributeError):
        raise OptionError(f"{name}: expected e.g. {example}, got {raw}") from None


_OFFSETS_EXAMPLE = '{"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}'
_TIMESTAMPS_EXAMPLE = '{"topicA": {"0": 1549597128110, "1": 1549597128110}}'


def _offset_spec(opts: dict[str, str], prefix: str, default: str, streaming: bool) -> OffsetSpec:
    """Kafka source precedence: <prefix>Timestamp > <prefix>OffsetsByTimestamp > <prefix>Offsets."""
    ts = opts.get(f"{prefix}timestamp")
    if ts is not None:
        try:
            return OffsetSpec("timestamp", timestamp=int(ts.strip()))
        except ValueError:
            raise OptionError(f"{prefix}Timestamp must be milliseconds since the epoch, not {ts!r}") from None
    by_ts = opts.get(f"{prefix}offsetsbytimestamp")
    if by_ts is not None:
        return OffsetSpec(
            "timestamps",
            offsets=_parse_partition_json(by_ts, f"{prefix}OffsetsByTimestamp", _TIMESTAMPS_EXAMPLE),
        )
    raw = opts.get(f"{prefix}offsets", default).strip()
    if raw.lower() in ("earliest", "latest"):
        return OffsetSpec(raw.lower())
    offsets = _parse_partition_json(raw, f"{prefix}Offsets", _OFFSETS_EXAMPLE)
    for (topic, part), off in offsets.items():
        if off < EARLIEST:
            raise OptionError(f"{prefix}Offsets: offset {off} of {topic}-{part} is not valid")
    return OffsetSpec("offsets", offsets=offsets)


def parse_options(options: Mapping[str, str], *, streaming: bool) -> ReadOptions:
    opts = _lower(options)
    strategies = [
        k for k in ("topics", "subscribe", "topicpattern", "subscribepattern", "assign") if k in opts
    ]
    if len(strategies) > 1:
        raise OptionError(f"only one of topics, topicPattern and assign may be given, not {strategies}")
    topics = None
    pattern = None
    partitions: Any = None
    if "topics" in opts or "subscribe" in opts:
        topics = tuple(
            t.strip() for t in opts.get("topics", opts.get("subscribe", "")).split(",") if t.strip()
        )
        if not topics:
            raise OptionError("topics is empty")
    elif "topicpattern" in opts or "subscribepattern" in opts:
        pattern = opts.get("topicpattern", opts.get("subscribepattern"))
        try:
            re.compile(pattern or "")
        except re.error as exc:
            raise OptionError(f"topicPattern is not a valid regex: {exc}") from None
    elif "assign" in opts:
        partitions = _parse_partition_list(opts["assign"], "assign")
        if not isinstance(partitions, dict):
            raise OptionError('assign must be JSON like {"topicA":[0,1]}')
        topics = tuple(partitions)
    if "partitions" in opts:
        narrowed = _parse_partition_list(opts["partitions"], "partitions")
        if partitions is None:
            partitions = narrowed
        else:
            partitions = {
                t: (ps & narrowed.get(t, set()) if isinstance(narrowed, dict) else ps & narrowed)
                for t, ps in partitions.items()
            }

    starting = _offset_spec(opts, "starting", "latest" if streaming else "earliest", streaming)
    if streaming and any(k in opts for k in ("endingoffsets", "endingtimestamp", "endingoffsetsbytimestamp")):
        raise OptionError("ending offset not valid in streaming queries")
    ending = _offset_spec(opts, "ending", "latest", streaming)
    if not streaming:
        # KafkaSourceProvider.validateBatchOptions
        if starting.kind == "latest":
            raise OptionError("starting offset can't be latest for batch queries on Kafka")
        if starting.kind == "offsets" and any(v == LATEST for v in (starting.offsets or {}).values()):
            bad = [f"{t}-{p}" for (t, p), v in (starting.offsets or {}).items() if v == LATEST]
            raise OptionError(f"startingOffsets for {bad} can't be latest for batch queries on Kafka")
        if ending.kind == "earliest":
            raise OptionError("ending offset can't be earliest for batch queries on Kafka")
        if ending.kind == "offsets" and any(v == EARLIEST for v in (ending.offsets or {}).values()):
            bad = [f"{t}-{p}" for (t, p), v in (ending.offsets or {}).items() if v == EARLIEST]
            raise OptionError(f"ending offset for {bad} can't be earliest for batch queries on Kafka")

    strategy = opts.get("startingoffsetsbytimestampstrategy", "error").strip().lower()
    if strategy not in ("error", "latest"):
        raise OptionError(f"startingOffsetsByTimestampStrategy must be error or latest, not {strategy!r}")
    isolation = (
        opts.get("isolationlevel", opts.get("kafka.isolation.level", "read_committed")).strip().lower()
    )
    if isolation not in ("read_committed", "read_uncommitted"):
        raise OptionError(f"isolationLevel must be read_committed or read_uncommitted, not {isolation!r}")
    brokers = parse_broker_log_dirs(opts)
    return ReadOptions(
        log_dirs=tuple(d for dirs in brokers for d in dirs),
        broker_log_dirs=brokers,
        topics=topics,
        topic_pattern=pattern,
        partitions=partitions,
        starting=starting,
        ending=ending,
        no_match_latest=strategy == "latest",
        fail_on_data_loss=_bool(opts, "failOnDataLoss", True),
        check_crcs=_bool(opts, "checkCrcs", _bool(opts, "kafka.check.crcs", True)),
        read_committed=isolation == "read_committed",
        max_bytes_per_partition=_int(opts, "maxBytesPerPartition", DEFAULT_MAX_BYTES_PER_PARTITION) or 0,
        min_partitions=_int(opts, "minPartitions", 1) or 1,
        max_offsets_per_trigger=_int(opts, "maxOffsetsPerTrigger", None),
    )
