#!/usr/bin/env bash
# npm start: set up, build, and serve the lab on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
PORT="${PORT:-5173}"
echo
echo "flexlab is running at http://localhost:${PORT}/"
echo
exec node_modules/.bin/vite preview --config web/vite.config.ts --host 127.0.0.1 --port "$PORT" --strictPort
