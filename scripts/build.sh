#!/usr/bin/env bash
# Set up, build the wasm engine and the web app into web/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-wasm.sh
node_modules/.bin/vite build --config web/vite.config.ts --logLevel warn
