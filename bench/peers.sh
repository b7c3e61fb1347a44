#!/usr/bin/env bash
# Runs every peer measurement and prints one summary line per peer:
#   peer=<name> docs_per_s=<x> mb_per_s=<y> rss_mb=<z> [runs= cpu_pct= and the median run's extras]
# Each measurement runs RUNS times, each in a fresh process under `/usr/bin/time -v`. Figures are
# those of the median run by the script's OWN timed span (corpus loading and interpreter start-up
# excluded); rss_mb is the median peak RSS of the whole process. mb_per_s = MB of input text/s.
# Lines for the ~100 MB throughput corpus carry the suffix `.large` in the peer name.
# Finally the physical-limit probes print `limit=<name> mb_per_s=...` lines (LIMITS=0 skips them).
#
# Other processes on the machine skew the figures (multi-threaded peers most): each run records
# others_cpu (CPUs used by the rest of the machine meanwhile) and a contended run is retried.
#
# env: RUNS (3)  CORPUS (data/corpus.jsonl)  LARGE (data/corpus_large.jsonl; empty = skip)
#      LIMITS (1)  ONLY (extended regex; only commands matching it run)  KEEP_RAW (file for raw lines)
#      RETRIES (2) QUIET_WAIT (60 s to wait for quiet before a retry)
# To measure another implementation side by side, add a `measure` line whose command prints
#   peer=<name> docs=<n> mb=<MB of text> secs=<timed span> [key=value ...]
# (run.sh does that for ndd). The shared pieces (measure, the load watch, medians) are in lib.sh.
set -euo pipefail
cd "$(dirname "$0")"

RUNS="${RUNS:-3}"
LARGE="${LARGE-data/corpus_large.jsonl}"
LIMITS="${LIMITS:-1}"
. ./lib.sh

need_inputs
CARGO_TARGET_DIR=rust-peers/target cargo build --release --quiet --locked --manifest-path rust-peers/Cargo.toml
raw_dir peers
echo "# $(date -u +%Y-%m-%dT%H:%MZ) nproc=$(nproc) runs=$RUNS corpus=$CORPUS large=${LARGE:-none}"
echo "# uptime: $(uptime)"
load_check

S="--corpus $CORPUS"
# --- Python floor: shingling alone (every Python peer below pays it inside its timed span)
measure "$RUNS" "" $PY py_baseline.py --mode shingle $S
measure "$RUNS" "" $PY py_baseline.py --mode load $S
# --- datasketch
measure "$RUNS" "" $PY py_datasketch.py --mode sketch $S
measure "$RUNS" "" $PY py_datasketch.py --mode lsh $S        # also prints datasketch-minhash-bulk
# --- rensa
measure "$RUNS" "" $PY py_rensa.py --mode rminhash $S
measure "$RUNS" "" $PY py_rensa.py --mode rbatch $S
measure "$RUNS" "" $PY py_rensa.py --mode rcore $S
measure "$RUNS" "" $PY py_rensa.py --mode cminhash $S
measure "$RUNS" "" $PY py_rensa.py --mode lsh $S
# --- gaoya (Python)
measure "$RUNS" "" $PY py_gaoya.py --mode sketch $S
measure "$RUNS" "" $PY py_gaoya.py --mode lsh $S
measure "$RUNS" "" $PY py_gaoya.py --mode lsh-tokens $S
# --- SimHash
measure "$RUNS" "" $PY py_simhash.py --mode simhash-index $S  # also prints simhash-py1e0n
measure "$RUNS" "" $PY py_simhash.py --mode pybind-index $S   # also prints simhash-pybind
measure "$RUNS" "" $PY py_simhash.py --mode gaoya $S
measure "$RUNS" "" $PY py_simhash.py --mode gaoya-index $S
# --- Rust crates (release build)
measure "$RUNS" "" $RP/peers gaoya-minhash32 "$CORPUS"
measure "$RUNS" "" $RP/peers probminhash-superminhash "$CORPUS"
measure "$RUNS" "" $RP/peers probminhash-optdens "$CORPUS"
measure "$RUNS" "" $RP/peers gaoya-lsh "$CORPUS"

# --- ~100 MB throughput corpus (long documents), sketch only, the faster peers
if [ -n "$LARGE" ] && [ -f "$LARGE" ]; then
  L="--corpus $LARGE"
  measure "$RUNS" .large $RP/peers gaoya-minhash32 "$LARGE"
  measure "$RUNS" .large $RP/peers probminhash-superminhash "$LARGE"
  measure "$RUNS" .large $RP/peers probminhash-optdens "$LARGE"
  measure "$RUNS" .large $PY py_rensa.py --mode rminhash $L
  measure "$RUNS" .large $PY py_rensa.py --mode rcore $L
  measure "$RUNS" .large $PY py_gaoya.py --mode sketch $L
  measure "$RUNS" .large $PY py_simhash.py --mode gaoya $L
  measure "$RUNS" .large $PY py_baseline.py --mode shingle $L
  measure 1 .large $PY py_datasketch.py --mode sketch $L
fi

[ -n "${KEEP_RAW:-}" ] && cp "$RAW/all" "$KEEP_RAW"

# --- median run per peer
medians "$RAW/all"

if [ "$LIMITS" = 1 ]; then
  $RP/limits "$CORPUS" | sed 's/$/ corpus=small/'
  if [ -n "$LARGE" ] && [ -f "$LARGE" ]; then
    $RP/limits "$LARGE" | sed 's/$/ corpus=large/'
  fi
fi
echo "# total wall $(( $(date +%s) - T0 )) s"
