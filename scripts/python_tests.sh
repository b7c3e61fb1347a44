#!/usr/bin/env bash
# Builds the `near_dup` wheel (crates/python) into a fresh virtualenv and runs its
# pytest suite; .ci/run calls it. Nothing is skipped: the pinned requirements include
# the optional pandas and pyarrow inputs' packages, and a suite that ran no test fails.
#
#   scripts/python_tests.sh            # venv under target/py-venv, wheel, pytest
#   scripts/python_tests.sh -k lsh     # arguments go to pytest
#
# The wheel is built in the dev profile: the fastest to build here (docs/decisions.md,
# "The Python package"); the tests' data are small.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
venv="$target/py-venv"
python=${PYTHON:-python3}
rm -rf "$venv" "$target/wheels"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r crates/python/requirements-test.txt
# The `ndd` binary the tests compare with: the units `cargo test --workspace
# --all-features` built (a no-op after it in .ci/run).
cargo build --locked --quiet --profile test --workspace --all-features --bin ndd
"$venv/bin/maturin" build --locked --quiet --profile dev -m crates/python/Cargo.toml --out "$target/wheels"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "$target"/wheels/near_dup-*.whl
NDD_BIN="$(cd "$target" && pwd)/debug/ndd" "$venv/bin/python" -m pytest -q crates/python/tests "$@"
