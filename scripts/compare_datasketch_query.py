#!/usr/bin/env python3
"""datasketch's side of the top-k and containment comparison (`examples/query_indexes.rs`
is ndd's side): `MinHashLSHForest` (num_perm=128, l=8, datasketch's defaults) and
`MinHashLSHEnsemble` (threshold=0.8, num_perm=128, num_part=16, m=8, its defaults).

Same protocol as the example: word 5-gram sets (bench/common.py's definition: ASCII
lowercase, tokens = runs of [a-z0-9]), MinHash.bulk(num_perm=128) sketches made first
(not timed), 500 queries (documents i * (n // 500)), recall@10 of the exact top 10 by
Jaccard (ties counted: a returned document counts when its Jaccard is at least the
exact 10th best; the forest's unranked keys are ranked by the MinHash estimate), the
recall of the exact top-10 neighbours whose Jaccard is at least 0.5 (ties counted the
same way), and
for containment 0.8 the recall of the documents (other than the query) containing at
least 80% of the query's shingles. Exact answers come from an inverted index of the
shingle sets. Memory: tracemalloc's bytes allocated while building the index (Python
objects and numpy arrays), per document.

Usage (needs datasketch 2.0.0 with numpy and scipy: the bench's venv, `bench/setup.sh`):

    bench/.venv/bin/python scripts/compare_datasketch_query.py [--corpus bench/data/corpus.jsonl]
"""
import argparse, json, re, time, tracemalloc
from collections import defaultdict

from datasketch import MinHash, MinHashLSHEnsemble, MinHashLSHForest

ap = argparse.ArgumentParser()
ap.add_argument("--corpus", default="data/debian-copyright.jsonl")
a = ap.parse_args()

QUERIES, TOP, CONTAINMENT, NUM_PERM = 500, 10, 0.8, 128
TOKEN = re.compile(r"[a-z0-9]+")
LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def shingles(text, k=5):
    t = TOKEN.findall(text.translate(LOWER))
    if not t:
        return []
    if len(t) < k:
        return [" ".join(t)]
    return [" ".join(t[i:i + k]) for i in range(len(t) - k + 1)]


texts = [json.loads(l)["text"] for l in open(a.corpus, encoding="utf-8") if l.strip()]
n = len(texts)
t0 = time.perf_counter()
sets = [set(shingles(t)) for t in texts]
sigs = MinHash.bulk(([s.encode("utf-8") for s in st] for st in sets), num_perm=NUM_PERM)
print(f"corpus: {n} documents; shingles and sketches in {time.perf_counter() - t0:.2f} s")
step = max(1, n // QUERIES)
queries = list(range(0, n, step))[:QUERIES]

# Exact answers through an inverted index.
t0 = time.perf_counter()
postings = defaultdict(list)
for d, st in enumerate(sets):
    for s in st:
        postings[s].append(d)
kth, contained, close = [], [], []
for q in queries:
    common = defaultdict(int)
    for s in sets[q]:
        for d in postings[s]:
            common[d] += 1
    jd = {d: c / (len(sets[q]) + len(sets[d]) - c) for d, c in common.items()}
    js = sorted(jd.values(), reverse=True)
    close.append([d for d in sorted(jd, key=lambda d: -jd[d])[:TOP] if jd[d] >= 0.5])
    kth.append(js[TOP - 1] if len(js) >= TOP else 0.0)
    contained.append({d for d, c in common.items() if d != q and c / len(sets[q]) >= CONTAINMENT})
print(f"exact answers: {time.perf_counter() - t0:.2f} s")


def jac(x, y):
    return len(sets[x] & sets[y]) / len(sets[x] | sets[y]) if sets[x] or sets[y] else 1.0


# Top-k: MinHashLSHForest.
tracemalloc.start()
t0 = time.perf_counter()
forest = MinHashLSHForest(num_perm=NUM_PERM, l=8)
for d, m in enumerate(sigs):
    forest.add(d, m)
forest.index()
build = time.perf_counter() - t0
mem = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
t0 = time.perf_counter()
answers = [forest.query(sigs[q], TOP) for q in queries]
query_s = time.perf_counter() - t0
recall, close_hit = 0.0, 0
for i, (q, got) in enumerate(zip(queries, answers)):
    bar = max(kth[i], 0.5)
    close_hit += min(len(close[i]), sum(1 for d in got if jac(q, d) >= bar))
    ranked = sorted(got, key=lambda d: -sigs[q].jaccard(sigs[d]))[:TOP]
    recall += min(TOP, sum(1 for d in ranked if jac(q, d) >= kth[i])) / TOP
print(f"datasketch MinHashLSHForest l=8: build {build:.3f} s ({n / build:.0f} docs/s); "
      f"{len(queries)} queries {query_s:.3f} s ({len(queries) / query_s:.0f} queries/s), "
      f"recall@{TOP} {recall / len(queries):.4f} (top-{TOP} neighbours with J >= 0.5: "
      f"{close_hit / max(1, sum(len(c) for c in close)):.4f}); {mem / n:.0f} bytes/doc")

# Containment: MinHashLSHEnsemble.
entries = [(d, sigs[d], len(sets[d])) for d in range(n) if sets[d]]
tracemalloc.start()
t0 = time.perf_counter()
ens = MinHashLSHEnsemble(threshold=CONTAINMENT, num_perm=NUM_PERM, num_part=16, m=8)
ens.index(entries)
build = time.perf_counter() - t0
mem = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
t0 = time.perf_counter()
found = [set(ens.query(sigs[q], len(sets[q]))) if sets[q] else set() for q in queries]
query_s = time.perf_counter() - t0
hits = sum(len(c & f) for c, f in zip(contained, found))
truths = sum(len(c) for c in contained)
cands = sum(len(f) for f in found)
print(f"datasketch MinHashLSHEnsemble t=0.8: build {build:.3f} s ({n / build:.0f} docs/s); "
      f"{len(queries)} queries {query_s:.3f} s ({len(queries) / query_s:.0f} queries/s), "
      f"recall {hits / max(1, truths):.4f} ({hits}/{truths}), {cands} candidates; {mem / n:.0f} bytes/doc")
