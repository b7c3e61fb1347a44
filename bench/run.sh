#!/usr/bin/env bash
# ndd side by side with its peers, in one run, on the corpus of make_corpus.py; prints the
# Markdown table of docs/performance.md ("ndd against its peers, from a clone"):
#   * `ndd dedup` (release build, whole process) against the gaoya crate's sketch + LSH
#     (rust-peers `peers gaoya-lsh`) and the Python wheels' sketch + LSH (gaoya, rensa,
#     datasketch);
#   * `ndd dedup --method simhash --max-hamming 3` against gaoya's Python SimHash index;
#   * sketch throughput: ndd-minhash's OPH k = 128 against the plain tokenize + XXH3 pass
#     (the reference pass of rust-peers, in the same criterion run) and the peers' sketching;
#   * index bytes per document: the file `ndd dedup --index-out` saves, with and without
#     the shingle sets, and the in-memory LSH index that `ndd explain` measures.
# Runs are alternated (ndd, its peer, ndd, ...), each in a fresh process (lib.sh's `measure`,
# which records others_cpu, the CPUs the rest of the machine used meanwhile, and retries
# a contended run). From the repository root:
#
#   python3 bench/make_corpus.py      # once: bench/data/corpus.jsonl
#   bench/setup.sh                    # once: bench/.venv with the pinned Python peers
#   bench/run.sh | tee bench/data/run.txt
#
# env: RUNS (5, the Rust rows)  PYRUNS (3, the Python wheels' LSH rows; 0 skips them)
#      CORPUS (data/corpus.jsonl, relative to bench/)  SKETCH (1; 0 skips the criterion bench)
#      BUILD (1; 0 runs the binaries already built)  KEEP_RAW (file for the raw lines)
#      ONLY, RETRIES, QUIET_WAIT (lib.sh)
set -euo pipefail
cd "$(dirname "$0")"

RUNS="${RUNS:-5}"
PYRUNS="${PYRUNS:-3}"
SKETCH="${SKETCH:-1}"
BUILD="${BUILD:-1}"
ROOT="$(cd .. && pwd)"
NDD="${CARGO_TARGET_DIR:-$ROOT/target}/release/ndd"
. ./lib.sh

need_inputs
CORPUS="$(cd "$(dirname "$CORPUS")" && pwd)/$(basename "$CORPUS")"

if [ "$BUILD" = 1 ]; then
  echo "# building ndd (release) and rust-peers" >&2
  (cd "$ROOT" && cargo build --release --quiet --locked -p ndd-cli)
  CARGO_TARGET_DIR=rust-peers/target cargo build --release --quiet --locked --manifest-path rust-peers/Cargo.toml
fi

raw_dir run
echo "# $(date -u +%Y-%m-%dT%H:%MZ) ndd $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "nproc=$(nproc) runs=$RUNS pyruns=$PYRUNS corpus=$CORPUS"
echo "# $(rustc --version); $($PY --version 2>&1); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# uptime before: $(uptime)"
load_check

read -r DOCS MB < <($PY -c '
import json, sys
n = b = 0
for line in open(sys.argv[1], encoding="utf-8"):
    n += 1
    b += len(json.loads(line)["text"].encode("utf-8"))
print(n, "%.3f" % (b / 1e6))' "$CORPUS")
N=(--docs "$DOCS" --mb "$MB")

# --- the main job, alternated: ndd, gaoya crate, ndd simhash, gaoya wheel's simhash index
for _ in $(seq "$RUNS"); do
  measure 1 "" $PY ndd_peer.py --peer ndd-dedup "${N[@]}" -- "$NDD" dedup --input "$CORPUS" --top 1
  measure 1 "" $RP/peers gaoya-lsh "$CORPUS"
  measure 1 "" $PY ndd_peer.py --peer ndd-dedup-simhash "${N[@]}" -- \
    "$NDD" dedup --method simhash --max-hamming 3 --input "$CORPUS" --top 1
  measure 1 "" $PY py_simhash.py --mode gaoya-index --corpus "$CORPUS"
done
# --- the Python wheels' sketch + LSH (datasketch alone takes ~10 s a run)
for _ in $(seq "$PYRUNS"); do
  measure 1 "" $PY py_gaoya.py --mode lsh --corpus "$CORPUS"
  measure 1 "" $PY py_rensa.py --mode lsh --corpus "$CORPUS"
  measure 1 "" $PY py_datasketch.py --mode lsh --corpus "$CORPUS"
done
[ -n "${KEEP_RAW:-}" ] && cp "$RAW/all" "$KEEP_RAW"
medians "$RAW/all" | tee "$RAW/medians"

# --- sketch throughput: one criterion run, the reference pass beside OPH k = 128
if [ "$SKETCH" = 1 ]; then
  (cd "$ROOT" && NDD_BENCH_CORPUS="$CORPUS" cargo bench --quiet --locked -p ndd-minhash --bench minhash -- \
    '^minhash/(baseline|ceiling|oph k=128 1 thread$)' --warm-up-time 2 --measurement-time 6) \
    >"$RAW/criterion" 2>&1 || { tail -n 20 "$RAW/criterion" >&2; exit 1; }
  $PY criterion_lines.py "$RAW/criterion" | tee -a "$RAW/medians"
fi

# --- index bytes per document
# (per document the tool indexed: lines with a repeated id are skipped, its summary says)
"$NDD" dedup --input "$CORPUS" --top 1 --index-out "$RAW/index-sets" >"$RAW/summary" 2>"$RAW/stderr"
"$NDD" dedup --quiet --input "$CORPUS" --top 1 --verify method --index-out "$RAW/index-nosets" >/dev/null 2>&1
"$NDD" explain --input "$CORPUS" >"$RAW/explain" 2>&1
READ=$(sed -nE 's/^documents: +([0-9]+) read.*/\1/p' "$RAW/summary")
echo "index=saved-with-sets docs=$READ bytes=$(stat -c %s "$RAW/index-sets")" | tee -a "$RAW/medians"
echo "index=saved-without-sets docs=$READ bytes=$(stat -c %s "$RAW/index-nosets")" | tee -a "$RAW/medians"
echo "index=explain $(grep -m1 '^bytes per document' "$RAW/explain" | sed -E 's/^bytes per document: ([0-9]+) of signature .* \+ ([0-9]+) of LSH index.*/signature=\1 lsh=\2/')" |
  tee -a "$RAW/medians"

echo "# uptime after: $(uptime)"
echo "# total wall $(($(date +%s) - T0)) s"
echo
$PY side_by_side.py "$RAW/medians"
