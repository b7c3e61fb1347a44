# Sourced by scripts/python_tests.sh and scripts/spark_test.sh (from the repository
# root). `python_env VENV REQUIREMENTS` makes a fresh virtualenv at VENV with the pinned
# packages of REQUIREMENTS, builds the `ndd` binary the tests compare with (the units
# `cargo test --workspace --all-features` built: a no-op after it in .ci/run) and the
# near_dup wheel (dev profile: the fastest to build here, docs/decisions.md), installs
# the wheel, and exports NDD_BIN.
python_env() {
    local venv=$1 requirements=$2
    local target=${CARGO_TARGET_DIR:-target}
    rm -rf "$venv" "$target/wheels"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cargo build --locked --quiet --profile test --workspace --all-features --bin ndd
    "$venv/bin/maturin" build --locked --quiet --profile dev -m crates/python/Cargo.toml --out "$target/wheels"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "$target"/wheels/near_dup-*.whl
    NDD_BIN="$(cd "$target" && pwd)/debug/ndd"
    export NDD_BIN
}
