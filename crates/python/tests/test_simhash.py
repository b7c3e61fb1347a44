"""SimHash (ndd-simhash) and SimHashIndex (ndd-index's Hamming index), shaped like the
simhash package's Simhash and SimhashIndex, against a brute-force Hamming scan."""

import pickle
import random

import pytest

import near_dup


def popcount(x):
    return bin(x).count("1")


def test_index_equals_a_brute_force_hamming_scan():
    rng = random.Random(21)
    # Clusters of fingerprints a few bits from a centre, and unrelated ones: every
    # distance from 0 to ~32 occurs, many at and around k.
    values = []
    for _ in range(40):
        centre = rng.getrandbits(64)
        values.append(centre)
        for _ in range(rng.randint(0, 6)):
            flips = rng.sample(range(64), rng.randint(0, 6))
            values.append(centre ^ sum(1 << b for b in flips))
    for k in (0, 2, 3):
        index = near_dup.SimHashIndex([(f"d{i}", near_dup.SimHash(v)) for i, v in enumerate(values)], k=k)
        assert len(index) == len(values) and index.k == k
        near_pairs = 0
        for q in values:
            got = index.get_near_dups(near_dup.SimHash(q))
            expected = {f"d{i}" for i, v in enumerate(values) if popcount(v ^ q) <= k}
            assert sorted(got) == sorted(expected), (k, q)
            near_pairs += len(expected) - 1
        if k > 0:
            assert near_pairs > len(values) // 2  # not only each fingerprint itself
    # Nearest first.
    index = near_dup.SimHashIndex([("far", near_dup.SimHash(0b111)), ("near", near_dup.SimHash(1))], k=3)
    assert index.get_near_dups(near_dup.SimHash(0)) == ["near", "far"]


def test_add_and_delete():
    index = near_dup.SimHashIndex([], k=3)
    index.add("a", near_dup.SimHash(0))
    index.add("b", near_dup.SimHash(0b11))
    assert sorted(index.get_near_dups(near_dup.SimHash(1))) == ["a", "b"]
    index.add("a", near_dup.SimHash(0xFF00))  # a new fingerprint for "a"
    assert index.get_near_dups(near_dup.SimHash(1)) == ["b"]
    index.delete("b", near_dup.SimHash(0b11))
    index.delete("absent", near_dup.SimHash(0))  # ignored, as by the simhash package
    assert index.get_near_dups(near_dup.SimHash(1)) == [] and len(index) == 1
    assert "a" in index and "b" not in index


def test_fingerprints_of_texts_and_tokens():
    base = "the quick brown fox jumps over the lazy dog and then runs far into the green forest"
    near = base.replace("green", "dark")
    other = "an entirely different sentence about tax forms, deadlines and the revenue office"
    a, b, c = (near_dup.SimHash(t) for t in (base, near, other))
    assert a == near_dup.SimHash(base) and a.f == 64
    assert a.distance(b) < a.distance(c)
    assert a.distance(b) == popcount(a.value ^ b.value)
    # Token lists: weights count, and a token's weight of 1 is the plain token.
    tokens = base.split()
    assert near_dup.SimHash(tokens) == near_dup.SimHash([(t, 1.0) for t in tokens])
    assert near_dup.SimHash([b"x", b"y"]) == near_dup.SimHash(["x", "y"])
    # Longer fingerprints: the value holds f bits.
    wide = near_dup.SimHash(base, f=128)
    assert wide.f == 128 and 0 <= wide.value < 2**128
    assert near_dup.SimHash(wide.value, f=128) == wide
    assert pickle.loads(pickle.dumps(wide)) == wide


def test_bad_input_raises_value_error():
    for value, f in ((1, 0), (1, 100), (-1, 64), (2**64, 64), ([("t", float("nan"))], 64)):
        with pytest.raises(ValueError):
            near_dup.SimHash(value, f=f)
    with pytest.raises(TypeError):
        near_dup.SimHash([1, 2])
    with pytest.raises(ValueError):
        near_dup.SimHash(1).distance(near_dup.SimHash(1, f=128))
    with pytest.raises(ValueError):
        near_dup.SimHashIndex([], f=128)
    with pytest.raises(ValueError):
        near_dup.SimHashIndex([], k=64)
    with pytest.raises(ValueError):
        near_dup.SimHashIndex([], k=2).add("a", near_dup.SimHash(1, f=128))
