#!/usr/bin/env python3
"""Growth of `ndd dedup` from 100k to 5M documents, in memory and out of core (issue 31).

Builds one scale corpus with scripts/make_scale_corpus.py (the largest size asked for)
and takes each smaller size as its first lines: the generator draws every document in
order from one seeded generator, so the first N lines of the 5M corpus are the corpus
`make_scale_corpus.py --documents N` writes (the 1M corpus of docs/performance.md is
the first million lines of the 5M one). At each size it runs, under /usr/bin/time,

    ndd dedup --quiet --input C --keep-out K --pairs-out P --clusters-out L
    ndd dedup --quiet --input C --keep-out K --pairs-out P --clusters-out L \\
        --work-dir W --memory-budget 256M

compares the two runs' outputs with `cmp` (kept records, pairs, clusters) and prints a
markdown table: documents, corpus MB, wall s, CPU s (user + sys), µs of CPU per
document, peak RSS, bytes of peak RSS per document and, out of core, the bytes the run
left in its work dir (every file it wrote: no stage deletes one) per document and the
candidates per document its stage markers count: pairs read from the LSH buckets (one
per shared band, at most --max-bucket-scan per bucket), distinct pairs, and distinct
pairs past the signature estimate's floor (those whose shingle sets were compared).

    python3 scripts/growth.py                       # 100k ... 5M, corpora in /tmp
    python3 scripts/growth.py --max-documents 1000000 --dir /data/growth
    python3 scripts/growth.py --structure constant  # the structure per document kept flat
    python3 scripts/growth.py --structure constant --shuffle

--structure, --block and --shuffle go to make_scale_corpus.py: with --structure constant
every size (a multiple of --block) is that many blocks of one near-duplicate structure;
with --shuffle the corpus of each size is built on its own (its first lines are not a
smaller corpus) and put in one random order. The table's "pairs / doc" column is the
pairs the out-of-core run wrote per document.

Guards: the in-memory run is skipped (and the table says so) when MemAvailable
(/proc/meminfo) is under --memory-factor (2) times its expected peak, extrapolated
from the previous size's peak per document (2,500 bytes per document before the first
run); a size is not run (nor any larger one) when the free disk of --dir is under its
estimate (the corpus, the work dir at 4 bytes per corpus byte, both runs' outputs and
2 GB of margin). Work dirs and outputs are deleted as it goes, the corpora at the end
unless --keep-corpora. The load average is printed with the table: on a shared machine
wall times measure the queue, CPU time and peak per document are what the table reads.

Not run by .ci/run: it takes minutes to hours and tens of GB of disk.
"""
import argparse
import os
import shutil
import subprocess
import sys

SIZES = [100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# In-memory peak per document before anything was measured: 2.36 GB at 1M
# (docs/performance.md, "Out-of-core dedup").
PRIOR_PEAK_PER_DOC = 2_500
# Work-dir bytes per corpus byte (2.2 GB for the 611 MB 1M corpus, 3.6x) with slack.
WORK_PER_CORPUS_BYTE = 4.0
MARGIN = 2 << 30


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def free_disk(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def count_lines(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 24)
            if not b:
                return n
            n += b.count(b"\n")


def tree_bytes(path):
    total = 0
    for d, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(d, name))
    return total


def markers(work):
    """The counts the candidates and verify stages record in their `.done` markers."""
    counts = {}
    for name in ("candidates.done", "verify.done"):
        with open(os.path.join(work, name)) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if v.isdigit():
                    counts[f"{name.split('.')[0]}.{k}"] = int(v)
    return counts


def rm(*paths):
    for p in paths:
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


def label(a):
    """What names this run's files apart from another structure's in the same --dir."""
    if a.structure == "growing":
        return ""
    return f"constant{a.block}{'-shuffled' if a.shuffle else ''}-"


def corpus_name(a, n):
    return os.path.join(a.dir, f"scale-{label(a)}{n}.jsonl")


def build_corpus(a, n):
    """The corpus of n documents, built once (kept if a complete one is there)."""
    path = corpus_name(a, n)
    if os.path.exists(path) and count_lines(path) == n:
        print(f"# reusing {path}", file=sys.stderr)
        return path
    if not os.path.exists(a.base):
        sys.exit(f"{a.base}: no base corpus (python3 bench/make_corpus.py builds it; or --base)")
    need = int(n * 650) + MARGIN  # 611 bytes per document at 1M
    if free_disk(a.dir) < need:
        sys.exit(f"not enough disk in {a.dir} for the {n}-document corpus")
    print(f"# building {path}", file=sys.stderr)
    subprocess.run(
        [sys.executable, os.path.join(HERE, "make_scale_corpus.py"), a.base, path,
         "--documents", str(n), "--seed", str(a.seed), "--structure", a.structure,
         "--block", str(a.block)] + (["--shuffle"] if a.shuffle else []),
        check=True, stdout=sys.stderr)
    return path


def prefix(full, n, path):
    """The first n lines of `full` into `path` (the n-document corpus)."""
    with open(full, "rb") as src, open(path + ".tmp", "wb") as out:
        for i, line in enumerate(src):
            if i == n:
                break
            out.write(line)
    os.replace(path + ".tmp", path)


def run(a, corpus, tag, extra):
    """One `ndd dedup` under /usr/bin/time; returns its figures."""
    stem = os.path.join(a.dir, f"growth-{label(a)}{tag}")
    outs = {k: f"{stem}.{k}" for k in ("keep.jsonl", "pairs.tsv", "clusters.tsv")}
    timef = f"{stem}.time"
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", timef, a.ndd, "dedup", "--quiet",
           "--input", corpus, "--keep-out", outs["keep.jsonl"],
           "--pairs-out", outs["pairs.tsv"], "--clusters-out", outs["clusters.tsv"]] + extra
    print("# " + " ".join(cmd[5:]), file=sys.stderr)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.exit(f"ndd dedup failed ({r.returncode}): {' '.join(cmd[5:])}")
    with open(timef) as f:
        wall, user, sys_, rss_kb = f.read().split()[-4:]
    os.remove(timef)
    return {"wall": float(wall), "cpu": float(user) + float(sys_),
            "user": float(user), "sys": float(sys_), "peak": int(rss_kb) * 1024,
            "outs": outs}


def same_outputs(x, y):
    """`cmp` of every output of the two runs; the names of those that differ."""
    diff = []
    for k in x["outs"]:
        if subprocess.run(["cmp", "-s", x["outs"][k], y["outs"][k]]).returncode != 0:
            diff.append(k)
    return diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="/tmp", help="corpora, work dirs and outputs (default /tmp)")
    ap.add_argument("--max-documents", type=int, default=SIZES[-1],
                    help="stop after this size (default 5000000)")
    ap.add_argument("--base", default=os.path.join(ROOT, "bench/data/corpus.jsonl"))
    ap.add_argument("--ndd", default=os.path.join(ROOT, "target/release/ndd"))
    ap.add_argument("--memory-budget", default="256M", help="out of core (default 256M)")
    ap.add_argument("--memory-factor", type=float, default=2.0,
                    help="run in memory only when MemAvailable >= this times the expected peak")
    ap.add_argument("--sizes", help="comma-separated sizes instead of 100k ... 5M (a smoke test)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--structure", choices=("growing", "constant"), default="growing",
                    help="make_scale_corpus.py --structure (default growing)")
    ap.add_argument("--block", type=int, default=100_000,
                    help="make_scale_corpus.py --block (default 100000)")
    ap.add_argument("--shuffle", action="store_true", help="make_scale_corpus.py --shuffle")
    ap.add_argument("--keep-corpora", action="store_true")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else SIZES
    sizes = sorted(n for n in sizes if n <= a.max_documents)
    if not sizes:
        sys.exit("no size at or under --max-documents")
    os.makedirs(a.dir, exist_ok=True)
    start = os.getloadavg()
    if a.shuffle and a.structure != "constant":
        sys.exit("--shuffle goes with --structure constant")
    full = None if a.shuffle else build_corpus(a, sizes[-1])
    rows, notes = [], []
    peak_per_doc = PRIOR_PEAK_PER_DOC
    for n in sizes:
        if a.shuffle:
            corpus = build_corpus(a, n)
        else:
            corpus = full if n == sizes[-1] else corpus_name(a, n)
            if corpus != full:
                prefix(full, n, corpus)
        size = os.path.getsize(corpus)
        need = int(size * (WORK_PER_CORPUS_BYTE + 2.2)) + MARGIN
        free = free_disk(a.dir)
        if free < need:
            notes.append(f"stopped before {n:,} documents: {free / 1e9:.1f} GB free in "
                         f"{a.dir}, {need / 1e9:.1f} GB needed")
            if corpus != full and not a.keep_corpora:
                rm(corpus)
            break
        expected = peak_per_doc * n
        avail = mem_available()
        mem = None
        if avail >= a.memory_factor * expected:
            mem = run(a, corpus, f"{n}-mem", [])
            peak_per_doc = mem["peak"] / n
        else:
            notes.append(f"{n:,} documents in memory not run: MemAvailable "
                         f"{avail / 1e9:.1f} GB < {a.memory_factor:g} x the expected peak "
                         f"{expected / 1e9:.1f} GB")
        work = os.path.join(a.dir, f"growth-{label(a)}{n}-work")
        rm(work)
        ooc = run(a, corpus, f"{n}-ooc", ["--work-dir", work, "--memory-budget", a.memory_budget])
        ooc["written"] = tree_bytes(work)
        ooc["counts"] = markers(work)
        rm(work)
        if mem:
            diff = same_outputs(mem, ooc)
            same = "identical (cmp)" if not diff else "DIFFER: " + ", ".join(diff)
            with open(mem["outs"]["pairs.tsv"], "rb") as f:
                pairs = sum(1 for _ in f) - 1
            with open(mem["outs"]["keep.jsonl"], "rb") as f:
                kept = sum(1 for _ in f)
            same += f"; {kept:,} kept, {pairs:,} pairs"
            rm(*mem["outs"].values())
        else:
            same = "no in-memory run"
        with open(ooc["outs"]["pairs.tsv"], "rb") as f:
            ooc["pairs"] = sum(1 for _ in f) - 1
        rm(*ooc["outs"].values())
        rows.append((n, size, mem, ooc, same))
        if corpus != full and not (a.shuffle and a.keep_corpora):
            rm(corpus)
        print_table(a, rows, notes, start, partial=True)
    if full and not a.keep_corpora:
        rm(full)
    print_table(a, rows, notes, start, partial=False)


def print_table(a, rows, notes, start, partial):
    out = sys.stderr if partial else sys.stdout
    end = os.getloadavg()
    corpus = (f"--structure constant --block {a.block}{' --shuffle' if a.shuffle else ''}"
              if a.structure == "constant" else "--structure growing")
    print(f"\nScale corpus {corpus}. "
          f"ndd dedup, defaults (MinHash 128 values, threshold 0.8, exact Jaccard); "
          f"out of core with --memory-budget {a.memory_budget}. Load average "
          f"{start[0]:.1f} at the start, {end[0]:.1f} / {end[1]:.1f} / {end[2]:.1f} "
          f"(1 / 5 / 15 min) now, {os.cpu_count()} cores.\n", file=out)
    print("| documents | MB | engine | wall s | CPU s (user + sys) | µs CPU / doc "
          "| peak RSS MB | peak B / doc | work dir B / doc | candidates / doc | pairs / doc "
          "| outputs |",
          file=out)
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
          file=out)
    for n, size, mem, ooc, same in rows:
        for name, r in (("in memory", mem), (f"out of core, {a.memory_budget}", ooc)):
            if r is None:
                print(f"| {n:,} | {size / 1e6:,.0f} | {name} | not run (memory) | | | | | | | | |",
                      file=out)
                continue
            written = f"{r['written'] / n:,.0f}" if "written" in r else "—"
            cands = "—"
            pairs = f"{r['pairs'] / n:.3f}" if "pairs" in r else "—"
            if "counts" in r:
                c = r["counts"]
                cands = " / ".join(f"{c.get(k, 0) / n:.2f}" for k in (
                    "candidates.candidates", "verify.checked", "verify.verified"))
            print(f"| {n:,} | {size / 1e6:,.0f} | {name} | {r['wall']:.1f} "
                  f"| {r['cpu']:.1f} ({r['user']:.1f} + {r['sys']:.1f}) "
                  f"| {r['cpu'] / n * 1e6:.1f} | {r['peak'] / 1e6:,.0f} "
                  f"| {r['peak'] / n:,.0f} | {written} | {cands} | {pairs} "
                  f"| {same if r is ooc else ''} |", file=out)
    for note in notes:
        print(f"\n- {note}", file=out)
    out.flush()


if __name__ == "__main__":
    main()
