#!/usr/bin/env bash
# Profiles the browser build's step (see wasm-profile.mjs): the wasm engine as the lab builds it
# (cargo profile wasm, simd128) through wasm-bindgen, without wasm-opt so function names stay.
#   bash scripts/bench/wasm-profile.sh MODEL.xml [STEPS] [WARMUP] [INCLUDE,...]
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
out=target/wasm-profile
bash scripts/cargo-wasm.sh >&2
wasm-bindgen --target web --out-dir "$out" target/wasm32-unknown-unknown/wasm/flexlab.wasm
rm -rf "$out/prof"
node --cpu-prof --cpu-prof-dir="$out/prof" scripts/bench/wasm-profile.mjs step "$out" "$@"
node scripts/bench/wasm-profile.mjs report "$out/prof"
