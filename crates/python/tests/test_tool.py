"""near_dup.dedup gives the `ndd dedup` tool's groups on the bundled corpus."""

import pytest

import near_dup
from conftest import CORPUS
from ndd_tool import grouped, tool_clusters

SETTINGS = [
    ({}, []),
    ({"threshold": 0.6}, ["--threshold", "0.6"]),
    ({"threshold": 0.9, "char_k": 5}, ["--threshold", "0.9", "--char-k", "5"]),
    ({"method": "simhash"}, ["--method", "simhash"]),
    ({"method": "exact", "threshold": 0.7}, ["--method", "exact", "--threshold", "0.7"]),
    ({"representative": "longest", "verify": "method"}, ["--representative", "longest", "--verify", "method"]),
]


@pytest.mark.parametrize("kwargs,args", SETTINGS, ids=[" ".join(a) or "defaults" for _, a in SETTINGS])
def test_groups_equal_the_tools(corpus, ndd_bin, tmp_path, kwargs, args):
    expected, kept = grouped(tool_clusters(ndd_bin, CORPUS, args, tmp_path / "clusters.tsv"))
    out = near_dup.dedup(corpus, **kwargs)
    assert sorted(sorted(g) for g in out.group_ids) == expected
    assert out.kept.tolist() == kept  # the tool's cluster is the kept document's position
    assert len(expected) > 10  # the corpus has near-duplicates at every setting
