"""Shared fixtures: the repository root, the bundled corpus and the `ndd` binary."""

import json
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CORPUS = ROOT / "data" / "debian-copyright.jsonl"


@pytest.fixture(scope="session")
def corpus():
    """The bundled corpus as (id, text) pairs, in file order."""
    with open(CORPUS, encoding="utf-8") as f:
        return [(r["id"], r["text"]) for r in map(json.loads, f)]


@pytest.fixture(scope="session")
def ndd_bin():
    """The `ndd` binary to compare with: $NDD_BIN (scripts/python_tests.sh sets it)
    or target/debug/ndd. Missing is a failure, not a skip."""
    path = pathlib.Path(os.environ.get("NDD_BIN", ROOT / "target" / "debug" / "ndd"))
    assert path.is_file(), (
        f"{path} not found: build it with "
        "`cargo build --profile test --workspace --all-features --bin ndd` or set NDD_BIN"
    )
    return path
