#!/usr/bin/env bash
# Builds the `near_dup` wheel (crates/python) into a fresh virtualenv and runs its
# pytest suite; .ci/run calls it. Nothing is skipped: the pinned requirements include
# the optional pandas and pyarrow inputs' packages, and a suite that ran no test fails.
#
#   scripts/python_tests.sh            # venv under target/py-venv, wheel, pytest
#   scripts/python_tests.sh -k lsh     # arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/python_env.sh
venv=${CARGO_TARGET_DIR:-target}/py-venv
python_env "$venv" crates/python/requirements-test.txt
"$venv/bin/python" -m pytest -q crates/python/tests "$@"
