#!/usr/bin/env bash
# The HTML report (--report-out) in headless Chromium (issue 33): the bundled corpus's
# report is checked against the run's printed summary and its input texts, and a
# report of 10^5 synthetic groups is paged, filtered and searched under a second per
# step. Chromium is Debian's package (installed here when missing), driven by Node's
# playwright-core from tests/browser (npm ci).
#
#   scripts/browser_tests.sh            # the checks
#   scripts/browser_tests.sh --groups N # N synthetic groups instead of 100000
set -euo pipefail
cd "$(dirname "$0")/.."
groups=100000
if [[ "${1:-}" == "--groups" ]]; then groups=$2; fi
started=$(date +%s)

if [[ ! -x /usr/bin/chromium ]]; then
  echo "browser_tests: /usr/bin/chromium is missing; installing Debian's chromium package"
  apt-get update -qq && apt-get install -y -qq chromium > /dev/null
fi
(cd tests/browser && npm ci --no-audit --no-fund --silent)

# The binary of the units `cargo test --workspace --all-features` built (a no-op in CI).
cargo build --quiet --profile test --workspace --all-features --bin ndd
ndd="${CARGO_TARGET_DIR:-target}/debug/ndd"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "browser_tests: the bundled corpus"
"$ndd" dedup --input data/debian-copyright.jsonl --report-out "$work/corpus.html" > "$work/corpus.txt"
node tests/browser/check.mjs corpus "$work/corpus.html" "$work/corpus.txt" data/debian-copyright.jsonl

echo "browser_tests: $groups synthetic groups"
python3 - "$groups" > "$work/groups.jsonl" <<'PY'
import json, sys
# Group g: 2 to 6 near-duplicates of one text of words of its own (a word added or
# changed per member), so that groups never join.
for g in range(int(sys.argv[1])):
    words = [f"g{g}w{j}" for j in range(14)]
    size = 2 + (g % 7 == 0) + 3 * (g % 97 == 0)
    for m in range(size):
        text = " ".join(words + ([f"extra{m}"] if m else []))
        print(json.dumps({"id": f"doc-{g}-{m}", "text": text}))
PY
"$ndd" dedup --input "$work/groups.jsonl" --report-out "$work/groups.html" > "$work/groups.txt"
echo "browser_tests: $(du -h "$work/groups.html" | cut -f1) page, $(grep -E '^pairs:' "$work/groups.txt")"
node tests/browser/check.mjs paging "$work/groups.html" "$groups"

echo "browser_tests: done in $(( $(date +%s) - started )) s"
