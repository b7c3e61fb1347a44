#!/usr/bin/env bash
# Creates bench/.venv with the Python peers at the versions of requirements.txt (every
# package pinned, transitive ones included), and simhash-pybind beside them: it ships a
# module also named `simhash`, which would overwrite the pip `simhash` package, so it goes
# to its own folder (py_simhash.py puts it on sys.path for its modes only). Needs python3
# (3.11 measured) with venv and pip, and PyPI. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/pip install -q -r requirements.txt
.venv/bin/pip install -q --target .venv/alt/simhash_pybind simhash-pybind==0.0.3
.venv/bin/pip freeze --all | grep -iE '^(datasketch|rensa|gaoya|simhash|numpy|scipy)=='
