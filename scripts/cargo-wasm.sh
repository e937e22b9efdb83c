#!/usr/bin/env bash
# Compiles the engine for the browser (cargo profile wasm, simd128); build-wasm.sh, the bench's
# wasm-count.sh and wasm-profile.sh all build through here so that they measure the same code.
#
# Panic locations name the file but not the line (-Z location-detail=file). Every bounds check
# carries a core::panic::Location, 16 bytes of static data each; 4,600 of them, nearly all
# distinct by their line, took 20 kB of the 500 kB gzip the browser build may weigh (issue 8:
# 501,175 -> 481,349 bytes by build-wasm.sh at 81947c8; the cloth step's instructions, counted
# as scripts/bench/wasm-count.sh counts them on each shipped build, 68.4M -> 67.8M).
# A panic in the browser still names its file and message (as "solver.rs:0:0"); the native CLI, built without the
# flag, runs the same model and gives the line. The flag is unstable, so stable rustc takes it
# only with RUSTC_BOOTSTRAP=1, set for this one command; a rustc that no longer knows it
# builds with full locations and a warning, not a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
flags="-C target-feature=+simd128"
if RUSTC_BOOTSTRAP=1 rustc -Z location-detail=file --target wasm32-unknown-unknown \
  --print cfg >/dev/null 2>&1; then
  export RUSTC_BOOTSTRAP=1
  flags="$flags -Z location-detail=file"
else
  echo "cargo-wasm: rustc rejects -Z location-detail=file; panic locations keep their lines" \
    "(about 20 kB gzip more)" >&2
fi
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$flags" \
  cargo build --profile wasm --lib --target wasm32-unknown-unknown -p flexlab "$@"
