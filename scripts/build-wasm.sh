#!/usr/bin/env bash
# Builds the engine for the browser: cargo (profile wasm: release at opt-level 2, simd128)
# → wasm-bindgen (--target web) → wasm-opt from npm binaryen (Debian's binaryen 108 breaks
# wasm-bindgen output).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo build --profile wasm --lib --target wasm32-unknown-unknown -p flexlab
wasm-bindgen --target web --out-dir web/src/wasm target/wasm32-unknown-unknown/wasm/flexlab.wasm
# --low-memory-unused lets wasm-opt fold "pointer + small constant" into a load's offset; the two
# differ only if the sum wraps past 4 GB into the first 1 kB, which no valid address does
# (emscripten's default; 2.6 kB smaller)
node_modules/.bin/wasm-opt -O3 --low-memory-unused --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  web/src/wasm/flexlab_bg.wasm -o web/src/wasm/flexlab_bg.wasm
# the size as the bench and issue 8 measure it (zlib level 9; GNU gzip -9 writes ~4 kB less)
node -e "const b=require('fs').readFileSync('web/src/wasm/flexlab_bg.wasm');console.log('wasm: '+b.length+' bytes, '+require('zlib').gzipSync(b,{level:9}).length+' gzip (zlib -9, as BENCHMARKS.md)')"
