"""Spark over Moldau's partition logs: the ``moldau`` data source and the jobs built on it.

- ``spark_jobs.datasource``: ``spark.read.format("moldau")`` / ``spark.readStream.format("moldau")``
  (register it with ``spark_jobs.session.register(spark)``, or build the session with
  ``spark_jobs.session.build_session``);
- jobs, each ``python -m spark_jobs.<job>`` or ``spark-submit spark_jobs/<job>.py``:
  ``topic_stats``, ``export``, ``audit``.

Imports ``protocol`` (record decoding) and ``storage`` (file layout, indexes,
checkpoints) only; it reads the files a broker writes and never talks to a broker.
See docs/SPARK.md.
"""
