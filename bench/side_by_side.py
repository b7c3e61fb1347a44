#!/usr/bin/env python3
"""Turns the summary lines of run.sh (medians, criterion passes, index sizes) into the
Markdown tables of docs/performance.md.

usage: side_by_side.py SUMMARY
"""
import sys


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


peers, sketch, index = {}, {}, {}
for line in open(sys.argv[1], encoding="utf-8"):
    f = fields(line)
    if "peer" in f:
        peers[f["peer"]] = f
    elif "sketch" in f:
        sketch[f["sketch"]] = f
    elif "index" in f:
        index[f["index"]] = f


def span(f, parts):
    return sum(float(f[p]) for p in parts)


# (ndd row, peer row, the peer, the parts of its own timed span)
JOBS = [
    ("ndd-dedup", "gaoya-rs-lsh", "gaoya crate 0.2.2: `MinHasher32` + `MinHashIndex` 8 × 16 "
     "(`par_bulk_insert` + `par_bulk_query`)", ["sketch_s", "insert_s", "query_s"]),
    ("ndd-dedup", "gaoya-py-lsh", "gaoya wheel 0.2.2: `MinHashStringIndex` 8 × 16 "
     "(`par_bulk_insert_docs` + `par_bulk_query`, sketching inside)", ["insert_s", "query_s"]),
    ("ndd-dedup", "rensa-lsh", "rensa 0.5.0: `RMinHash.from_token_sets` + `RMinHashLSH` 8 × 16",
     ["sketch_s", "insert_s", "query_s"]),
    ("ndd-dedup", "datasketch-lsh", "datasketch 2.0.0: `MinHash.bulk` + `MinHashLSH(0.8, 128)`",
     ["sketch_s", "insert_s", "query_s"]),
    ("ndd-dedup-simhash", "gaoya-py-simhash-index", "gaoya wheel 0.2.2: `SimHashStringIndex` "
     "64 bits, 6 blocks, ≤ 3 bits (insert + query, sketching inside)", ["insert_s", "query_s"]),
]

print("| `ndd` command (whole process) | s | peer (its own timed span; whole process) | s | s, whole | "
      "ndd faster (span / whole) | pairs ndd / peer | peak RSS MB ndd / peer | others_cpu ndd / peer |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for ours, theirs, name, parts in JOBS:
    if ours not in peers or theirs not in peers:
        continue
    o, t = peers[ours], peers[theirs]
    os_, ts, tw = float(o["secs"]), span(t, parts), float(t["wall_s"])
    cmd = "`ndd dedup`" if ours == "ndd-dedup" else "`ndd dedup --method simhash --max-hamming 3`"
    print("| %s | %.3f | %s | %.3f | %.2f | **%.2f×** / %.2f× | %s / %s | %s / %s | %s / %s |" % (
        cmd, os_, name, ts, tw, ts / os_, tw / os_, o.get("pairs", "?"), t.get("pairs", "?"),
        o["rss_mb"], t["rss_mb"], o["others_cpu"], t["others_cpu"]))

if sketch:
    ref = float(sketch["reference-pass"]["mib_per_s"]) if "reference-pass" in sketch else None
    print()
    print("| sketch pass (one criterion run, 1 thread) | MiB/s (low–high) | MB/s | × the reference pass |")
    print("| --- | ---: | ---: | ---: |")
    label = {"reference-pass": "plain pass: ASCII tokens, XXH3 of each joined word 5-gram",
             "ndd-shingling": "ndd word 5-gram shingling alone (Unicode words, case folding)",
             "ndd-oph-k128": "**ndd MinHash OPH k = 128, text → signature**"}
    for key in ("reference-pass", "ndd-shingling", "ndd-oph-k128"):
        if key in sketch:
            m = float(sketch[key]["mib_per_s"])
            print("| %s | %.1f (%s–%s) | %.1f | %s |" % (
                label[key], m, sketch[key]["lo"], sketch[key]["hi"], m * 1.048576,
                "%.2f×" % (m / ref) if ref else "—"))
    peers_sketch = [("gaoya-rs-lsh", "gaoya crate `MinHasher32` 128 (1 thread)"),
                    ("rensa-lsh", "rensa `RMinHash.from_token_sets` (Python shingling included)"),
                    ("datasketch-lsh", "datasketch `MinHash.bulk` (Python shingling included)")]
    for key, label in peers_sketch:
        if key in peers:
            mb = float(peers[key]["mb_per_s"]) * float(peers[key]["secs"]) / float(peers[key]["sketch_s"])
            print("| %s, median process run | %.1f | %.1f | %s |" % (
                label, mb / 1.048576, mb, "%.2f×" % (mb / 1.048576 / ref) if ref else "—"))

if index:
    print()
    print("| index | bytes per document |")
    print("| --- | ---: |")
    for key, label in (("saved-with-sets", "`ndd dedup --index-out` file (the shingle sets exact "
                        "verification needs, ids, digests; signatures sketched again on "
                        "load; the default)"),
                       ("saved-without-sets", "`ndd dedup --verify method --index-out` file "
                        "(full signatures, no sets)")):
        if key in index:
            f = index[key]
            print("| %s | %.0f |" % (label, int(f["bytes"]) / int(f["docs"])))
    if "explain" in index and "lsh" in index["explain"]:
        f = index["explain"]
        print("| in memory: signature + LSH index (`ndd explain --input`, measured on a sample) | "
              "%s + %s |" % (f["signature"], f["lsh"]))
