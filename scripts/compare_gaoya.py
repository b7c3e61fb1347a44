#!/usr/bin/env python3
"""End-to-end `ndd dedup` (the ndd-cli tool) against gaoya, same run, runs alternated.

`--method minhash` (default): the gaoya crate's sketch + LSH (bench/rust-peers'
`peers gaoya-lsh`). `--method simhash`: gaoya's SimHash index from Python
(`bench/py_simhash.py --mode gaoya-index`, 64 bits, 6 blocks, at most 3 bits), which
needs the bench's virtual environment (`bench/setup.sh`).

Usage, from a clone (the corpus from `python3 bench/make_corpus.py`, see bench/README.md;
every path below is the default, relative to the repository root):

    python3 scripts/compare_gaoya.py [--runs 5] [--no-default-features]
    python3 scripts/compare_gaoya.py --method simhash
    python3 scripts/compare_gaoya.py --corpus bench/data/corpus.jsonl --peers bench/rust-peers \
        --python bench/.venv/bin/python

Builds the `ndd` tool (ndd-cli; all cores by default, `--no-default-features` for one
thread) and the rust-peers project (its target folder is ignored by git), then
alternates runs of both and prints the medians. Our figure is the whole process, wall
clock: JSON loading, sketching, LSH, verification, grouping and output. gaoya's is the
`sketch_s + insert_s + query_s` its own program reports, which excludes its JSON
loading, so the comparison is conservative for us. `bench/run.sh` runs this comparison
and the other peers' in one run.
"""
import argparse, os, re, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def in_root(path):
    """A relative path as given if it exists from here, else from the repository root."""
    return path if os.path.isabs(path) or os.path.exists(path) else os.path.join(ROOT, path)


ap = argparse.ArgumentParser()
ap.add_argument("--corpus", default="bench/data/corpus.jsonl")
ap.add_argument("--peers", default="bench/rust-peers")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--no-default-features", action="store_true",
                help="build ndd without rayon (one thread)")
ap.add_argument("--method", choices=["minhash", "simhash"], default="minhash")
ap.add_argument("--python", default="bench/.venv/bin/python",
                help="the bench's venv python (for --method simhash)")
ap.add_argument("--dedup-args", default="",
                help="extra flags for dedup, e.g. the earlier defaults: "
                     "'--k 5 --banding balanced --verify method --no-exact-pass'")
a = ap.parse_args()
a.corpus, a.peers, a.python = in_root(a.corpus), in_root(a.peers), in_root(a.python)
if not os.path.isfile(a.corpus):
    sys.exit(f"{a.corpus}: no corpus; build bench/data/corpus.jsonl with "
             "`python3 bench/make_corpus.py` (bench/README.md), or pass --corpus")
if a.method == "simhash" and not os.path.exists(a.python):
    sys.exit(f"{a.python}: no python with gaoya; run bench/setup.sh (bench/README.md) or pass --python")

feat = ["--no-default-features"] if a.no_default_features else []
subprocess.run(["cargo", "build", "--release", "-p", "ndd-cli", *feat], check=True, cwd=ROOT)
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
dedup = os.path.join(target, "release", "ndd")

if a.method == "minhash":
    # its own target folder (not the workspace's, not CARGO_TARGET_DIR's)
    peers_target = os.path.join(a.peers, "target")
    env = dict(os.environ, CARGO_TARGET_DIR=peers_target)
    subprocess.run(["cargo", "build", "--release", "--locked", "--manifest-path",
                    os.path.join(a.peers, "Cargo.toml")], check=True, env=env)
    peer_cmd = [os.path.join(peers_target, "release", "peers"), "gaoya-lsh", a.corpus]
    ours_cmd = [dedup, "dedup", "--input", a.corpus, "--top", "1", *a.dedup_args.split()]
    peer_name = "gaoya MinHasher32 + MinHashIndex (sketch + insert + query)"
else:
    script = os.path.join(os.path.dirname(os.path.abspath(a.peers)), "py_simhash.py")
    peer_cmd = [a.python, script, "--mode", "gaoya-index", "--corpus", a.corpus]
    ours_cmd = [dedup, "dedup", "--method", "simhash", "--max-hamming", "3", "--input", a.corpus,
                "--top", "1", *a.dedup_args.split()]
    peer_name = "gaoya SimHashStringIndex (par_bulk_insert_docs + par_bulk_query)"

ours, theirs, pairs = [], [], None
for _ in range(a.runs):
    t = time.perf_counter()
    out = subprocess.run(ours_cmd, check=True, capture_output=True, text=True).stdout
    ours.append(time.perf_counter() - t)
    pairs = re.search(r"pairs:\s+(\d+)", out).group(1)
    lines = subprocess.run(peer_cmd, check=True, capture_output=True, text=True).stdout
    line = [l for l in lines.splitlines() if "pairs=" in l][-1]
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if a.method == "minhash":
        theirs.append(float(f["sketch_s"]) + float(f["insert_s"]) + float(f["query_s"]))
    else:  # gaoya sketches from text inside insert and query
        theirs.append(float(f["insert_s"]) + float(f["query_s"]))
    gaoya_pairs = f["pairs"]

o, g = statistics.median(ours), statistics.median(theirs)
print(f"ndd dedup --method {a.method} (whole process): median {o:.3f} s over {a.runs} runs, {pairs} pairs")
print(f"{peer_name}: median {g:.3f} s, {gaoya_pairs} pairs")
print(f"speed-up: {g / o:.2f}x")
