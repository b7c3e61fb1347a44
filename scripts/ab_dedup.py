#!/usr/bin/env python3
"""Side-by-side wall time of `ndd dedup` builds: 15 alternated runs of each.

Usage:
  python3 scripts/ab_dedup.py base=PATH/ndd,new=PATH/ndd [extra ndd dedup arguments]
The corpus is bench/data/corpus.jsonl (NDD_AB_CORPUS overrides it); every run is
`ndd dedup -q --input CORPUS [extra]`, timed by perf_counter, its output discarded.
Prints, per build, the median, the fastest run and the quartiles. Builds alternate
run by run, so a drift of the host's speed falls on each alike: compare only the
figures of one invocation.
"""
import os
import statistics
import subprocess
import sys
import time

if len(sys.argv) < 2 or "=" not in sys.argv[1]:
    sys.exit(__doc__)
bins = dict(a.split("=", 1) for a in sys.argv[1].split(","))
extra = sys.argv[2:]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.environ.get("NDD_AB_CORPUS", os.path.join(root, "bench", "data", "corpus.jsonl"))
runs = 15
res = {k: [] for k in bins}
for _ in range(runs):
    for name, binary in bins.items():
        t = time.perf_counter()
        subprocess.run([binary, "dedup", "-q", "--input", corpus] + extra,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        res[name].append(time.perf_counter() - t)
for name, v in res.items():
    v.sort()
    print(name, "median %.3f" % statistics.median(v), "min %.3f" % v[0],
          "q1 %.3f" % v[runs // 4], "q3 %.3f" % v[3 * runs // 4])
