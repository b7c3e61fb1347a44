"""near_dup's datasketch-shaped classes against datasketch itself: the tutorial with
only the import changed, estimates within statistics, the same LSH banding."""

import math
import random
import textwrap

import pytest

import near_dup

datasketch = pytest.importorskip("datasketch")  # pinned in requirements-test.txt

TUTORIAL = textwrap.dedent(
    """
    from {module} import MinHash, MinHashLSH

    set1 = set(['minhash', 'is', 'a', 'probabilistic', 'data', 'structure', 'for',
                'estimating', 'the', 'similarity', 'between', 'datasets'])
    set2 = set(['minhash', 'is', 'a', 'probability', 'data', 'structure', 'for',
                'estimating', 'the', 'similarity', 'between', 'documents'])
    set3 = set(['minhash', 'is', 'probability', 'data', 'structure', 'for',
                'estimating', 'the', 'similarity', 'between', 'documents'])

    m1 = MinHash(num_perm=128)
    m2 = MinHash(num_perm=128)
    m3 = MinHash(num_perm=128)
    for d in set1:
        m1.update(d.encode('utf8'))
    for d in set2:
        m2.update(d.encode('utf8'))
    for d in set3:
        m3.update(d.encode('utf8'))
    estimate = m1.jaccard(m2)

    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    lsh.insert("m2", m2)
    lsh.insert("m3", m3)
    result = lsh.query(m1)
    """
)


def run_tutorial(module):
    scope = {}
    exec(TUTORIAL.format(module=module), scope)
    return scope


def test_tutorial_with_only_the_import_changed():
    ours, theirs = run_tutorial("near_dup"), run_tutorial("datasketch")
    exact = len(ours["set1"] & ours["set2"]) / len(ours["set1"] | ours["set2"])
    sigma = math.sqrt(exact * (1 - exact) / 128)
    assert abs(ours["estimate"] - exact) <= 4 * sigma
    assert abs(ours["estimate"] - theirs["estimate"]) <= 4 * math.sqrt(2) * sigma
    assert sorted(ours["result"]) == sorted(theirs["result"])


def test_estimates_agree_with_datasketch_within_statistics():
    rng = random.Random(13)
    k = 256
    diffs = []
    for overlap in range(0, 301, 25):
        shared = {f"s{rng.getrandbits(48)}" for _ in range(overlap)}
        a = shared | {f"a{rng.getrandbits(48)}" for _ in range(300 - overlap)}
        b = shared | {f"b{rng.getrandbits(48)}" for _ in range(300 - overlap)}
        exact = len(a & b) / len(a | b)
        ours = [near_dup.MinHash(num_perm=k) for _ in range(2)]
        theirs = [datasketch.MinHash(num_perm=k) for _ in range(2)]
        for s, o, t in zip((a, b), ours, theirs):
            o.update_batch(x.encode() for x in s)
            t.update_batch([x.encode() for x in s])
        o_est, t_est = ours[0].jaccard(ours[1]), theirs[0].jaccard(theirs[1])
        bound = 4.5 * math.sqrt(2 * exact * (1 - exact) / k) + 2 / k
        assert abs(o_est - t_est) <= bound, (exact, o_est, t_est)
        diffs.append(o_est - t_est)
    # No systematic difference between the two libraries' estimates.
    assert abs(sum(diffs) / len(diffs)) < 0.02


@pytest.mark.parametrize("num_perm", [64, 128, 256])
@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.7, 0.8, 0.9, 0.95])
@pytest.mark.parametrize("weights", [(0.5, 0.5), (0.2, 0.8)])
def test_lsh_banding_equals_datasketch(num_perm, threshold, weights):
    ours = near_dup.MinHashLSH(threshold=threshold, num_perm=num_perm, weights=weights)
    theirs = datasketch.MinHashLSH(threshold=threshold, num_perm=num_perm, weights=weights)
    assert (ours.b, ours.r) == (theirs.b, theirs.r)


def test_count_estimates_the_number_of_distinct_values_as_datasketch():
    k = 256
    sigma = 1 / math.sqrt(k)  # the estimate's relative standard error, about
    for n in (10, 300, 5000):
        values = [f"v{i}".encode() for i in range(n)]
        ours, theirs = near_dup.MinHash(num_perm=k), datasketch.MinHash(num_perm=k)
        ours.update_batch(values + values[: n // 2])  # repeats do not count
        theirs.update_batch(values)
        assert abs(ours.count() - n) <= 4 * sigma * n + 1, (n, ours.count())
        assert abs(ours.count() - theirs.count()) <= 6 * sigma * n + 1
    assert near_dup.MinHash().count() == 0.0


def test_union_bulk_and_generator_as_datasketch():
    sets = [[b"a", b"b"], [b"c"], [b"a", b"d", b"e"]]
    singles = []
    for s in sets:
        m = near_dup.MinHash(num_perm=32, seed=3)
        m.update_batch(s)
        singles.append(m)
    assert near_dup.MinHash.bulk(sets, num_perm=32, seed=3) == singles
    lazy = near_dup.MinHash.generator(iter(sets), num_perm=32, seed=3)
    assert next(lazy) == singles[0]
    assert list(lazy) == singles[1:]
    every = near_dup.MinHash(num_perm=32, seed=3)
    every.update_batch(b"abcde"[i : i + 1] for i in range(5))
    assert near_dup.MinHash.union(*singles) == every
    assert near_dup.MinHash.union(singles[0], singles[1]).jaccard(every) < 1.0
    with pytest.raises(ValueError, match="less than 2"):
        near_dup.MinHash.union(singles[0])
    with pytest.raises(ValueError, match="num_perm or seed"):
        near_dup.MinHash.union(singles[0], near_dup.MinHash(num_perm=32, seed=4))
    # datasketch spells them the same way.
    assert [m.digest().shape for m in datasketch.MinHash.bulk(sets, num_perm=32)] == [(32,)] * 3


def _sketches(n, num_perm=64):
    rng = random.Random(5)
    base = [f"w{i}" for i in range(30)]
    out = []
    for _ in range(n):
        m = near_dup.MinHash(num_perm=num_perm)
        m.update_batch(t for t in base if rng.random() < 0.8)
        out.append(m)
    return out


def _lsh_of(mhs):
    """A MinHashLSH (threshold 0.5) of the sketches under their positions."""
    lsh = near_dup.MinHashLSH(threshold=0.5, num_perm=64)
    for i, m in enumerate(mhs):
        lsh.insert(i, m)
    return lsh


def test_insertion_and_deletion_sessions_are_the_index_s_insert_and_remove():
    mhs = _sketches(10)
    direct = _lsh_of(mhs)
    with_sessions = near_dup.MinHashLSH(threshold=0.5, num_perm=64)
    with with_sessions.insertion_session(buffer_size=4) as session:
        for i, m in enumerate(mhs):
            session.insert(i, m)
        with pytest.raises(ValueError, match="already exists"):
            session.insert(0, mhs[0])
    assert with_sessions.keys() == direct.keys()
    for index in (direct, with_sessions):
        with index.deletion_session() as session:
            session.remove(3)
            session.remove(7)
    assert with_sessions.keys() == direct.keys() == [0, 1, 2, 4, 5, 6, 8, 9]
    assert [with_sessions.query(m) for m in mhs] == [direct.query(m) for m in mhs]
    with pytest.raises(KeyError):  # an exception inside the block propagates
        with direct.insertion_session():
            raise KeyError("inside")
    with pytest.raises(ValueError, match="buffer_size"):
        direct.insertion_session(buffer_size=0)


def test_counts_and_the_query_buffer_agree_with_datasketch():
    mhs = _sketches(12)
    ours = _lsh_of(mhs)
    theirs = datasketch.MinHashLSH(threshold=0.5, num_perm=64)
    for i, m in enumerate(mhs):
        theirs.insert(i, datasketch.MinHash(num_perm=64, hashvalues=m.digest(), scheme="affine64"))
    # Bucket sizes per band: the same multiset (band keys differ in type).
    for o, t in zip(ours.get_counts(), theirs.get_counts()):
        assert sorted(o.values()) == sorted(t.values())
        assert all(isinstance(k, int) for k in o)
    for o, t in zip(ours.get_subset_counts(1, 2, 2, 5), theirs.get_subset_counts(1, 2, 2, 5)):
        assert sorted(o.values()) == sorted(t.values())
    with pytest.raises(ValueError, match="does not exist"):
        ours.get_subset_counts("absent")
    for queries in ([mhs[0]], [mhs[0], mhs[1]], mhs[2:6]):
        for q in queries:
            ours.add_to_query_buffer(q)
            theirs.add_to_query_buffer(datasketch.MinHash(num_perm=64, hashvalues=q.digest(), scheme="affine64"))
        expected = set.intersection(*(set(ours.query(q)) for q in queries))
        found = ours.collect_query_buffer()
        assert set(found) == expected == set(theirs.collect_query_buffer())
        assert len(found) == len(set(found))
    assert ours.collect_query_buffer() == []  # collecting empties the buffer
