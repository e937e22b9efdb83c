#!/usr/bin/env bash
# Installs what is missing on a fresh machine: the wasm32 target, the wasm-bindgen CLI at
# Cargo.lock's version, npm packages, and (with --browser) Debian's Chromium for the e2e tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  echo "setup: adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi

# the CLI must match the wasm-bindgen crate exactly; --locked fails on this registry mirror
WBG=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$WBG" ]; then
  echo "setup: installing wasm-bindgen-cli $WBG (takes 2-3 minutes once per machine)"
  cargo install wasm-bindgen-cli --version "=$WBG" --quiet
fi

# npm packages, reinstalled when the lock file changed
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ "${1:-}" = "--browser" ]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "setup: installing Debian chromium for the browser tests"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
fi
