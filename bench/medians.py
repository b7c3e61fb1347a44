#!/usr/bin/env python3
"""Median run per peer from the raw lines `measure` (lib.sh) collected.

usage: medians.py RAW: prints `peer=<name> docs_per_s= mb_per_s= rss_mb= runs= cpu_pct=
others_cpu= contended_runs= <the median run's other fields>` per peer, in first-seen order.
The median run is chosen by the peer's own timed span (`secs`); rss_mb is the median peak RSS.
"""
import statistics
import sys

runs = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split())
    runs.setdefault(f["peer"], []).append(f)
skip = {"peer", "docs", "mb", "secs", "docs_per_s", "mb_per_s", "rss_kb", "cpu_pct", "others_cpu"}
for peer, rs in runs.items():
    rs.sort(key=lambda f: float(f["secs"]))
    m = rs[(len(rs) - 1) // 2] if len(rs) % 2 == 0 else rs[len(rs) // 2]
    secs = float(m["secs"])
    rss = statistics.median(int(f["rss_kb"]) for f in rs) / 1024
    extra = " ".join("%s=%s" % (k, v) for k, v in m.items() if k not in skip)
    noisy = sum(1 for f in rs if float(f.get("others_cpu", 0)) >= 0.15)
    print("peer=%s docs_per_s=%.0f mb_per_s=%.2f rss_mb=%.0f runs=%d cpu_pct=%s others_cpu=%s "
          "contended_runs=%d secs=%.4f %s" % (peer, int(m["docs"]) / secs, float(m["mb"]) / secs,
                                              rss, len(rs), m["cpu_pct"], m.get("others_cpu", "?"),
                                              noisy, secs, extra))
