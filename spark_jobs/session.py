"""SparkSession for the jobs and tests: local mode by default, any master URL when given.

- ``PYSPARK_PYTHON`` / ``PYSPARK_DRIVER_PYTHON`` default to this interpreter
  (the venv, which has pyarrow), so executors run the same Python;
- in local mode ``SPARK_LOCAL_IP`` defaults to 127.0.0.1 and the project root
  goes on ``PYTHONPATH`` so Spark's Python workers import ``spark_jobs``,
  ``protocol`` and ``storage`` from the source tree;
- on a cluster (any other master) those three packages are zipped and shipped
  with ``addPyFile``; executors must see the log dirs at the same path
  (shared storage; see docs/SPARK.md);
- the ``moldau`` data source is registered on the session.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHIPPED_PACKAGES = ("spark_jobs", "protocol", "storage")


def is_local_master(master: str | None) -> bool:
    return master is None or master == "local" or master.startswith("local[") or master.startswith("local-")


def prepare_environment(master: str | None) -> None:
    """Environment for the JVM and the Python workers it starts; call before the session exists."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if is_local_master(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(PROJECT_ROOT) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), *paths])


def package_zip(target_dir: Path | None = None) -> Path:
    """A zip of the packages executors need (``--py-files`` / ``addPyFile``)."""
    target_dir = target_dir or Path(tempfile.mkdtemp(prefix="moldau-spark-"))
    out = target_dir / "moldau-spark.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for package in SHIPPED_PACKAGES:
            for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
                zf.write(path, path.relative_to(PROJECT_ROOT).as_posix())
    return out


def register(spark: Any) -> None:
    """Register ``format("moldau")`` on a session."""
    from spark_jobs.datasource import MoldauDataSource

    spark.dataSource.register(MoldauDataSource)


def build_session(
    app_name: str,
    master: str | None = None,
    conf: Mapping[str, str] | None = None,
) -> Any:
    """Get or create the SparkSession, ready for ``spark.read.format("moldau")``.

    ``master`` None leaves it to ``spark-submit --master`` or Spark's default
    (``local[*]``).
    """
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    existing = SparkContext._active_spark_context is not None
    prepare_environment(master)
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    effective = spark.sparkContext.master
    if existing or not is_local_master(effective):
        # Python workers of an already running JVM (or on other machines) did not get our PYTHONPATH.
        zipped = package_zip()
        spark.sparkContext.addPyFile(str(zipped))
        log.info("shipped %s to the executors", zipped)
    register(spark)
    log.info("Spark %s session %r on %s", spark.version, app_name, effective)
    return spark


if __name__ == "__main__":
    # python -m spark_jobs.session: build the zip for spark-submit --py-files on a cluster
    print(package_zip(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
