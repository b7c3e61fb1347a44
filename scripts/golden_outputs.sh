#!/usr/bin/env bash
# Runs one `ndd` binary over a fixed battery of invocations on a JSONL corpus and
# writes every output file (and the stdout of the deterministic subcommands) into a
# folder, so two builds can be compared byte for byte:
#
#   scripts/golden_outputs.sh OLD_NDD /tmp/before
#   scripts/golden_outputs.sh NEW_NDD /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Used to show that a restructuring changed no output (issue "One plan, every
# engine"). The summary on stderr carries timings and is not compared. The corpus is
# the bundled one unless a third argument names another JSONL file (the bench corpus).
set -euo pipefail
ndd=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "${3:-$root/data/debian-copyright.jsonl}")
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # name, then the arguments; stderr kept only on failure
    local name=$1
    shift
    if ! "$ndd" "$@" >"$out/$name.stdout" 2>"$work/stderr"; then
        echo "failed: ndd $*" >&2
        cat "$work/stderr" >&2
        exit 1
    fi
}
# The summary (stdout of dedup) has timings: keep only output files for dedup runs.
dedup() { # name, then extra arguments
    local name=$1
    shift
    mkdir -p "$out/$name"
    run "$name/run" dedup --quiet --input "$corpus" \
        --keep-out "$out/$name/keep.jsonl" --annotate-out "$out/$name/annotate.jsonl" \
        --drop-out "$out/$name/drop.txt" --pairs-out "$out/$name/pairs.tsv" \
        --clusters-out "$out/$name/clusters.tsv" "$@"
    rm -f "$out/$name/run.stdout"
}

dedup default
dedup jsonl --format jsonl
dedup t07 --threshold 0.7
dedup nfkc --nfkc --k 2
dedup chars --char-k 5
dedup no-exact --no-exact-pass
dedup longest --representative longest
dedup smallest-id --representative smallest-id
dedup balanced --banding balanced --num-perm 64
dedup bands --bands 20 --rows 5
dedup simhash --method simhash
dedup simhash-tf --method simhash --weighting tf --bits 128
dedup exact --method exact
dedup signcd --method signcd --threshold 0.7
dedup imatch --method imatch
dedup verify-method --verify method
dedup verify-containment --verify containment
dedup verify-align --verify align --explain-out "$out/verify-align-explain.jsonl"
dedup durian --group durian --members-out "$out/durian-members.jsonl"
# Out of core keeps no document in memory: no annotated output.
mkdir -p "$out/outofcore"
run outofcore/run dedup --quiet --input "$corpus" --work-dir "$work/ooc" --memory-budget 16M \
    --keep-out "$out/outofcore/keep.jsonl" --drop-out "$out/outofcore/drop.txt" \
    --pairs-out "$out/outofcore/pairs.tsv" --clusters-out "$out/outofcore/clusters.tsv"
rm -f "$out/outofcore/run.stdout"

# Batches through a saved index: the first half, then the second added to it.
half=$(( $(wc -l <"$corpus") / 2 ))
head -n "$half" "$corpus" >"$work/first.jsonl"
tail -n +"$((half + 1))" "$corpus" >"$work/second.jsonl"
mkdir -p "$out/index"
run index/first dedup --quiet --input "$work/first.jsonl" --index-out "$out/index/first.ndx" \
    --pairs-out "$out/index/first-pairs.tsv"
run index/second dedup --quiet --input "$work/second.jsonl" --index-in "$out/index/first.ndx" \
    --add --index-out "$out/index/both.ndx" --pairs-out "$out/index/second-pairs.tsv" \
    --keep-out "$out/index/second-keep.jsonl" --clusters-out "$out/index/second-clusters.tsv"
rm -f "$out"/index/*.stdout

# Queries against the saved index: the first 40 documents as queries.
head -n 40 "$corpus" >"$work/queries.jsonl"
run query-topk query --quiet --index "$out/index/both.ndx" --input "$work/queries.jsonl" --top-k 5
run query-containment query --quiet --index "$out/index/both.ndx" --input "$work/queries.jsonl" \
    --containment 0.8

# Flag-only dedup over Bloom filters, saved and continued.
mkdir -p "$out/bloom"
run bloom/first dedup --quiet --bloom --input "$work/first.jsonl" --bloom-out "$out/bloom/first.nddb" \
    --keep-out "$out/bloom/first-keep.jsonl" --drop-out "$out/bloom/first-drop.txt"
run bloom/second dedup --quiet --bloom --input "$work/second.jsonl" \
    --bloom-in "$out/bloom/first.nddb" --bloom-out "$out/bloom/both.nddb" \
    --drop-out "$out/bloom/second-drop.txt"
rm -f "$out"/bloom/*.stdout

# Explain prints the S-curve for the corpus: deterministic (no timings).
run explain explain --input "$corpus" --sample 200
echo "outputs of $ndd written to $out"
