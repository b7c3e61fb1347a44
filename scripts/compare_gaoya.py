#!/usr/bin/env python3
"""End-to-end `dedup --method minhash` against the gaoya crate's sketch + LSH, same run.

Usage (from the repository root, after shared/bench/make_corpus.py built the corpus):

    python3 scripts/compare_gaoya.py --corpus ../shared/bench/data/corpus.jsonl \
        --peers ../shared/bench/rust-peers [--runs 5] [--features rayon]

Builds `examples/dedup` and the `shared/bench` rust-peers project (copied to a
temporary directory so that nothing is written into it), then alternates runs of
both and prints the medians. Our figure is the whole process, wall clock: JSON
loading, sketching, LSH, verification, grouping and output. gaoya's is the
`sketch_s + insert_s + query_s` its own program reports, which excludes its JSON
loading, so the comparison is conservative for us.
"""
import argparse, os, re, shutil, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--corpus", required=True)
ap.add_argument("--peers", required=True)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--features", default="")
a = ap.parse_args()

feat = ["--features", a.features] if a.features else []
subprocess.run(["cargo", "build", "--release", "--example", "dedup", *feat], check=True)
target = os.environ.get("CARGO_TARGET_DIR", "target")
dedup = os.path.join(target, "release", "examples", "dedup")

work = tempfile.mkdtemp(prefix="ndd-peers-")
shutil.copytree(a.peers, os.path.join(work, "rust-peers"))
env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(work, "target"))
subprocess.run(["cargo", "build", "--release", "--manifest-path",
                os.path.join(work, "rust-peers", "Cargo.toml")], check=True, env=env)
peers = os.path.join(work, "target", "release", "peers")

ours, theirs, pairs = [], [], None
for _ in range(a.runs):
    t = time.perf_counter()
    out = subprocess.run([dedup, "--input", a.corpus, "--top", "1"], check=True,
                         capture_output=True, text=True).stdout
    ours.append(time.perf_counter() - t)
    pairs = re.search(r"pairs:\s+(\d+)", out).group(1)
    line = subprocess.run([peers, "gaoya-lsh", a.corpus], check=True,
                          capture_output=True, text=True).stdout
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    theirs.append(float(f["sketch_s"]) + float(f["insert_s"]) + float(f["query_s"]))
    gaoya_pairs = f["pairs"]

o, g = statistics.median(ours), statistics.median(theirs)
print(f"ndd dedup --method minhash (whole process): median {o:.3f} s over {a.runs} runs, {pairs} pairs")
print(f"gaoya MinHasher32 + MinHashIndex (sketch + insert + query): median {g:.3f} s, {gaoya_pairs} pairs")
print(f"speed-up: {g / o:.2f}x")
shutil.rmtree(work)
