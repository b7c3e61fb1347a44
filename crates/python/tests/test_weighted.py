"""WeightedMinHashGenerator / WeightedMinHash (ndd-minhash's ICWS) against the exact
weighted Jaccard computed the slow way, and datasketch's estimates in distribution."""

import math
import pickle
import random

import numpy as np
import pytest

import near_dup

datasketch = pytest.importorskip("datasketch")  # pinned in requirements-test.txt

DIM = 40


def weighted_jaccard(a, b):
    """Σ min(a_i, b_i) / Σ max(a_i, b_i), one dimension at a time."""
    num = den = 0.0
    for x, y in zip(a, b):
        num += min(x, y)
        den += max(x, y)
    return num / den


def pairs(rng, count):
    """Pairs of non-negative vectors from nearly equal to nearly disjoint: b shares a
    random part of a's support, with weights perturbed by a random amount."""
    for _ in range(count):
        a = [rng.expovariate(1.0) if rng.random() < 0.6 else 0.0 for _ in range(DIM)]
        a[0] = a[0] or 1.0
        keep, noise = rng.random(), rng.random()
        b = [
            (x * math.exp(rng.gauss(0, noise)) if rng.random() < keep else 0.0)
            + (rng.expovariate(2.0) if rng.random() < 0.2 else 0.0)
            for x in a
        ]
        b[1] = b[1] or 0.5
        yield a, b


def test_estimates_the_exact_weighted_jaccard():
    rng = random.Random(5)
    k = 128
    gen = near_dup.WeightedMinHashGenerator(DIM, sample_size=k, seed=3)
    errors, sigmas = [], []
    for a, b in pairs(rng, 150):
        exact = weighted_jaccard(a, b)
        est = gen.minhash(a).jaccard(gen.minhash(np.array(b)))
        sigma = math.sqrt(exact * (1 - exact) / k)
        assert abs(est - exact) <= 5 * sigma + 2 / k, (exact, est)
        errors.append(est - exact)
        sigmas.append(sigma)
    assert max(sigmas) > 0.03  # the pairs span the range, not only 0 and 1
    # Unbiased: the mean error of 150 independent estimates is within 4 standard
    # errors of zero; the mean absolute error is about sqrt(2/π) σ, well under σ.
    mean_sigma = math.sqrt(sum(s * s for s in sigmas)) / len(sigmas)
    assert abs(sum(errors) / len(errors)) <= 4 * mean_sigma
    assert sum(map(abs, errors)) / len(errors) <= sum(sigmas) / len(sigmas)


def test_agrees_with_datasketch_in_distribution():
    """Different random numbers, the same estimator: per pair the two estimates differ
    by at most what two independent estimates may, and on average by nothing."""
    rng = random.Random(8)
    k = 128
    ours = near_dup.WeightedMinHashGenerator(DIM, sample_size=k)
    theirs = datasketch.WeightedMinHashGenerator(DIM, sample_size=k)
    diffs = []
    for a, b in pairs(rng, 60):
        exact = weighted_jaccard(a, b)
        o = ours.minhash(a).jaccard(ours.minhash(b))
        t = theirs.minhash(np.array(a)).jaccard(theirs.minhash(np.array(b)))
        bound = 5 * math.sqrt(2 * exact * (1 - exact) / k) + 2 / k
        assert abs(o - t) <= bound, (exact, o, t)
        diffs.append(o - t)
    assert abs(sum(diffs) / len(diffs)) < 0.03


def test_sketch_values_and_shape():
    gen = near_dup.WeightedMinHashGenerator(5, sample_size=64, seed=7)
    assert (gen.dim, gen.sample_size, gen.seed) == (5, 64, 7)
    v = [0.0, 2.5, 1.0, 0.0, 4.0]
    m = gen.minhash(v)
    assert len(m) == 64 and m.seed == 7 and m.digest().dtype == np.uint64
    # Consistent: the same vector, as a list, a float32 or a float64 array.
    assert m == gen.minhash(np.array(v, dtype=np.float32)) == gen.minhash(np.array(v))
    assert m.jaccard(gen.minhash(v)) == 1.0
    # Scaling every weight changes the vector (Jaccard 1/2 for a factor of 2).
    assert m.jaccard(gen.minhash([2 * x for x in v])) < 0.8
    again = near_dup.WeightedMinHash(7, m.digest())
    assert again == m and again.jaccard(m) == 1.0
    assert pickle.loads(pickle.dumps(m)) == m
    c = m.copy()
    assert c == m and c is not m
    rows = gen.minhash_many(np.array([v, [0.0] * 5, v]))
    assert rows[0] == m and rows[1] is None and rows[2] == m


def test_minhash_many_takes_scipy_sparse():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    gen = near_dup.WeightedMinHashGenerator(4, sample_size=16)
    dense = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    got = gen.minhash_many(scipy_sparse.csr_matrix(dense))
    assert got[0] == gen.minhash(dense[0]) and got[1] is None


def test_bad_input_raises_value_error():
    gen = near_dup.WeightedMinHashGenerator(3, sample_size=16)
    for v in (
        [1.0, 2.0],  # wrong length
        [1.0, 2.0, 3.0, 4.0],
        [1.0, -2.0, 3.0],  # negative
        [1.0, float("nan"), 3.0],
        [1.0, float("inf"), 3.0],
        [0.0, 0.0, 0.0],  # all zeros, as datasketch
        np.zeros(3),
    ):
        with pytest.raises(ValueError):
            gen.minhash(v)
    with pytest.raises(ValueError):
        gen.minhash_many(np.array([[1.0, 2.0]]))
    m = gen.minhash([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        m.jaccard(near_dup.WeightedMinHashGenerator(3, sample_size=16, seed=2).minhash([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        m.jaccard(near_dup.WeightedMinHashGenerator(3, sample_size=32).minhash([1.0, 2.0, 3.0]))
    for kwargs in ({"dim": 0}, {"dim": 3, "sample_size": 0}):
        with pytest.raises(ValueError):
            near_dup.WeightedMinHashGenerator(**kwargs)
    with pytest.raises(ValueError):
        near_dup.WeightedMinHash(1, np.array([], dtype=np.uint64))
