#!/usr/bin/env bash
# One `ndd dedup` run over a JSONL corpus against the same corpus cut into N batches
# through a saved index (the first with --index-out, the next ones with --index-in
# --add), compared: pairs (ids and scores), the groups of the collection (from the
# union of the batches' pairs, earliest document kept) against the one run's
# clusters, kept documents, and the index file's size (issue 28, docs/performance.md).
#
#   scripts/compare_index_batches.sh NDD CORPUS N OUT [dedup options for the one run
#   and the first batch, e.g. --verify method]
#
# A batch's own --keep-out cannot take back a document an earlier batch kept: the
# script counts those apart.
set -euo pipefail
ndd=$(realpath "$1"); corpus=$(realpath "$2"); n=$3; out=$4; shift 4
rm -rf "$out"; mkdir -p "$out/one" "$out/b"
now() { date +%s.%N; }
t0=$(now)
"$ndd" dedup --quiet --input "$corpus" --pairs-out "$out/one/pairs.tsv" \
    --clusters-out "$out/one/clusters.tsv" --keep-out "$out/one/keep.jsonl" "$@" >/dev/null
t1=$(now)
total=$(wc -l <"$corpus")
start=1
for i in $(seq 1 "$n"); do
    end=$((i * total / n))
    sed -n "${start},${end}p" "$corpus" >"$out/b/part$i.jsonl"
    start=$((end + 1))
done
for i in $(seq 1 "$n"); do
    if [ "$i" = 1 ]; then
        extra=(--index-out "$out/b/index.ndx" "$@")
    else
        extra=(--index-in "$out/b/index.ndx" --add)
    fi
    "$ndd" dedup --quiet --input "$out/b/part$i.jsonl" "${extra[@]}" \
        --pairs-out "$out/b/pairs$i.tsv" --clusters-out "$out/b/clusters$i.tsv" \
        --keep-out "$out/b/keep$i.jsonl" >/dev/null
done
t2=$(now)
for i in $(seq 1 "$n"); do tail -n +2 "$out/b/pairs$i.tsv"; done | LC_ALL=C sort >"$out/b/pairs.sorted"
tail -n +2 "$out/one/pairs.tsv" | LC_ALL=C sort >"$out/one/pairs.sorted"
echo "batches: $n; options: $*"
echo "pairs: one run $(wc -l <"$out/one/pairs.sorted"), batches $(wc -l <"$out/b/pairs.sorted");" \
    "only in the one run $(LC_ALL=C comm -23 "$out/one/pairs.sorted" "$out/b/pairs.sorted" | wc -l)," \
    "only in the batches $(LC_ALL=C comm -13 "$out/one/pairs.sorted" "$out/b/pairs.sorted" | wc -l)"
python3 - "$out" "$n" "$corpus" <<'PY'
import json, sys
out, n, corpus = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ids, seen = [], set()
for line in open(corpus):
    d = json.loads(line)["id"]
    if d not in seen:  # the tool skips a repeated id
        seen.add(d)
        ids.append(d)
pos = {d: i for i, d in enumerate(ids)}
parent = list(range(len(ids)))
def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
for b in range(1, n + 1):
    for line in list(open(f"{out}/b/pairs{b}.tsv"))[1:]:
        a, c, _ = line.rstrip("\n").split("\t")
        ra, rc = find(pos[a]), find(pos[c])
        if ra != rc:
            parent[max(ra, rc)] = min(ra, rc)
final = [find(i) for i in range(len(ids))]
rows = lambda f: [int(l.rstrip("\n").split("\t")[1]) for l in list(open(f))[1:]]
one = rows(f"{out}/one/clusters.tsv")
keep = lambda f: {json.loads(l)["id"] for l in open(f)}
one_kept = keep(f"{out}/one/keep.jsonl")
batch_kept = set().union(*(keep(f"{out}/b/keep{b}.jsonl") for b in range(1, n + 1)))
final_kept = {ids[i] for i in range(len(ids)) if final[i] == i}
print(f"groups of the collection equal the one run's clusters: {final == one}")
print(f"kept: one run {len(one_kept)}, collection after the batches {len(final_kept)}, "
      f"equal: {final_kept == one_kept}; kept by a batch's --keep-out and dropped later: "
      f"{len(batch_kept - final_kept)}")
PY
printf 'time: one run %.1f s, batches %.1f s; index file %s bytes\n' \
    "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(stat -c %s "$out/b/index.ndx")"
