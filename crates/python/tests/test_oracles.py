"""near_dup against independent oracles: exact Jaccard by brute force in Python,
estimates within their standard error, connected components by union-find."""

import itertools
import math
import random

import numpy as np
import pytest

import near_dup
from union_find import components

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def word(rng):
    return "".join(rng.choice(ALPHABET) for _ in range(8))


def jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 1.0


def set_pair(rng, size, overlap):
    """Two sets of `size` words sharing `overlap` of them: J = overlap / (2 size - overlap)."""
    shared = {word(rng) for _ in range(overlap)}
    a = shared | {word(rng) for _ in range(size - overlap)}
    b = shared | {word(rng) for _ in range(size - overlap)}
    return a, b


def within(estimate, exact, k, sigmas=4.5):
    """|estimate - J| within `sigmas` standard errors sqrt(J(1-J)/k) (plus 1/k for J near 0 or 1)."""
    return abs(estimate - exact) <= sigmas * math.sqrt(exact * (1 - exact) / k) + 1.0 / k


def test_minhash_estimates_exact_jaccard_within_standard_error():
    rng = random.Random(7)
    k = 256
    misses, errors = 0, []
    for overlap in range(0, 201, 10):
        a, b = set_pair(rng, 200, overlap)
        j = jaccard(a, b)
        m1, m2 = near_dup.MinHash(num_perm=k), near_dup.MinHash(num_perm=k)
        m1.update_batch(w.encode() for w in a)
        for w in b:
            m2.update(w.encode())
        est = m1.jaccard(m2)
        errors.append(est - j)
        misses += not within(est, j, k)
    assert misses == 0
    # Unbiased: the mean error over 21 pairs is far below one standard error.
    assert abs(sum(errors) / len(errors)) < 0.02


def test_minhash_merge_is_the_union_and_copy_is_independent():
    rng = random.Random(3)
    a, b = set_pair(rng, 100, 30)
    ma, mb, mu = near_dup.MinHash(), near_dup.MinHash(), near_dup.MinHash()
    ma.update_batch(sorted(a))
    mb.update_batch(sorted(b))
    mu.update_batch(sorted(a | b))
    merged = ma.copy()
    merged.merge(mb)
    assert np.array_equal(merged.digest(), mu.digest())
    assert merged == mu
    assert not np.array_equal(ma.digest(), merged.digest())  # the copy was independent
    assert merged.jaccard(mu) == 1.0


def test_minhash_digest_hashvalues_and_pickle_round_trip():
    import pickle

    m = near_dup.MinHash(num_perm=64, seed=5)
    m.update_batch([b"alpha", "beta", b"gamma"])
    d = m.digest()
    assert d.dtype == np.uint64 and d.shape == (64,)
    again = pickle.loads(pickle.dumps(m))
    assert again == m and again.seed == 5 and len(again) == 64
    again.update(b"delta")  # a restored sketch keeps growing
    fresh = near_dup.MinHash(num_perm=64, seed=5)
    fresh.update_batch([b"alpha", b"beta", b"gamma", b"delta"])
    assert again == fresh
    assert near_dup.MinHash(seed=5, hashvalues=d) == m


def test_minhash_empty_and_mismatched_parameters():
    e = near_dup.MinHash()
    assert e.is_empty()
    e.update(b"x")
    assert not e.is_empty()
    e.clear()
    assert e.is_empty()
    with pytest.raises(ValueError):
        near_dup.MinHash(num_perm=64).jaccard(near_dup.MinHash(num_perm=128))
    with pytest.raises(ValueError):
        near_dup.MinHash(seed=1).merge(near_dup.MinHash(seed=2))
    with pytest.raises(TypeError):
        near_dup.MinHash().update(3)
    with pytest.raises(ValueError):
        near_dup.MinHash(num_perm=0)


def test_lsh_finds_similar_sets_and_keeps_keys():
    rng = random.Random(11)
    k = 128
    lsh = near_dup.MinHashLSH(threshold=0.8, num_perm=k)
    assert lsh.params == (9, 13)  # datasketch's banding for 0.8 on 128
    base = {word(rng) for _ in range(100)}
    near = set(sorted(base)[:99]) | {word(rng)}  # J = 99/101: a candidate with probability 1 - 1e-6
    far = {word(rng) for _ in range(100)}
    sketches = {}
    for key, s in [("base", base), (("tuple", 1), near), (3, far)]:
        m = near_dup.MinHash(num_perm=k)
        m.update_batch(sorted(s))
        sketches[key] = m
        lsh.insert(key, m)
    assert sorted(map(str, lsh.query(sketches["base"]))) == sorted(["base", "('tuple', 1)"])
    assert lsh.query(sketches[3]) == [3]
    assert ("tuple", 1) in lsh and "nope" not in lsh
    assert lsh.keys() == ["base", ("tuple", 1), 3] and len(lsh) == 3
    with pytest.raises(ValueError):
        lsh.insert("base", sketches["base"])
    lsh.remove("base")
    assert "base" not in lsh and lsh.query(sketches["base"]) == [("tuple", 1)]
    with pytest.raises(ValueError):
        lsh.remove("base")
    with pytest.raises(ValueError):
        lsh.insert("short", near_dup.MinHash(num_perm=64))


def test_sketch_rows_estimate_exact_jaccard_of_word_sets():
    rng = random.Random(5)
    k = 256
    texts, sets = [], []
    for overlap in (0, 40, 80, 120, 160, 200):
        a, b = set_pair(rng, 200, overlap)
        for s in (a, b):
            sets.append(s)
            texts.append(" ".join(sorted(s)))
    sig = near_dup.sketch(texts, num_perm=k, k=1)
    assert sig.shape == (len(texts), k) and sig.dtype == np.uint64
    for i in range(0, len(texts), 2):
        est = float(np.mean(sig[i] == sig[i + 1]))
        assert within(est, jaccard(sets[i], sets[i + 1]), k)
    # The same text gives the same row, in any batch.
    assert np.array_equal(near_dup.sketch(texts[:1], num_perm=k, k=1)[0], sig[0])


def near_duplicate_texts(rng, n_bases=12, copies=4):
    texts = []
    for _ in range(n_bases):
        base = [word(rng) for _ in range(60)]
        for _ in range(copies):
            t = list(base)
            for _ in range(rng.randrange(0, 12)):
                t[rng.randrange(len(t))] = word(rng)
            texts.append(" ".join(t))
    rng.shuffle(texts)
    return texts


@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.9])
def test_exact_method_pairs_and_groups_equal_brute_force(threshold):
    rng = random.Random(int(threshold * 100))
    texts = near_duplicate_texts(rng)
    sets = [set(t.split()) for t in texts]
    expected = [
        (i, j)
        for i, j in itertools.combinations(range(len(texts)), 2)
        if jaccard(sets[i], sets[j]) >= threshold
    ]
    out = near_dup.dedup(texts, threshold=threshold, method="exact", k=1, exact_pass=False)
    got = [tuple(p) for p in out.pairs.tolist()]
    assert got == expected
    for (i, j), score in zip(got, out.scores):
        assert score == pytest.approx(jaccard(sets[i], sets[j]))
    assert out.groups == components(len(texts), expected)
    kept = set(range(len(texts))) - {m for g in out.groups for m in g[1:]}
    assert out.kept.tolist() == sorted(kept)  # representative "first": the smallest index
    assert sorted(out.kept.tolist() + out.dropped.tolist()) == list(range(len(texts)))


def test_minhash_method_verified_by_jaccard_is_exact_with_high_recall():
    rng = random.Random(21)
    texts = near_duplicate_texts(rng, n_bases=20)
    sets = [set(t.split()) for t in texts]
    truth = {
        (i, j)
        for i, j in itertools.combinations(range(len(texts)), 2)
        if jaccard(sets[i], sets[j]) >= 0.7
    }
    out = near_dup.dedup(texts, threshold=0.7, k=1, verify="jaccard", exact_pass=False)
    got = {tuple(p) for p in out.pairs.tolist()}
    assert got <= truth  # verification by exact Jaccard: no false positive
    assert len(got) >= 0.95 * len(truth)


def test_inputs_ids_series_and_errors(tmp_path):
    docs = [("a", "one two three four five six"), ("b", "One two three four five six!"), ("c", "x y")]
    out = near_dup.dedup(docs)
    assert out.group_ids == [["a", "b"]] and out.dropped.tolist() == [1]
    out2 = near_dup.dedup(iter(t for _, t in docs))
    assert out2.groups == [[0, 1]]
    assert out.report["documents"] == 3 and out.report["exact_copies"] == 1
    with pytest.raises(ValueError):
        out.kept[0] = 2  # an outcome's arrays are shared by every access: read-only
    with pytest.raises(TypeError):
        near_dup.dedup(docs, 0.8)  # settings are keyword-only
    with pytest.raises(ValueError):
        near_dup.dedup(["a"], threshold=1.5)
    with pytest.raises(ValueError):
        near_dup.dedup(["a"], method="nope")
    with pytest.raises(ValueError):
        near_dup.dedup("not a list")
    with pytest.raises(ValueError):
        near_dup.dedup(["ok", 3])
    with pytest.raises(ValueError):
        near_dup.dedup(["a", ("id", "text")])
    with pytest.raises(OSError):
        near_dup.DedupIndex.load(str(tmp_path / "missing.idx"))
    with pytest.raises(near_dup.Error):
        near_dup.DedupIndex.from_bytes(b"not an index at all")
    with pytest.raises(near_dup.Error):
        near_dup.MinHash.from_bytes(b"MHS1\x01")


def test_dedup_index_batches_save_load_query_pickle(tmp_path):
    import pickle

    index = near_dup.DedupIndex(threshold=0.8)
    index.add([("old", "a notice about the new parking rules downtown from monday on")])
    out = index.add([("new", "A notice about the new parking rules downtown from monday on!")])
    assert out.group_ids == [["old", "new"]] and out.dropped.tolist() == [1]
    path = tmp_path / "index.ndd"
    index.save(str(path))
    loaded = near_dup.DedupIndex.load(str(path))
    assert loaded.ids() == ["old", "new"] and len(loaded) == 2
    again = pickle.loads(pickle.dumps(loaded))
    top = again.query("a notice about the new parking rules downtown from monday on", k=1)
    assert top[0][0] == "old" and top[0][1] == pytest.approx(1.0)


def test_explain_matches_the_s_curve():
    e = near_dup.explain(0.8, 128)
    b, r = e["bands"], e["rows"]
    assert b * r <= 128
    assert e["probability_at_threshold"] == pytest.approx(1 - (1 - 0.8**r) ** b)
    assert e["standard_error"] == pytest.approx(math.sqrt(0.8 * 0.2 / 128))


def test_numpy_array_of_str():
    texts = ["one two three four five six", "one two three four five six", "x y z"]
    assert near_dup.dedup(np.array(texts)).groups == [[0, 1]]


@pytest.mark.parametrize("module", ["pandas", "pyarrow"])
def test_pandas_series_and_pyarrow_array(module):
    # Optional inputs: reported as skipped where the package is not installed.
    mod = pytest.importorskip(module)
    texts = ["one two three four five six", "one two three four five six", "x y z"]
    column = mod.Series(texts) if module == "pandas" else mod.array(texts)
    assert near_dup.dedup(column).groups == [[0, 1]]


def test_forest_top_k_finds_the_exact_nearest():
    rng = random.Random(17)
    k = 128
    forest = near_dup.MinHashLSHForest(num_perm=k, l=8)
    bases = [{word(rng) for _ in range(80)} for _ in range(150)]
    for i, s in enumerate(bases):
        m = near_dup.MinHash(num_perm=k)
        m.update_batch(sorted(s))
        forest.add(f"doc{i}", m)
    forest.index()
    assert len(forest) == 150 and "doc3" in forest
    hits = 0
    for i in range(0, 150, 5):
        query = set(sorted(bases[i])[:72]) | {word(rng) for _ in range(8)}  # J = 72/88 with doc i
        exact = max(range(150), key=lambda j: jaccard(query, bases[j]))
        assert exact == i
        m = near_dup.MinHash(num_perm=k)
        m.update_batch(sorted(query))
        top = forest.query(m, 3)
        assert 1 <= len(top) <= 3
        hits += top[0] == f"doc{i}"
    assert hits == 30  # every planted nearest ranks first
    with pytest.raises(ValueError):
        forest.add("doc0", m)
    with pytest.raises(ValueError):
        forest.query(m, 0)
    forest.remove("doc0")
    assert "doc0" not in forest
