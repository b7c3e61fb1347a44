#!/usr/bin/env bash
# The user guide's screenshots of the HTML report (docs/guide/src/report.md): the
# bundled corpus's page, opened in headless Chromium as scripts/browser_tests.sh
# does, written to docs/guide/src/img/report-*.png. Run after a change to the page.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x /usr/bin/chromium ]]; then
  echo "report_screenshots: /usr/bin/chromium is missing; installing Debian's chromium package"
  apt-get update -qq && apt-get install -y -qq chromium > /dev/null
fi
(cd tests/browser && npm ci --no-audit --no-fund --silent)
cargo build --quiet --profile test --workspace --all-features --bin ndd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Run beside a copy of the corpus, so that the page names the input and the output as
# a user's run would.
ndd="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/ndd"
cp data/debian-copyright.jsonl "$work/"
(cd "$work" && "$ndd" dedup --quiet --input debian-copyright.jsonl --report-out report.html > /dev/null)
node tests/browser/screenshots.mjs "$work/report.html" docs/guide/src/img
