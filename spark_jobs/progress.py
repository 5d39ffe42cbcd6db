"""Progress of the jobs on stderr: logging set-up and a Spark stage watcher.

The watcher polls Spark's ``StatusTracker`` from a daemon thread and logs a
line whenever the tasks done in a running stage change (at most every
``interval`` seconds), so a long job shows it is alive without Spark's own
console progress bar.
"""

from __future__ import annotations

import logging
import sys
import threading
from types import TracebackType
from typing import Any

log = logging.getLogger("spark_jobs.progress")


def configure_logging(verbose: bool = False) -> None:
    """Log lines on stderr for the job modules (Spark's JVM logs stay as log4j sets them)."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # py4j is chatty at INFO
    logging.getLogger("py4j").setLevel(logging.WARNING)


class StageProgress:
    """``with StageProgress(spark, "export"):`` logs stage progress until the block ends."""

    def __init__(self, spark: Any, label: str, interval: float = 2.0) -> None:
        self.spark = spark
        self.label = label
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last: dict[int, tuple[int, int]] = {}

    def __enter__(self) -> StageProgress:
        self._thread = threading.Thread(target=self._run, name=f"progress-{self.label}", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        tracker = self.spark.sparkContext.statusTracker()
        while not self._stop.wait(self.interval):
            try:
                self.poll(tracker)
            except Exception as exc:  # the context may be stopping; progress is best effort
                log.debug("%s: progress poll failed: %s", self.label, exc)
                return

    def poll(self, tracker: Any) -> list[str]:
        """Log (and return) a line for each active stage whose progress changed."""
        lines = []
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is None:
                continue
            state = (info.numCompletedTasks, info.numTasks)
            if self._last.get(stage_id) == state:
                continue
            self._last[stage_id] = state
            line = (
                f"{self.label}: stage {stage_id} ({info.name.split(' at ')[0]}): "
                f"{info.numCompletedTasks}/{info.numTasks} tasks done, {info.numActiveTasks} running"
            )
            log.info(line)
            lines.append(line)
        return lines
