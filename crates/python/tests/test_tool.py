"""near_dup.dedup gives the `ndd dedup` tool's groups on the bundled corpus."""

import csv
import subprocess

import pytest

import near_dup
from conftest import CORPUS

SETTINGS = [
    ({}, []),
    ({"threshold": 0.6}, ["--threshold", "0.6"]),
    ({"threshold": 0.9, "char_k": 5}, ["--threshold", "0.9", "--char-k", "5"]),
    ({"method": "simhash"}, ["--method", "simhash"]),
    ({"method": "exact", "threshold": 0.7}, ["--method", "exact", "--threshold", "0.7"]),
    ({"representative": "longest", "verify": "method"}, ["--representative", "longest", "--verify", "method"]),
]


def tool_groups(ndd_bin, tmp_path, args):
    clusters = tmp_path / "clusters.tsv"
    subprocess.run(
        [str(ndd_bin), "dedup", "-i", str(CORPUS), "--clusters-out", str(clusters), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
    )
    with open(clusters, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    by_cluster = {}
    for row in rows:
        by_cluster.setdefault(row["cluster"], []).append(row["id"])
    groups = sorted(sorted(g) for g in by_cluster.values() if len(g) > 1)
    kept_positions = sorted({int(c) for c in by_cluster})
    return groups, kept_positions


@pytest.mark.parametrize("kwargs,args", SETTINGS, ids=[" ".join(a) or "defaults" for _, a in SETTINGS])
def test_groups_equal_the_tools(corpus, ndd_bin, tmp_path, kwargs, args):
    expected, kept = tool_groups(ndd_bin, tmp_path, args)
    out = near_dup.dedup(corpus, **kwargs)
    assert sorted(sorted(g) for g in out.group_ids) == expected
    assert out.kept.tolist() == kept  # the tool's cluster is the kept document's position
    assert len(expected) > 10  # the corpus has near-duplicates at every setting
