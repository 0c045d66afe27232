"""The Spark confs that turn Delta Lake and Iceberg on (profiles.example.yml shows the same to
users): one definition for the test suite (conftest.py) and the benchmarks (bench/track.py adds
this folder to its path). Not part of the package: users configure their own session."""

from __future__ import annotations

from pathlib import Path


def lakehouse_conf(spark_home: Path, jars: str) -> dict[str, str]:
    """Delta as ``spark_catalog`` and Iceberg as catalog ``iceberg`` (a hadoop catalog whose
    warehouse is ``spark_home/iceberg-warehouse``), from ``jars`` (comma-separated paths, as
    ``scripts/fetch_lakehouse_jars.sh --print-jars`` prints them)."""
    return {
        "spark.jars": jars,
        "spark.sql.extensions": (
            "io.delta.sql.DeltaSparkSessionExtension,"
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
        ),
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.sql.catalog.iceberg": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.iceberg.type": "hadoop",
        "spark.sql.catalog.iceberg.warehouse": str(spark_home / "iceberg-warehouse"),
        # Delta computes each new snapshot's state in 50 tasks by default; on small tables those
        # tasks, not the data, are most of every Delta write and read.
        "spark.databricks.delta.snapshotPartitions": "2",
    }
