#!/usr/bin/env python3
"""Builds a large JSONL corpus from real text for the out-of-core measurements
(docs/performance.md): every document of a base corpus (bench/data/corpus.jsonl, built by
`python3 bench/make_corpus.py`: 66,855 package descriptions and license texts) is written, followed by generated documents until the
target count is reached. Each generated document is, with probability --dup-rate, a
near-duplicate of a random base document (a few words changed, a line dropped or
repeated), and otherwise a distinct document (half of a base document's words
replaced by words of another, which leaves almost no shared 5-gram).

    python3 scripts/make_scale_corpus.py bench/data/corpus.jsonl OUT.jsonl --documents 5000000

With --structure constant (issue 31) the near-duplicate structure per document stays the
same at every size instead of growing with it. The corpus is a sequence of blocks of
--block documents (100,000 by default). Block 0 is exactly what the default writes for
--documents BLOCK (the base corpus, then generated documents from the same mix, seed
--seed). Block g >= 1 is the same recipe drawn again from its own generator (seeded with
"SEED:g"), then enciphered for generation g: every ASCII letter goes through one
permutation of the alphabet and every ASCII digit through one permutation of the digits
(both drawn per generation, case kept; word lengths, bytes and tokenization unchanged),
and every other letter or digit is followed by a generation tag ("q" and letters). A
block's documents therefore share almost no shingle with another block's (a word meets
another block's word only by chance, a 3-word shingle almost never), while inside a block
everything is as in block 0: every base text used once as itself and once more per
near-duplicate the recipe draws of it, the same mutation mix, the base corpus's own
families (language packs, library families) kept as neighbours. So the documents of a
size that is a multiple of --block are that many copies of one structure, and
near-duplicates are never more than a block apart. With --shuffle the finished corpus is
put in one seeded random order (ids renumbered in the new order), so that near-duplicates
are as far apart as the corpus is long while the structure per document stays the same.

    python3 scripts/make_scale_corpus.py bench/data/corpus.jsonl OUT.jsonl \
        --documents 2000000 --structure constant [--block 100000] [--shuffle]

Without --shuffle the first N lines of a larger corpus are what --documents N writes,
in either structure.

Deterministic for a given seed. Writes OUT.jsonl.tmp, then renames it.
"""
import argparse
import array
import json
import os
import random
import re
import string


def generate(base, count, rng):
    """The default recipe: every base text, then generated documents up to `count`."""
    n = 0
    for t in base[:count]:
        yield t
        n += 1
    while n < count:
        t = rng.choice(base)
        if rng.random() < DUP_RATE[0]:
            words = t.split(" ")
            for _ in range(1 + len(words) // 50):
                i = rng.randrange(len(words))
                words[i] = words[i][::-1] or "x"
            lines = " ".join(words).split("\n")
            if len(lines) > 3 and rng.random() < 0.5:
                del lines[rng.randrange(len(lines))]
            yield "\n".join(lines)
        else:
            words = t.split()
            other = rng.choice(base).split() or ["x"]
            for i in range(0, len(words), 2):
                words[i] = other[rng.randrange(len(other))]
            yield " ".join(words)
        n += 1


# The generated documents' near-duplicate share (--dup-rate), read by generate().
DUP_RATE = [0.3]


def cipher(seed, g):
    """Generation g's cipher (the identity for g = 0): a function of one text."""
    if g == 0:
        return lambda t: t
    rng = random.Random(f"cipher:{seed}:{g}")
    lower = list(string.ascii_lowercase)
    digits = list(string.digits)
    rng.shuffle(lower)
    rng.shuffle(digits)
    table = {}
    for a, b in zip(string.ascii_lowercase, lower):
        table[ord(a)] = b
        table[ord(a.upper())] = b.upper()
    for a, b in zip(string.digits, digits):
        table[ord(a)] = b
    tag = "q"
    k = g
    while True:
        tag += string.ascii_lowercase[k % 26]
        k //= 26
        if k == 0:
            break

    def other(m):
        c = m.group()
        return c + tag if c.isalnum() else c

    def enc(t):
        t = t.translate(table)
        return t if t.isascii() else NON_ASCII.sub(other, t)

    return enc


NON_ASCII = re.compile(r"[^\x00-\x7f]")


def shuffle_lines(path, seed):
    """Puts the JSONL file's lines in one seeded random order, ids renumbered."""
    offsets = array.array("Q")
    with open(path, "rb") as f:
        pos = 0
        for line in f:
            offsets.append(pos)
            pos += len(line)
    order = list(range(len(offsets)))
    random.Random(f"shuffle:{seed}").shuffle(order)
    tmp = path + ".shuffled"
    with open(path, "rb") as src, open(tmp, "w", encoding="utf-8") as out:
        for n, i in enumerate(order):
            src.seek(offsets[i])
            rec = json.loads(src.readline())
            out.write(json.dumps({"id": n, "text": rec["text"]}, ensure_ascii=False))
            out.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("out")
    ap.add_argument("--documents", type=int, default=5_000_000)
    ap.add_argument("--dup-rate", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--structure", choices=("growing", "constant"), default="growing",
                    help="growing (default): one base corpus, its copies grow with the size; "
                    "constant: blocks of --block documents, each the default recipe enciphered")
    ap.add_argument("--block", type=int, default=100_000,
                    help="documents per block with --structure constant (default 100000)")
    ap.add_argument("--shuffle", action="store_true",
                    help="with --structure constant: the whole corpus in one seeded random order")
    a = ap.parse_args()
    if a.structure == "growing" and a.shuffle:
        ap.error("--shuffle goes with --structure constant")
    DUP_RATE[0] = a.dup_rate
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

        if a.structure == "growing":
            for t in generate(base, a.documents, random.Random(a.seed)):
                emit(t)
        else:
            g = 0
            while n < a.documents:
                rng = random.Random(a.seed if g == 0 else f"{a.seed}:{g}")
                enc = cipher(a.seed, g)
                for t in generate(base, min(a.block, a.documents - n), rng):
                    emit(enc(t))
                g += 1
    if a.shuffle:
        shuffle_lines(tmp, a.seed)
    os.replace(tmp, a.out)
    print(f"{a.out}: {n} documents")


if __name__ == "__main__":
    main()
