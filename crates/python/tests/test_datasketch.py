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
