#!/usr/bin/env bash
# Set up, build the wasm engine and the web app into web/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh
bash scripts/build-wasm.sh
# the native CLI compiles the lessons for the page (web/lessons-plugin.ts runs it)
cargo build --release -p flexlab --bin flexlab
node_modules/.bin/vite build --config web/vite.config.ts --logLevel warn
