"""The stages a distributed job runs (exact_digests, sketch, band_keys, verify),
composed by hand in Python, give dedup's groups: what the Spark example relies on."""

import numpy as np
import pytest

import near_dup
from union_find import components


@pytest.mark.parametrize("threshold,k", [(0.8, None), (0.6, None), (0.9, 5)])
def test_stages_compose_to_dedups_groups(corpus, threshold, k):
    texts = [t for _, t in corpus]
    digests = near_dup.exact_digests(texts)
    assert all(isinstance(d, bytes) and len(d) == 20 for d in digests)
    first = {}
    edges = []
    for i, d in enumerate(digests):
        if d in first:
            edges.append((first[d], i))
        else:
            first[d] = i
    unique = sorted(first.values())
    sig = near_dup.sketch([texts[i] for i in unique], k=k)
    keys = near_dup.band_keys(sig, threshold=threshold)
    assert keys.shape[0] == len(unique) and keys.dtype == np.uint64
    buckets = {}
    for row, i in enumerate(unique):
        for band, key in enumerate(keys[row]):
            buckets.setdefault((band, int(key)), []).append(i)
    candidates = sorted({(a, b) for m in buckets.values() for j, b in enumerate(m) for a in m[max(0, j - 256) : j]})
    kept, scores = near_dup.verify(texts, candidates, threshold=threshold, k=k)
    assert kept.shape == (len(scores), 2) and (scores >= threshold).all()
    edges += [tuple(p) for p in kept.tolist()]
    out = near_dup.dedup(texts, threshold=threshold, k=k)
    assert components(len(texts), edges) == out.groups
    assert len(out.groups) > 10


def test_stage_errors():
    with pytest.raises(ValueError):
        near_dup.band_keys(np.zeros((2, 128), dtype=np.uint64), threshold=1.5)
    with pytest.raises(ValueError):
        near_dup.verify(["a b", "a b"], [(0, 5)])
    with pytest.raises(ValueError):
        near_dup.verify(["a b", "a b"], [(0, 1)], verify="method")
