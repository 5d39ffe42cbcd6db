#!/usr/bin/env python3
"""The heaviest frames of collapsed stacks (``--cpu-profile`` or py-spy raw output).

Usage: python bench/cpu_sampler/top.py FILE [FILE ...] [--n 40]
Prints each frame's inclusive share (the stacks it is on) and self share (the stacks it ends),
summed over the files given (e.g. one per round of the same broker role).
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

_LINE = re.compile(r":\d+\)")  # py-spy's line numbers: one entry per function


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--n", type=int, default=40, help="frames to print per table (default 40)")
    args = ap.parse_args()
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for path in args.files:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            total += n
            frames = [_LINE.sub(")", f) for f in stack.split(";")]
            for frame in set(frames):
                inclusive[frame] += n
            own[frames[-1]] += n
    print(f"{total} samples")
    for title, counter in (("inclusive", inclusive), ("self", own)):
        print(f"\n{title}")
        for frame, n in counter.most_common(args.n):
            print(f"{100 * n / max(total, 1):6.1f}%  {frame}")


if __name__ == "__main__":
    main()
