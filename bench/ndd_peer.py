#!/usr/bin/env python3
"""Runs one `ndd` command as a measured peer: times the whole child process (wall clock:
start-up, reading and parsing the JSONL file, every stage, the outputs) and prints the
result line of lib.sh's `measure`, with the pairs the tool's summary reports.

usage: ndd_peer.py --peer NAME --docs N --mb MB -- NDD ARGS...
(--docs and --mb describe the corpus, counted once by run.sh, so that this process does
not load it and its peak RSS stays below the tool's.)
"""
import re
import subprocess
import sys
import time

from common import arg

cmd = sys.argv[sys.argv.index("--") + 1:]
peer, docs, mb = arg("peer"), int(arg("docs")), float(arg("mb"))
t0 = time.perf_counter()
out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
secs = time.perf_counter() - t0
m = re.search(r"pairs:\s+(\d+)", out)
print("peer=%s docs=%d mb=%.3f secs=%.4f pairs=%s" % (peer, docs, mb, secs, m.group(1) if m else "?"))
