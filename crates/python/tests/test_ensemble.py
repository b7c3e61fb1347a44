"""MinHashLSHEnsemble (containment search over ndd-lsh's LshEnsemble) against brute
force containment and against datasketch's MinHashLSHEnsemble on the same sketches."""

import random

import numpy as np
import pytest

import near_dup

datasketch = pytest.importorskip("datasketch")  # pinned in requirements-test.txt

NUM_PERM = 128


def containment(q, x):
    """|Q ∩ X| / |Q|, the measure the ensemble searches by."""
    return len(q & x) / len(q)


def sketch(values, seed=1):
    m = near_dup.MinHash(num_perm=NUM_PERM, seed=seed)
    m.update_batch(str(v) for v in values)
    return m


def random_sets(rng, count):
    """`count` base sets of 20 to 1000 values, and for each two query-like sets of
    10 values up to the base's size that take a random fraction (0.3 to 1) of their
    values from the base and the rest from elsewhere: containments of every degree
    around the thresholds tested, between sets of every size ratio."""
    fresh = iter(range(10**6, 10**7))
    bases = [set(rng.sample(range(10**6), int(10 ** rng.uniform(1.3, 3)))) for _ in range(count)]
    sets = list(bases)
    for base in bases:
        for _ in range(2):
            size = rng.randint(10, len(base))
            inside = round(rng.uniform(0.3, 1.0) * size)
            sets.append(set(rng.sample(sorted(base), inside)) | {next(fresh) for _ in range(size - inside)})
    return sets


@pytest.mark.parametrize("threshold", [0.5, 0.8])
def test_recall_of_true_containments(threshold):
    rng = random.Random(7 + int(threshold * 10))
    sets = random_sets(rng, 50)
    sketches = [sketch(s) for s in sets]
    lsh = near_dup.MinHashLSHEnsemble(threshold=threshold, num_perm=NUM_PERM)
    lsh.index((i, m, len(s)) for i, (m, s) in enumerate(zip(sketches, sets)))
    assert len(lsh) == len(sets) and not lsh.is_empty()
    true_pairs = found = candidates = 0
    for qi, q in enumerate(sets):
        got = set(lsh.query(sketches[qi], len(q)))
        assert qi in got  # a set contains itself
        truth = {xi for xi, x in enumerate(sets) if containment(q, x) >= threshold}
        true_pairs += len(truth)
        found += len(truth & got)
        candidates += len(got)
    # LSH Ensemble is tuned for recall: the paper's and datasketch's tests ask for
    # most true pairs, here at least 90% of several hundred.
    assert true_pairs - len(sets) >= 30  # dozens of pairs besides each set in itself
    assert found / true_pairs >= 0.9, (found, true_pairs)
    # And it filters: far fewer candidates than all pairs.
    assert candidates < 0.5 * len(sets) ** 2


def test_prefix_sets_as_datasketch_tests_them():
    """datasketch's own test data: sets {0 … n-1}; every set finds itself."""
    rng = np.random.RandomState(3)
    lsh = near_dup.MinHashLSHEnsemble(threshold=0.9)
    data = []
    for key, size in enumerate(rng.randint(1, 100, 64)):
        data.append((key, sketch(range(size)), int(size)))
    lsh.index(data)
    assert 41 in lsh and 64 not in lsh
    for key, m, size in data:
        assert key in lsh.query(m, size)


def test_agrees_with_datasketch_on_the_same_signatures():
    """Both ensembles index datasketch's own MinHash values (near_dup.MinHash takes
    them as hashvalues): what they find differs only by the partitioning and the
    band tables, so their recall of true containments is alike, and both find every
    set in itself."""
    rng = random.Random(11)
    sets = random_sets(rng, 40)
    theirs_m = []
    for s in sets:
        m = datasketch.MinHash(num_perm=NUM_PERM)
        m.update_batch([str(v).encode() for v in s])
        theirs_m.append(m)
    ours_m = [near_dup.MinHash(hashvalues=m.hashvalues.astype(np.uint64)) for m in theirs_m]
    entries = list(range(len(sets)))
    ours = near_dup.MinHashLSHEnsemble(threshold=0.7, num_perm=NUM_PERM, num_part=16)
    theirs = datasketch.MinHashLSHEnsemble(threshold=0.7, num_perm=NUM_PERM, num_part=16)
    ours.index([(i, ours_m[i], len(sets[i])) for i in entries])
    theirs.index([(i, theirs_m[i], len(sets[i])) for i in entries])
    recall = {"ours": 0, "theirs": 0}
    candidates = {"ours": 0, "theirs": 0}
    true_pairs = 0
    for qi, q in enumerate(sets):
        got_ours = set(ours.query(ours_m[qi], len(q)))
        got_theirs = set(theirs.query(theirs_m[qi], len(q)))
        truth = {xi for xi, x in enumerate(sets) if containment(q, x) >= 0.7}
        assert qi in got_ours and qi in got_theirs
        true_pairs += len(truth)
        recall["ours"] += len(truth & got_ours)
        recall["theirs"] += len(truth & got_theirs)
        candidates["ours"] += len(got_ours)
        candidates["theirs"] += len(got_theirs)
    assert min(recall.values()) / true_pairs >= 0.9, (recall, true_pairs)
    assert abs(recall["ours"] - recall["theirs"]) / true_pairs <= 0.1, (recall, true_pairs)
    # As selective: about as many candidates (false positives included) for the same queries.
    assert abs(candidates["ours"] - candidates["theirs"]) <= 0.25 * candidates["theirs"], candidates


def test_removal_and_repeated_index():
    sets = [set(range(i, i + 50)) for i in range(0, 200, 50)]
    lsh = near_dup.MinHashLSHEnsemble(threshold=0.8)
    lsh.index([(f"k{i}", sketch(s), len(s)) for i, s in enumerate(sets[:2])])
    lsh.index([(f"k{i}", sketch(s), len(s)) for i, s in enumerate(sets) if i >= 2])
    assert sorted(lsh.keys()) == ["k0", "k1", "k2", "k3"]
    assert "k2" in lsh.query(sketch(sets[2]), 50)
    lsh.remove("k2")
    assert "k2" not in lsh and "k2" not in lsh.query(sketch(sets[2]), 50)
    assert len(lsh) == 3


def test_bad_input_raises_value_error_and_changes_nothing():
    lsh = near_dup.MinHashLSHEnsemble(threshold=0.8, num_perm=64)
    m = near_dup.MinHash(num_perm=64)
    m.update("a")
    lsh.index([("a", m, 1)])
    bad_entries = [
        [],  # empty
        [("b", m, 0)],  # size 0
        [("b", m, -3)],  # negative size
        [("b", m, 5), ("c", near_dup.MinHash(num_perm=32), 5)],  # num_perm
        [("b", m, 5), ("c", near_dup.MinHash(num_perm=64, seed=9), 5)],  # seed
        [("b", m, 5), ("b", m, 6)],  # repeated key
        [("a", m, 5)],  # key present
    ]
    for entries in bad_entries:
        with pytest.raises(ValueError):
            lsh.index(entries)
        assert sorted(lsh.keys()) == ["a"] and len(lsh) == 1, entries
    for size in (0, -1):
        with pytest.raises(ValueError):
            lsh.query(m, size)
    with pytest.raises(ValueError):
        lsh.query(near_dup.MinHash(num_perm=32), 3)
    with pytest.raises(ValueError):
        lsh.query(near_dup.MinHash(num_perm=64, seed=9), 3)
    for kwargs in (
        {"threshold": 1.5},
        {"threshold": float("nan")},
        {"num_part": 0},
        {"m": 0},
        {"weights": (-1.0, 2.0)},
        {"num_perm": 0},
    ):
        with pytest.raises(ValueError):
            near_dup.MinHashLSHEnsemble(**kwargs)
