#!/usr/bin/env python3
"""Spot-check `ndd substrings --ranges-out` on a large corpus, independently of the tool.

For a random sample of the ranges cut, with L = --min-length: the first and the last
L bytes of the range occur in another document (each byte cut is in a shared span),
and the L bytes starting one byte before the range, or ending one byte after it, do
not (the range is not too short). Python's bytes.find over the documents joined by
NUL bytes: the slow, obvious search, nothing shared with the tool.

Usage: scripts/check_substrings.py CORPUS.jsonl RANGES.jsonl [--min-length 100]
       [--sample 150] [--text-field text] [--id-field id] [--seed 7]

Exit 0 when every check holds, 1 with one line per contradiction otherwise.
"""

import argparse
import bisect
import json
import random
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("ranges")
    ap.add_argument("--min-length", type=int, default=100)
    ap.add_argument("--sample", type=int, default=150)
    ap.add_argument("--text-field", default="text")
    ap.add_argument("--id-field", default="id")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    length = a.min_length

    # The documents as the tool reads them: the first record of each id.
    docs, order = {}, []
    with open(a.corpus, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            r = json.loads(line)
            i = r.get(a.id_field)
            i = str(n) if i is None else (i if isinstance(i, str) else json.dumps(i))
            if i in docs:
                continue
            docs[i] = r[a.text_field].encode("utf-8")
            order.append(i)
    position = {i: k for k, i in enumerate(order)}
    blob, starts = bytearray(), []
    for i in order:
        starts.append(len(blob))
        blob += docs[i] + b"\x00"
    blob = bytes(blob)

    def elsewhere(window: bytes, own: int) -> bool:
        at = blob.find(window)
        while at != -1:
            if bisect.bisect_right(starts, at) - 1 != own:
                return True
            at = blob.find(window, at + 1)
        return False

    with open(a.ranges, encoding="utf-8") as f:
        ranges = [json.loads(line) for line in f if line.strip()]
    random.seed(a.seed)
    sample = random.sample(ranges, min(a.sample, len(ranges)))
    bad = 0
    for r in sample:
        doc, own = docs[r["id"]], position[r["id"]]
        start, end = random.choice(r["ranges"])
        checks = ((start, True), (end - length, True), (start - 1, False), (end - length + 1, False))
        for at, shared in checks:
            if at < 0 or at + length > len(doc):
                continue
            if elsewhere(doc[at : at + length], own) != shared:
                bad += 1
                what = "not found in another document" if shared else "found in another document"
                print(f"{r['id']}: range [{start}, {end}): the {length} bytes at {at} are {what}")
    print(f"{len(sample)} ranges sampled of {len(ranges)}: {bad} contradictions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
