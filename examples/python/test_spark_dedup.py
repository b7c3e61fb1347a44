"""The Spark job on a real multi-process Spark (local-cluster: a master, two workers
and two executor JVMs) gives `ndd dedup`'s groups on the bundled corpus.

Run by scripts/spark_test.sh, which sets NDD_BIN and PYSPARK_PYTHON."""

import csv
import glob
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import spark_dedup  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "data" / "debian-copyright.jsonl"
MASTER = "local-cluster[2,1,1024]"


def grouped(rows):
    """(groups of two or more ids, the kept positions) of `id`/`cluster` rows."""
    by_cluster = {}
    for row in rows:
        by_cluster.setdefault(row["cluster"], []).append(row["id"])
    return sorted(sorted(g) for g in by_cluster.values() if len(g) > 1), sorted(int(c) for c in by_cluster)


def read_tsv(paths):
    rows = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            rows += list(csv.DictReader(f, delimiter="\t"))
    return rows


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = SparkSession.builder.master(MASTER).appName("spark_dedup test").getOrCreate()
    # The job's functions are pickled by reference to this module: the executors load it.
    session.sparkContext.addPyFile(spark_dedup.__file__)
    yield session
    session.stop()


@pytest.mark.parametrize("args", [[], ["--threshold", "0.6", "--k", "4"]], ids=["defaults", "t0.6-k4"])
def test_groups_equal_ndd_dedup_on_two_executors(spark, tmp_path, args):
    ndd = pathlib.Path(os.environ.get("NDD_BIN", ROOT / "target" / "debug" / "ndd"))
    assert ndd.is_file(), f"{ndd} not found (scripts/spark_test.sh builds it)"
    tool_clusters = tmp_path / "clusters.tsv"
    subprocess.run(
        [str(ndd), "dedup", "-i", str(CORPUS), "--clusters-out", str(tool_clusters), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
    )
    out = tmp_path / "spark"
    spark_dedup.run(spark, spark_dedup.parse_args(["-i", str(CORPUS), "-o", str(out), "--partitions", "4", *args]))
    # Two executor processes did the work (the driver is listed too).
    assert spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() == 3

    ours = read_tsv(sorted(glob.glob(str(out / "clusters" / "part-*.csv"))))
    theirs = read_tsv([tool_clusters])
    assert [r["id"] for r in ours] == [r["id"] for r in theirs]  # input order kept
    groups, kept = grouped(ours)
    assert (groups, kept) == grouped(theirs)
    assert len(groups) > 10
    kept_records = []
    for path in glob.glob(str(out / "kept" / "part-*.json")):
        with open(path, encoding="utf-8") as f:
            kept_records += [line for line in f if line.strip()]
    assert len(kept_records) == len(kept)
