#!/usr/bin/env python3
"""near_dup against the Python peers, end to end: texts in a Python list -> groups out.

Each peer runs in a fresh process (`--peer NAME`); the timed span starts with the texts
in memory and ends with the groups (lists of document positions, two or more each):
shingling, sketching, indexing, querying, verification where the peer has it, and
grouping (union-find over the pairs, the same Python code for every peer without a
grouping of its own). JSON loading and interpreter start-up are not timed.

    python python_peers.py --corpus bench/data/corpus.jsonl            # every peer, 3 runs each
    python python_peers.py --corpus bench/data/corpus.jsonl --peer rensa

The peers' shingles are word 5-grams of ASCII-lowercased [a-z0-9] runs (the shared bench's
`common.py`); near_dup uses its own tokenizer with `k=5`. Threshold 0.8, 128 values.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time

K, NUM_PERM, THRESHOLD, SEED = 5, 128, 0.8, 42
_TOKEN = re.compile(r"[a-z0-9]+")
_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def shingles(text):
    t = _TOKEN.findall(text.translate(_LOWER))
    if not t:
        return []
    if len(t) < K:
        return [" ".join(t)]
    return [" ".join(t[i : i + K]) for i in range(len(t) - K + 1)]


def groups_of(n, pairs):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    out = {}
    for i in range(n):
        out.setdefault(find(i), []).append(i)
    return [g for g in out.values() if len(g) > 1]


def datasketch_way(module, texts):
    """The datasketch idiom: one MinHash per document, MinHashLSH insert + query."""
    MinHash, MinHashLSH = module.MinHash, module.MinHashLSH
    sketches = []
    for t in texts:
        m = MinHash(num_perm=NUM_PERM)
        m.update_batch([s.encode("utf-8") for s in shingles(t)])
        sketches.append(m)
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    for i, m in enumerate(sketches):
        lsh.insert(i, m)
    pairs = [(i, j) for i, m in enumerate(sketches) for j in lsh.query(m) if j != i]
    return groups_of(len(texts), pairs)


def run_peer(peer, texts):
    if peer == "datasketch":
        import datasketch

        return datasketch_way(datasketch, texts)
    if peer == "near_dup-classes":
        import near_dup

        return datasketch_way(near_dup, texts)
    if peer == "rensa":
        from rensa import RMinHash, RMinHashLSH

        sketches = []
        for i in range(0, len(texts), 4096):
            sketches.extend(RMinHash.from_token_sets([shingles(t) for t in texts[i : i + 4096]], NUM_PERM, SEED))
        lsh = RMinHashLSH(THRESHOLD, NUM_PERM, 8)
        lsh.insert_many(sketches)
        found = lsh.query_all(sketches)
        pairs = [(i, j) for i, c in enumerate(found) for j in c if j != i]
        return groups_of(len(texts), pairs)
    if peer == "gaoya":
        from gaoya.minhash import MinHashStringIndex

        index = MinHashStringIndex(
            hash_size=32, jaccard_threshold=THRESHOLD, num_bands=8, band_size=16,
            analyzer="word", lowercase=True, ngram_range=(K, K), id_container="vec",
        )
        index.par_bulk_insert_docs(list(range(len(texts))), texts)
        found = index.par_bulk_query(texts)
        pairs = [(i, j) for i, c in enumerate(found) for j in c if j != i]
        return groups_of(len(texts), pairs)
    if peer == "near_dup":
        import near_dup

        return near_dup.dedup(texts, threshold=THRESHOLD, k=K).groups
    if peer == "near_dup-estimate":
        import near_dup

        return near_dup.dedup(texts, threshold=THRESHOLD, k=K, verify="method").groups
    raise SystemExit(f"unknown peer {peer}")


PEERS = ["datasketch", "near_dup-classes", "rensa", "gaoya", "near_dup", "near_dup-estimate"]


def main():
    args = sys.argv[1:]
    corpus = args[args.index("--corpus") + 1]
    if "--peer" in args:
        peer = args[args.index("--peer") + 1]
        with open(corpus, encoding="utf-8") as f:
            texts = [json.loads(line)["text"] for line in f]
        t0 = time.perf_counter()
        groups = run_peer(peer, texts)
        secs = time.perf_counter() - t0
        grouped = sum(len(g) for g in groups)
        print(json.dumps({"peer": peer, "secs": secs, "groups": len(groups), "grouped": grouped}))
        return
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    rows = {}
    for _ in range(runs):
        for peer in PEERS:
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--corpus", corpus, "--peer", peer],
                check=True, capture_output=True, text=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            rows.setdefault(peer, []).append(r)
            print(json.dumps(r), flush=True)
    base = statistics.median(r["secs"] for r in rows["datasketch"])
    print("| peer | median s | × datasketch | groups | documents in groups |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for peer, rs in rows.items():
        s = statistics.median(r["secs"] for r in rs)
        print(f"| {peer} | {s:.2f} | {base / s:.1f}× | {rs[0]['groups']} | {rs[0]['grouped']} |")


if __name__ == "__main__":
    main()
