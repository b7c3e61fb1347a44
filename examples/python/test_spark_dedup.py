"""The Spark job on a real multi-process Spark (local-cluster: a master, two workers
and two executor JVMs) gives `ndd dedup`'s groups on the bundled corpus.

Run by scripts/spark_test.sh, which sets NDD_BIN and PYSPARK_PYTHON."""

import glob
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT / "crates" / "python" / "tests")]
import spark_dedup  # noqa: E402
from ndd_tool import grouped, read_clusters, tool_clusters  # noqa: E402

CORPUS = ROOT / "data" / "debian-copyright.jsonl"
MASTER = "local-cluster[2,1,1024]"


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
    theirs = tool_clusters(ndd, CORPUS, args, tmp_path / "clusters.tsv")
    out = tmp_path / "spark"
    spark_dedup.run(spark, spark_dedup.parse_args(["-i", str(CORPUS), "-o", str(out), "--partitions", "4", *args]))
    # Two executor processes did the work (the driver is listed too).
    assert spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() == 3

    ours = read_clusters(sorted(glob.glob(str(out / "clusters" / "part-*.csv"))))
    assert [r["id"] for r in ours] == [r["id"] for r in theirs]  # input order kept
    groups, kept = grouped(ours)
    assert (groups, kept) == grouped(theirs)
    assert len(groups) > 10
    kept_records = []
    for path in glob.glob(str(out / "kept" / "part-*.json")):
        with open(path, encoding="utf-8") as f:
            kept_records += [line for line in f if line.strip()]
    assert len(kept_records) == len(kept)
