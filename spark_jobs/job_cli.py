"""What the jobs share: command-line options, the data source options they map to, table output."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from spark_jobs.options import parse_options
from spark_jobs.planner import Plan, plan_batch


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """Log dirs, topic/partition/offset selection and Spark settings, common to every job."""
    parser.add_argument(
        "log_dirs",
        nargs="+",
        help="Moldau log dirs (the broker's log.dirs); with --brokers, one comma list per broker",
    )
    parser.add_argument(
        "--brokers",
        action="store_true",
        help="each argument is one broker's log dirs (comma list) of a replicated cluster: "
        "each partition is read once, from the replica with the highest high watermark",
    )
    sel = parser.add_mutually_exclusive_group()
    sel.add_argument("--topics", help="comma list of topics (default: every non-internal topic)")
    sel.add_argument("--topic-pattern", help="regex of topic names (full match)")
    parser.add_argument("--partitions", help='comma list of partition numbers, or JSON {"topic":[0,1]}')
    parser.add_argument(
        "--starting-offsets",
        help='earliest (default) or JSON {"topic":{"0":23,"1":-2}} (-2 earliest, -1 latest)',
    )
    parser.add_argument("--ending-offsets", help='latest (default) or JSON {"topic":{"0":42}}')
    parser.add_argument("--starting-timestamp", help="first record timestamp to read (ms since the epoch)")
    parser.add_argument("--ending-timestamp", help="stop before records from this time on (ms)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other option of the moldau data source (repeatable)",
    )
    parser.add_argument("--master", help="Spark master URL (default: spark-submit's, else local[*])")
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="Spark configuration (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON lines")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")


def _pairs(items: Iterable[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"{what} must be KEY=VALUE, not {item!r}")
        out[key] = value
    return out


def source_options(args: argparse.Namespace) -> dict[str, str]:
    """The moldau data source options for the parsed arguments."""
    if getattr(args, "brokers", False):
        opts = {"brokerLogDirs": ";".join(args.log_dirs)}
    else:
        opts = {"logDirs": ",".join(args.log_dirs)}
    for name, option in (
        ("topics", "topics"),
        ("topic_pattern", "topicPattern"),
        ("partitions", "partitions"),
        ("starting_offsets", "startingOffsets"),
        ("ending_offsets", "endingOffsets"),
        ("starting_timestamp", "startingTimestamp"),
        ("ending_timestamp", "endingTimestamp"),
    ):
        value = getattr(args, name, None)
        if value is not None:
            opts[option] = value
    opts.update(_pairs(args.option, "--option"))
    return opts


def spark_conf(args: argparse.Namespace) -> dict[str, str]:
    return _pairs(args.conf, "--conf")


def plan_for(options: Mapping[str, str]) -> Plan:
    """The batch plan the data source will make, computed on the driver (for byte counts, summaries)."""
    return plan_batch(parse_options(options, streaming=False))


def read_source(spark: Any, options: Mapping[str, str]) -> Any:
    return spark.read.format("moldau").options(**options).load()


@dataclass(frozen=True)
class Column:
    name: str
    key: str
    align: str = ">"


def print_table(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[Column], out: TextIO | None = None
) -> None:
    """A plain fixed-width table (rows are dicts) on ``out`` (default: the current sys.stdout)."""
    out = out or sys.stdout
    cells = [[("" if r.get(c.key) is None else str(r.get(c.key))) for c in columns] for r in rows]
    widths = [max([len(c.name)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    print("  ".join(f"{c.name:{c.align}{w}}" for c, w in zip(columns, widths, strict=True)), file=out)
    for row in cells:
        print("  ".join(f"{v:{c.align}{w}}" for v, c, w in zip(row, columns, widths, strict=True)), file=out)


def print_json_lines(rows: Iterable[Mapping[str, Any]], out: TextIO | None = None) -> None:
    out = out or sys.stdout
    for r in rows:
        print(json.dumps(r, default=str, sort_keys=True), file=out)
