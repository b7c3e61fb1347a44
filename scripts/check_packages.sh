#!/usr/bin/env bash
# Checks that every package builds from its .crate alone: `cargo package` packs each
# publishable crate, then the packed crates are unpacked side by side and every target
# (library, binaries, tests, examples, benches) is type-checked from the unpacked
# sources, the ndd-* dependencies patched to the unpacked copies (they are not on
# crates.io yet). A bench or example that reaches outside its package fails here.
# (cargo's own verification is skipped: it builds each package against the others
# through a temporary registry whose compiled crates it reuses across runs, so it
# checked a changed crate against the previous run's copy of its dependencies.)
set -euo pipefail
cd "$(dirname "$0")/.."
# Packages with `publish = false` (tools/guide-plots, crates/dedup-cluster) are not
# published: left out, found from the metadata (`publish` is `[]` for them).
unpublished=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["packages"] if p["publish"] == []))')
excludes=()
for name in $unpublished; do
    excludes+=(--exclude "$name")
done
cargo package --locked --workspace "${excludes[@]}" --allow-dirty --no-verify --quiet
work="target/package-check"
rm -rf "$work/src"
mkdir -p "$work/src"
version=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')
members=()
patches=""
for name in $unpublished; do
    rm -f target/package/"$name"-*.crate
done
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
