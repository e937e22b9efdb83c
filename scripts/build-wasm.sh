#!/usr/bin/env bash
# Builds the engine for the browser: cargo (profile wasm: release at opt-level 2, simd128)
# → wasm-bindgen (--target web) → wasm-opt from npm binaryen (Debian's binaryen 108 breaks
# wasm-bindgen output).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/cargo-wasm.sh
# Numbers print through crate::decimal (JavaScript's String(x)) in the browser; Rust's float
# printer would add about 11 kB gzip. Its functions' names (the name section) tell it is back.
if grep -qa '4core3fmt5float' target/wasm32-unknown-unknown/wasm/flexlab.wasm; then
  echo "build-wasm: the browser build prints an f64 with Rust's float printer; print it through"
  echo "crate::decimal (Decimal, write_round_trip). python3 scripts/wasm-float-sites.py finds where."
  exit 1
fi
wasm-bindgen --target web --out-dir web/src/wasm target/wasm32-unknown-unknown/wasm/flexlab.wasm
# --low-memory-unused lets wasm-opt fold "pointer + small constant" into a load's offset; the two
# differ only if the sum wraps past 4 GB into the first 1 kB, which no valid address does
# (emscripten's default; 2.6 kB smaller)
# --no-inline: wasm-opt does not inline code that runs once per load into its callers: the parser,
# compiler, lesson code and bindings (crate flexlab, built at opt-level "z" for the same reason),
# the containers and formatting only they use, and Vec growth (the step does not allocate).
# Inlining them (mostly functions with one caller) cost 5.9 kB gzip and no step time; the step's
# crate, flexlab_core, is inlined as before. To compare: FLEXLAB_INLINE_COLD=1 bash
# scripts/build-wasm.sh builds without the patterns; the browser bench of both builds
# (scripts/bench/browser.mjs --dist DIR for each) showed the same steps/s. alloc::vec (the Vec
# methods LLVM left out of line: collect, clone, extend, from_elem; the step's own loops index
# slices) saves 1.9 kB more; cloth30, tet_box6, cable1d_edge and trilinear_box_drop ran at the
# same steps/s with and without it.
# --converge repeats the passes until the size stops falling: 0.48 kB gzip smaller for about 30 s
# more build time (499,973 -> 499,494 bytes at 5d2f8be), the room the inspector's MuJoCo layout of
# efc_J needed under 500 kB. The producers and target-features sections are for toolchains, not
# the browser (0.3 kB).
# The core's constructors, drops and Model/Data accessors (once per load or per query, never
# per step: the step's own loops read the arrays) are left out of line as well (0.4 kB).
# The patterns match wasm-bindgen's function names (its output keeps the name section), which
# are rustc's v0 names: every crate carries its disambiguator, `flexlab[10f79df785e1d14c]::…`,
# and methods and trait items start with `<` (`<alloc[…]::vec::Vec<f64>>::extend_with`), hence
# `[*]` and the `<` forms. Written as `flexlab::*`, as they were before, they matched nothing once
# the toolchain printed v0 names, and the build grew unnoticed: 500.1 -> 490.4 kB gzip with
# the patterns matching again. The `<` forms add the methods of the once-per-load crates, which
# the old names never reached: the Reader's and the bindings' methods, roxmltree's, and the
# collections' (Vec, String, BTreeMap, hashbrown), whose step-time uses LLVM inlines before
# wasm-opt runs (the step does not allocate).
COLD=('flexlab[*]::*' '<flexlab[*]::*' 'roxmltree[*]::*' '<roxmltree[*]::*' '<hashbrown[*]::*'
  'alloc[*]::collections::*' '<alloc[*]::collections::*' 'alloc[*]::raw_vec::*'
  '<alloc[*]::raw_vec::*' 'alloc[*]::fmt::*' 'alloc[*]::string::*' '<alloc[*]::string::*'
  'alloc[*]::vec::*' '<alloc[*]::vec::*' 'core[*]::fmt::*' '<flexlab_core[*]::*>::new'
  'core[*]::ptr::drop_in_place*' 'flexlab_core[*]::data::*' '<flexlab_core[*]::data::Data>::*'
  '<flexlab_core[*]::model::Model>::*' '<flexlab_core[*]::fields::*'
  '<flexlab_core[*]::model::Model as core[*]::default::Default>::default')
NO_INLINE=()
if [ -z "${FLEXLAB_INLINE_COLD:-}" ]; then
  for pattern in "${COLD[@]}"; do NO_INLINE+=("--no-inline=$pattern"); done
  # every pattern must still name a function: a toolchain that prints names otherwise would
  # leave the build silently bigger (wasm-opt's wildcard: '*' is any run of characters)
  node_modules/.bin/wasm-opt web/src/wasm/flexlab_bg.wasm --print-function-map --enable-simd \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    > target/wasm-function-names.txt
  node -e "
const names = require('fs').readFileSync('target/wasm-function-names.txt', 'utf8')
  .split('\\n').map((l) => l.slice(l.indexOf(':') + 1));
const dead = process.argv.slice(1).filter((p) => {
  const re = new RegExp('^' + p.split('*').map((s) => s.replace(/[.*+?^\${}()|[\\]\\\\]/g, '\\\\$&')).join('.*') + '\$');
  return !names.some((n) => re.test(n));
});
if (dead.length) {
  console.error('build-wasm: these --no-inline patterns match no function name: ' + dead.join(', '));
  process.exit(1);
}" "${COLD[@]}"
fi
node_modules/.bin/wasm-opt "${NO_INLINE[@]}" -O3 --converge --strip-producers --strip-target-features --low-memory-unused --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  web/src/wasm/flexlab_bg.wasm -o web/src/wasm/flexlab_bg.wasm
# the size as the bench and issue 8 measure it (zlib level 9; GNU gzip -9 writes ~4 kB less)
# (and says so when it is over issue 8's 500 kB: a build change, not only new code, can do it)
node -e "
const b = require('fs').readFileSync('web/src/wasm/flexlab_bg.wasm');
const gz = require('zlib').gzipSync(b, { level: 9 }).length;
console.log('wasm: ' + b.length + ' bytes, ' + gz + ' gzip (zlib -9, as BENCHMARKS.md)' +
  (gz > 500000 ? '; OVER the 500 kB target of issue 8 by ' + (gz - 500000) + ' bytes' : ''));"
