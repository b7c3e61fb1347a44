#!/usr/bin/env bash
# Checks that every package builds from its .crate alone: `cargo package` verifies
# each library, then the packed crates are unpacked side by side and every target
# (library, binaries, tests, examples, benches) is type-checked from the unpacked
# sources, the ndd-* dependencies patched to the unpacked copies (they are not on
# crates.io yet). A bench or example that reaches outside its package fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo package --locked --workspace --allow-dirty --quiet
work="target/package-check"
rm -rf "$work/src"
mkdir -p "$work/src"
version=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')
members=()
patches=""
for crate in target/package/*-"$version".crate; do
    # -m: files get the time of extraction, so cargo sees every change.
    tar -xmzf "$crate" -C "$work/src"
    dir=$(basename "$crate" .crate)
    name=${dir%-"$version"}
    members+=("\"src/$dir\"")
    patches+="$name = { path = \"src/$dir\" }"$'\n'
done
{
    echo "[workspace]"
    echo "members = [$(IFS=,; echo "${members[*]}")]"
    echo "resolver = \"3\""
    echo
    echo "[patch.crates-io]"
    printf '%s' "$patches"
} > "$work/Cargo.toml"
cp Cargo.lock "$work/Cargo.lock"
# Check every target of every unpacked package with every feature.
(cd "$work" && CARGO_TARGET_DIR=../package-check-target cargo check --quiet --workspace --all-targets --all-features)
echo "every package builds from its .crate"
