#!/usr/bin/env bash
# Counts the machine instructions of a step of the browser build, for changes too small for the
# wall clock of this shared machine (its steps/s vary ±10% and more between runs): the wasm
# engine as the lab builds it (cargo profile wasm, simd128), run by Node under valgrind with
# every function compiled once by V8's optimising compiler (no baseline tier, no tier-up).
# Node's own start-up varies by about 8M instructions between runs (0.3% of a load, measured on
# two load-only runs), so a count per step varies by about 8M/STEPS: choose STEPS so that this
# is small beside a step. Prints instructions per step: a run of WARMUP+STEPS steps less a run
# of WARMUP+1 steps, over STEPS-1. V8 compiles a wasm function on its first call, and that
# compilation counts as stepping unless the first WARMUP+1 steps have already called it: let
# WARMUP reach the phase to measure (trilinear_box_drop touches the floor near step 120, so
# count it from step 200; compiling everything at load instead made counts vary by 20%).
#   bash scripts/bench/wasm-count.sh MODEL.xml [STEPS] [WARMUP] [INCLUDE,...]
# Needs valgrind (Debian: apt-get install valgrind). Compare two trees by running it in each.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
command -v valgrind >/dev/null || { echo "wasm-count: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
model=$1 steps=${2:-20} warmup=${3:-100} inc=${4:-}
out=target/wasm-count
bash scripts/cargo-wasm.sh >&2
wasm-bindgen --target web --out-dir "$out" target/wasm32-unknown-unknown/wasm/flexlab.wasm
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --smc-check=all-non-file \
    node --single-threaded --no-liftoff --no-wasm-tier-up \
    scripts/bench/wasm-profile.mjs step "$out" "$model" "$1" "$2" "$inc" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
(( steps >= 2 )) || { echo "wasm-count: STEPS must be at least 2" >&2; exit 2; }
full=$(count "$steps" "$warmup")
base=$(count 1 "$warmup")
echo "$(basename "$model"): $(( (full - base) / (steps - 1) )) instructions per step (wasm, mean of steps $((warmup + 2))-$((warmup + steps)))"
