#!/usr/bin/env python3
"""Builds a large JSONL corpus from real text for the out-of-core measurements
(docs/performance.md): every document of a base corpus (bench/data/corpus.jsonl, built by
`python3 bench/make_corpus.py`: 66,855 package descriptions and license texts) is written, followed by generated documents until the
target count is reached. Each generated document is, with probability --dup-rate, a
near-duplicate of a random base document (a few words changed, a line dropped or
repeated), and otherwise a distinct document (half of a base document's words
replaced by words of another, which leaves almost no shared 5-gram).

    python3 scripts/make_scale_corpus.py bench/data/corpus.jsonl OUT.jsonl --documents 5000000

Deterministic for a given seed. Writes OUT.jsonl.tmp, then renames it.
"""
import argparse
import json
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("out")
    ap.add_argument("--documents", type=int, default=5_000_000)
    ap.add_argument("--dup-rate", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    base = []
    with open(a.base, encoding="utf-8") as f:
        for line in f:
            t = json.loads(line).get("text")
            if isinstance(t, str) and t.strip():
                base.append(t)
    tmp = a.out + ".tmp"
    n = 0
    with open(tmp, "w", encoding="utf-8") as out:
        def emit(text):
            nonlocal n
            out.write(json.dumps({"id": n, "text": text}, ensure_ascii=False))
            out.write("\n")
            n += 1

        for t in base[: a.documents]:
            emit(t)
        while n < a.documents:
            t = rng.choice(base)
            if rng.random() < a.dup_rate:
                words = t.split(" ")
                for _ in range(1 + len(words) // 50):
                    i = rng.randrange(len(words))
                    words[i] = words[i][::-1] or "x"
                lines = " ".join(words).split("\n")
                if len(lines) > 3 and rng.random() < 0.5:
                    del lines[rng.randrange(len(lines))]
                emit("\n".join(lines))
            else:
                words = t.split()
                other = rng.choice(base).split() or ["x"]
                for i in range(0, len(words), 2):
                    words[i] = other[rng.randrange(len(other))]
                emit(" ".join(words))
    os.replace(tmp, a.out)
    print(f"{a.out}: {n} documents")


if __name__ == "__main__":
    main()
