#!/usr/bin/env bash
# Runs the Spark example (examples/python/spark_dedup.py) on a real multi-process Spark
# (local-cluster[2,1,1024]: two executor JVMs; Java 17) against `ndd dedup`'s groups,
# in a fresh virtualenv with the pinned pyspark of examples/python/requirements-spark.txt.
#
# Not part of every CI run: pyspark's install and two Spark runs take about 3 minutes
# on 2 cores, past the CI budget left for Python; .ci/run calls this script only when
# NDD_CI_SPARK=1.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/python_env.sh
venv=${CARGO_TARGET_DIR:-target}/spark-venv
python_env "$venv" examples/python/requirements-spark.txt
# The executors' Python workers run the same interpreter, with near_dup installed.
PYSPARK_PYTHON="$(cd "$venv" && pwd)/bin/python"
export PYSPARK_PYTHON PYSPARK_DRIVER_PYTHON="$PYSPARK_PYTHON"
"$venv/bin/python" -m pytest -q examples/python/test_spark_dedup.py "$@"
