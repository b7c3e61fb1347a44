#!/usr/bin/env python3
"""Per-thread CPU timeline of a `perf record` file: samples per bucket (20 ms unless
--bucket-ms says otherwise) per thread.

Usage:
  perf record -q -F 20000 -g -o run.data BIN dedup -q --top 0 --input CORPUS
  python3 scripts/thread_timeline.py run.data [--bucket-ms 20]
The first thread id is the calling (main) thread; the others are the rayon pool.
At 20 kHz a fully busy thread gives 400 samples per 20 ms bucket; on 2 cores the
sum over threads is at most ~800. Buckets well under that are idle capacity. For a
run of seconds, record at a lower rate (-F 999) and use buckets of 250-1000 ms.
Per-thread symbols in a time window:
  perf report -i run.data --no-children -g none --sort sym --tid TID --time START,END
(times as printed by `perf script -F time`).
"""
import collections, subprocess, sys
args = sys.argv[1:]
bucket_ms = 20.0
if "--bucket-ms" in args:
    i = args.index("--bucket-ms")
    bucket_ms = float(args[i + 1])
    del args[i:i + 2]
if len(args) != 1:
    sys.exit(__doc__)
out = subprocess.run(["perf", "script", "-i", args[0], "-F", "tid,time"],
                     capture_output=True, text=True).stdout
rows = []
for l in out.splitlines():
    p = l.split()
    if len(p) == 2:
        rows.append((int(p[0]), float(p[1].rstrip(":"))))
t0 = min(t for _, t in rows)
tids = sorted(set(a for a, _ in rows), key=lambda t: min(x for a, x in rows if a == t))
c = collections.Counter((a, int((t - t0) * 1000 / bucket_ms)) for a, t in rows)
tot = collections.Counter(a for a, _ in rows)
tids = [t for t in tids if tot[t] > 20]
print("start", t0, "threads (samples):", [(t, tot[t]) for t in tids])
for b in range(max(k[1] for k in c) + 1):
    vals = [c[(t, b)] for t in tids]
    print("%6d ms " % (b * bucket_ms) + " ".join("%5d" % v for v in vals) + "   sum %5d" % sum(vals))
