#!/usr/bin/env python3
"""near_dup against the Python peers, end to end: texts in a Python list -> groups out.

Each peer runs in a fresh process (`--peer NAME`); the timed span starts with the texts
in memory and ends with the groups (lists of document positions, two or more each):
shingling, sketching, indexing, querying, verification where the peer has it, and
grouping (union-find over the pairs, the same Python code for every peer without a
grouping of its own). JSON loading and interpreter start-up are not timed.

    python python_peers.py --bench bench --corpus bench/data/corpus.jsonl   # every peer, 3 runs
    python python_peers.py --bench bench --corpus bench/data/corpus.jsonl --peer rensa

The peers' shingles are the shared bench's (`common.py` of --bench DIR: word 5-grams of
ASCII-lowercased [a-z0-9] runs); near_dup uses its own tokenizer with `k=5`. Threshold
0.8, 128 values.
"""

import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The grouping of every peer without its own: the tests' union-find.
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from union_find import components as groups_of  # noqa: E402


def bench_common(argv):
    """The shared bench's `common.py` (its shingles and settings), from --bench DIR."""
    sys.path.insert(0, argv[argv.index("--bench") + 1])
    import common

    return common


def datasketch_way(c, module, texts):
    """The datasketch idiom: one MinHash per document, MinHashLSH insert + query."""
    MinHash, MinHashLSH = module.MinHash, module.MinHashLSH
    sketches = []
    for t in texts:
        m = MinHash(num_perm=c.NUM_PERM)
        m.update_batch([s.encode("utf-8") for s in c.shingles(t)])
        sketches.append(m)
    lsh = MinHashLSH(threshold=c.THRESHOLD, num_perm=c.NUM_PERM)
    for i, m in enumerate(sketches):
        lsh.insert(i, m)
    pairs = [(i, j) for i, m in enumerate(sketches) for j in lsh.query(m) if j != i]
    return groups_of(len(texts), pairs)


def run_peer(c, peer, texts):
    if peer == "datasketch":
        import datasketch

        return datasketch_way(c, datasketch, texts)
    if peer == "near_dup-classes":
        import near_dup

        return datasketch_way(c, near_dup, texts)
    if peer == "rensa":
        from rensa import RMinHash, RMinHashLSH

        sketches = []
        for i in range(0, len(texts), 4096):
            sketches.extend(RMinHash.from_token_sets([c.shingles(t) for t in texts[i : i + 4096]], c.NUM_PERM, c.SEED))
        lsh = RMinHashLSH(c.THRESHOLD, c.NUM_PERM, 8)
        lsh.insert_many(sketches)
        found = lsh.query_all(sketches)
        pairs = [(i, j) for i, c in enumerate(found) for j in c if j != i]
        return groups_of(len(texts), pairs)
    if peer == "gaoya":
        from gaoya.minhash import MinHashStringIndex

        index = MinHashStringIndex(
            hash_size=32, jaccard_threshold=c.THRESHOLD, num_bands=8, band_size=16,
            analyzer="word", lowercase=True, ngram_range=(c.K, c.K), id_container="vec",
        )
        index.par_bulk_insert_docs(list(range(len(texts))), texts)
        found = index.par_bulk_query(texts)
        pairs = [(i, j) for i, c in enumerate(found) for j in c if j != i]
        return groups_of(len(texts), pairs)
    if peer == "near_dup":
        import near_dup

        return near_dup.dedup(texts, threshold=c.THRESHOLD, k=c.K).groups
    if peer == "near_dup-estimate":
        import near_dup

        return near_dup.dedup(texts, threshold=c.THRESHOLD, k=c.K, verify="method").groups
    raise SystemExit(f"unknown peer {peer}")


PEERS = ["datasketch", "near_dup-classes", "rensa", "gaoya", "near_dup", "near_dup-estimate"]


def main():
    args = sys.argv[1:]
    c = bench_common(args)
    corpus = args[args.index("--corpus") + 1]
    if "--peer" in args:
        peer = args[args.index("--peer") + 1]
        texts, _ = c.load_corpus(corpus)
        t0 = time.perf_counter()
        groups = run_peer(c, peer, texts)
        secs = time.perf_counter() - t0
        grouped = sum(len(g) for g in groups)
        print(json.dumps({"peer": peer, "secs": secs, "groups": len(groups), "grouped": grouped}))
        return
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    rows = {}
    for _ in range(runs):
        for peer in PEERS:
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), *args, "--peer", peer],
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
