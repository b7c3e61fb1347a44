#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for SECONDS each (default 20) with libFuzzer, from the
# kept inputs in tests/fuzz/<target>/ (seeds and past crashes, which `cargo test`
# replays). A crash is copied into tests/fuzz/<target>/ (commit it with the fix) and
# fails the run.
#
# Built on the stable toolchain, as cargo-fuzz builds (SanitizerCoverage through stable
# -C flags; no sanitizer, so no nightly is needed: a fresh machine has only stable).
# Debug assertions and overflow checks are on, as in cargo-fuzz's default.
#
#   scripts/fuzz.sh            # every target, 20 s each
#   scripts/fuzz.sh 600 text   # one target, 10 minutes
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(text decoders)
fi
triple=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps RUSTFLAGS off build scripts and proc macros (they would need libFuzzer).
# Not --locked: fuzz/ follows the workspace's dependencies, which change under it;
# the committed Cargo.lock is the starting point, updated only where they changed.
(cd fuzz && cargo build --quiet --release --target "$triple" --bins)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for target in "${targets[@]}"; do
    kept="tests/fuzz/$target"
    mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
    cp "$kept"/* "$work/$target/corpus/"
    echo "fuzzing $target for ${seconds}s from $(ls "$kept" | wc -l) kept inputs"
    if ! "fuzz/target/$triple/release/$target" "$work/$target/corpus" \
        -max_total_time="$seconds" -max_len=8192 -len_control=10 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/$target/artifacts/" -print_final_stats=1 \
        > "$work/$target/log" 2>&1; then
        status=1
        tail -40 "$work/$target/log"
        for crash in "$work/$target/artifacts"/*; do
            [ -e "$crash" ] || continue
            cp "$crash" "$kept/"
            echo "kept $kept/$(basename "$crash"): replay it with cargo test, fix, commit both"
        done
    else
        grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$target/log" | tr '\n' ' '
        echo
    fi
done
exit $status
