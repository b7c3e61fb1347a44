"""Every class pickles (and copies) through the Rust crates' versioned byte forms: a
round trip answers every query as the original and as brute force, damaged or
foreign states raise near_dup.Error / ValueError with the Rust message, and an index
crosses into a spawned process."""

import copy
import multiprocessing
import pickle
import random

import pytest

import near_dup

NUM_PERM = 64


def _sets(n, seed=7):
    """`n` token sets built from a few bases with shuffled edits, so that some pairs
    are near duplicates and most are not."""
    rng = random.Random(seed)
    bases = [[f"b{b}w{i}" for i in range(40)] for b in range(5)]
    sets = []
    for _ in range(n):
        base = rng.choice(bases)
        keep = [t for t in base if rng.random() > rng.choice([0.05, 0.3, 0.6])]
        sets.append(set(keep + [f"x{rng.randrange(10_000)}" for _ in range(rng.randrange(4))]))
    return sets


def _minhash(tokens, num_perm=NUM_PERM):
    m = near_dup.MinHash(num_perm=num_perm)
    m.update_batch(sorted(tokens))
    return m


# Keys of several Python types: the pickled key list must bring each back as it was.
KEYS = ["a", 2, ("t", 3), b"raw", 4.5, None, frozenset({1, 2})]


def _keys(n):
    return [KEYS[i] if i < len(KEYS) else f"doc{i}" for i in range(n)]


def _round_trips(obj):
    """The object through every pickle protocol, copy.copy and copy.deepcopy."""
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        yield pickle.loads(pickle.dumps(obj, protocol=protocol))
    yield copy.copy(obj)
    yield copy.deepcopy(obj)


def _lsh_brute_force(lsh, stored, query):
    """The keys sharing a band with `query`: equal digests on some band's rows."""
    b, r = lsh.params
    q = query.digest()
    return {
        key
        for key, m in stored.items()
        if any((m.digest()[i * r : (i + 1) * r] == q[i * r : (i + 1) * r]).all() for i in range(b))
    }


def test_minhash_lsh_round_trip_answers_as_the_original_and_brute_force():
    sets = _sets(40)
    keys = _keys(len(sets))
    mhs = [_minhash(s) for s in sets]
    lsh = near_dup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    for k, m in zip(keys, mhs):
        lsh.insert(k, m)
    lsh.remove(keys[3])  # a hole in the ids
    stored = {k: m for k, m in zip(keys, mhs) if k != keys[3]}
    for again in _round_trips(lsh):
        assert type(again) is near_dup.MinHashLSH
        assert again.keys() == lsh.keys()
        assert len(again) == len(lsh)
        assert (again.params, again.threshold) == (lsh.params, lsh.threshold)
        assert keys[3] not in again and keys[4] in again
        for m in mhs:
            found = again.query(m)
            assert found == lsh.query(m)
            assert set(found) == _lsh_brute_force(lsh, stored, m)
        assert repr(again) == repr(lsh)


def test_a_restored_lsh_keeps_working_and_stays_independent():
    sets = _sets(12)
    mhs = [_minhash(s) for s in sets]
    lsh = near_dup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    for i, m in enumerate(mhs[:10]):
        lsh.insert(i, m)
    lsh.remove(0)
    again = pickle.loads(pickle.dumps(lsh))
    for index in (lsh, again):
        index.insert("new", mhs[10])
        index.remove(5)
        with pytest.raises(ValueError):
            index.insert(1, mhs[11])  # key 1 is still present
    assert again.keys() == lsh.keys() == [1, 2, 3, 4, 6, 7, 8, 9, "new"]
    for m in mhs:
        assert again.query(m) == lsh.query(m)
    twin = copy.deepcopy(lsh)
    twin.remove("new")
    assert "new" in lsh and "new" not in twin
    assert len(lsh) == len(twin) + 1


def test_forest_round_trip_answers_as_the_original():
    sets = _sets(30)
    keys = _keys(len(sets))
    mhs = [_minhash(s) for s in sets]
    forest = near_dup.MinHashLSHForest(num_perm=NUM_PERM, l=8)
    for k, m in zip(keys, mhs):
        forest.add(k, m)
    forest.index()
    forest.remove(keys[0])
    for again in _round_trips(forest):
        assert type(again) is near_dup.MinHashLSHForest
        assert again.keys() == forest.keys()
        for i, m in enumerate(mhs):
            found = again.query(m, 5)
            assert found == forest.query(m, 5)
            # Brute force: best first by the estimate, and a stored set finds itself.
            by_key = dict(zip(keys, mhs))
            estimates = [m.jaccard(by_key[k]) for k in found]
            assert estimates == sorted(estimates, reverse=True)
            if i > 0:
                assert found[0] == keys[i] or m.jaccard(by_key[found[0]]) == 1.0


def test_ensemble_round_trip_answers_as_the_original():
    sets = _sets(30)
    keys = _keys(len(sets))
    mhs = [_minhash(s) for s in sets]
    ensemble = near_dup.MinHashLSHEnsemble(threshold=0.7, num_perm=NUM_PERM, num_part=4, m=4)
    ensemble.index([(k, m, len(s)) for k, m, s in zip(keys, mhs, sets)])
    ensemble.remove(keys[1])
    for again in _round_trips(ensemble):
        assert type(again) is near_dup.MinHashLSHEnsemble
        assert again.keys() == ensemble.keys()
        assert (again.threshold, again.h, again.m) == (ensemble.threshold, ensemble.h, ensemble.m)
        assert again.partitions == ensemble.partitions
        assert repr(again) == repr(ensemble)
        for i, (m, s) in enumerate(zip(mhs, sets)):
            found = again.query(m, len(s))
            assert found == ensemble.query(m, len(s))
            if i != 1:
                assert keys[i] in found  # a set contains all of itself


def test_simhash_index_round_trip_finds_exactly_the_brute_force_neighbours():
    rng = random.Random(3)
    base = [rng.getrandbits(64) for _ in range(6)]
    fps = [b ^ sum(1 << rng.randrange(64) for _ in range(rng.randrange(5))) for b in base for _ in range(6)]
    keys = _keys(len(fps))
    hashes = [near_dup.SimHash(v) for v in fps]
    index = near_dup.SimHashIndex(list(zip(keys, hashes)), k=3)
    index.delete(keys[2])
    stored = {k: h for k, h in zip(keys, hashes) if k != keys[2]}
    for again in _round_trips(index):
        assert type(again) is near_dup.SimHashIndex
        assert (again.k, len(again)) == (index.k, len(index))
        assert keys[2] not in again and keys[0] in again
        for h in hashes:
            found = again.get_near_dups(h)
            assert sorted(map(repr, found)) == sorted(map(repr, index.get_near_dups(h)))
            brute = {k for k, s in stored.items() if s.distance(h) <= 3}
            assert set(found) == brute


def test_sketches_and_generators_round_trip_through_their_byte_forms():
    m = _minhash({"a", "b", "c"})
    gen = near_dup.WeightedMinHashGenerator(dim=5, sample_size=32, seed=4)
    w = gen.minhash([1.0, 0.0, 2.5, 0.5, 3.0])
    s = near_dup.SimHash(["a", ("b", 2.0), "c"], f=128)
    for obj in (m, w, s):
        for again in _round_trips(obj):
            assert again == obj
    for again in _round_trips(gen):
        assert (again.dim, again.sample_size, again.seed) == (5, 32, 4)
        assert again.minhash([1.0, 0.0, 2.5, 0.5, 3.0]) == w
    assert near_dup.SimHash.from_bytes(s.to_bytes()) == s
    # What earlier pickles call (the constructors) still gives the same objects.
    assert near_dup.SimHash(s.value, s.f) == s
    assert near_dup.WeightedMinHash(4, w.digest()) == w
    assert near_dup.WeightedMinHash.from_bytes(w.to_bytes(), seed=4) == w
    with pytest.raises(ValueError, match="other parameters"):
        near_dup.WeightedMinHash.from_bytes(w.to_bytes(), seed=5)
    with pytest.raises(near_dup.Error, match='expected a "SHS1" value, found magic "MHS1"'):
        near_dup.SimHash.from_bytes(m.to_bytes())  # a MinHash's byte form
    with pytest.raises(near_dup.Error, match="checksum"):
        near_dup.SimHash.from_bytes(s.to_bytes()[:-1] + b"\0")


def _damaged(data):
    """`data` with one byte of its body flipped (the checksum no longer matches)."""
    i = len(data) // 2
    return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1 :]


def _indexes():
    mhs = [_minhash(s) for s in _sets(6)]
    lsh = near_dup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    forest = near_dup.MinHashLSHForest(num_perm=NUM_PERM)
    ensemble = near_dup.MinHashLSHEnsemble(num_perm=NUM_PERM)
    for i, m in enumerate(mhs):
        lsh.insert(i, m)
        forest.add(i, m)
    ensemble.index([(i, m, 10 + i) for i, m in enumerate(mhs)])
    simhash = near_dup.SimHashIndex([(i, near_dup.SimHash(i * 977)) for i in range(6)])
    return [lsh, forest, ensemble, simhash]


def _state(index):
    """What `__reduce__` gives, as a function of the byte form and the key pairs (the
    other arguments as pickled), the byte form and the key pairs."""
    restore, args = index.__reduce__()
    i = next(i for i, a in enumerate(args) if isinstance(a, bytes))
    before, after = args[:i], args[i + 2 :]
    return (lambda data, keys: restore(*before, data, keys, *after)), args[i], args[i + 1]


@pytest.mark.parametrize("which", range(4))
def test_damaged_or_foreign_states_raise_the_rust_message(which):
    indexes = _indexes()
    index = indexes[which]
    restore, data, keys = _state(index)
    assert len(keys) == 6

    with pytest.raises(near_dup.Error, match="checksum mismatch"):
        restore(_damaged(data), keys)
    with pytest.raises(near_dup.Error, match="shorter than"):
        restore(data[:10], keys)
    # Another class's byte form: the magic names both kinds.
    other = _state(indexes[(which + 1) % 4])[1]
    with pytest.raises(near_dup.Error, match="expected a .* value, found magic"):
        restore(other, keys)
    # Keys that do not match the ids of the bytes.
    with pytest.raises(near_dup.Error, match="do not match"):
        restore(data, keys[:-1] + [(99, "stray")])
    with pytest.raises(near_dup.Error, match="name 5 documents, the index holds 6"):
        restore(data, keys[:-1])
    with pytest.raises(near_dup.Error, match="twice"):
        restore(data, keys[:-1] + [(keys[-1][0], keys[0][1])])
    # The intact state restores.
    assert _state(restore(data, keys))[1] == data


def test_a_state_of_other_parameters_is_refused():
    lsh = near_dup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    restore, (cls, data, keys, (threshold, num_perm, weights)) = lsh.__reduce__()
    assert (cls, num_perm) == (near_dup.MinHashLSH, NUM_PERM)
    with pytest.raises(ValueError, match="32"):
        restore(cls, data, keys, (threshold, 32, weights))  # bands × rows > 32 slots
    with pytest.raises(near_dup.Error, match='expected a "LSHF" value'):
        restore(near_dup.MinHashLSHForest, data, keys, (num_perm,))
    with pytest.raises(TypeError, match="SimHashIndex is not"):
        restore(near_dup.SimHashIndex, data, keys, (num_perm,))
    forest = near_dup.MinHashLSHForest(num_perm=NUM_PERM, l=8)
    restore, (cls, data, keys, settings) = forest.__reduce__()
    with pytest.raises(near_dup.Error, match="num_perm=128"):
        restore(cls, data, keys, (128,))


def _query_in_child(lsh, queries):
    """Runs in a spawned process: the unpickled index's answers."""
    return [lsh.query(q) for q in queries], lsh.keys()


def test_an_index_crosses_into_a_spawned_process():
    mhs = [_minhash(s) for s in _sets(20)]
    lsh = near_dup.MinHashLSH(threshold=0.5, num_perm=NUM_PERM)
    for i, m in enumerate(mhs):
        lsh.insert(("doc", i), m)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        found, keys = pool.apply(_query_in_child, (lsh, mhs))
    assert keys == lsh.keys()
    assert found == [lsh.query(m) for m in mhs]
