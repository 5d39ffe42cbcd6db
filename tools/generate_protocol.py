#!/usr/bin/env python3
"""Generate ``protocol/messages`` from Kafka's JSON message specs.

Usage::

    python tools/generate_protocol.py [SPEC_DIR] [--out OUT_DIR]

SPEC_DIR defaults to the specs vendored in ``protocol/specs`` (see its README for
their Kafka versions), OUT_DIR to ``protocol/messages``.

Kafka generates its Java protocol classes from these JSON files
(``generator/src/main/java/org/apache/kafka/message``); this does the same for
Python. For every message it writes one module with:

- a class per struct (the message itself and every nested or common struct),
  with ``__slots__`` holding the union of the fields over all versions, in
  snake_case, and Kafka's defaults;
- straight-line decode and encode functions per distinct wire layout (versions
  whose layouts are equal share one function), with runs of fixed-width fields
  read and written by one precompiled ``struct.Struct``;
- tables mapping each valid version to its functions.

The output is committed, and ``tests/protocol/test_codegen_drift.py`` checks that it is
what this generator makes of the vendored specs; nothing reads the JSON at run time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol_codegen import generate

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "protocol" / "specs"
OUT = ROOT / "protocol" / "messages"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Generate protocol/messages from Kafka's JSON message specs."
    )
    parser.add_argument("spec_dir", nargs="?", type=Path, default=SPECS, help=f"default: {SPECS}")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output directory (default: {OUT})")
    args = parser.parse_args(argv)
    written = generate(args.spec_dir, args.out)
    print(f"generated {len(written) - 1} message modules into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
