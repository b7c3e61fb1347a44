#!/usr/bin/env python3
"""Reads criterion's terminal output (ndd-minhash's `minhash` bench, filtered by run.sh) and
prints one `sketch=<pass> mib_per_s=<median> lo=<low> hi=<high>` line per pass measured.

usage: criterion_lines.py CRITERION_OUTPUT
"""
import re
import sys

NAMES = [("minhash/baseline", "reference-pass"), ("minhash/ceiling", "ndd-shingling"),
         ("minhash/oph k=128 1 thread", "ndd-oph-k128")]
UNIT = {"KiB/s": 1 / 1024, "MiB/s": 1.0, "GiB/s": 1024.0}
THRPT = re.compile(r"thrpt:\s+\[(\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\]")

current = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("minhash/"):
        current = next((short for full, short in NAMES if line.startswith(full)), None)
    m = THRPT.search(line)
    if m and current:
        v = [float(m.group(i)) * UNIT[m.group(i + 1)] for i in (1, 3, 5)]
        print("sketch=%s mib_per_s=%.1f lo=%.1f hi=%.1f" % (current, v[1], v[0], v[2]))
        current = None
