#!/usr/bin/env bash
# npm test: set up, then run every suite — Rust format/lint/tests, the wasm build, the
# TypeScript check, vitest, the lesson checker and Playwright in Debian Chromium — and end with
# one line "N passed, N failed" counting every test of every suite.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
mkdir -p test-results
# reports of an earlier run must never be counted as this run's
rm -f test-results/vitest.json test-results/playwright.json
PASS=0
FAIL=0
FAILED_SUITES=()

note() { # suite passed failed
  PASS=$((PASS + $2)); FAIL=$((FAIL + $3))
  if [ "$3" -gt 0 ]; then FAILED_SUITES+=("$1"); fi
  echo "== $1: $2 passed, $3 failed"
}
check() { # name command... — a single pass/fail check
  local name=$1; shift
  if "$@" > "test-results/$name.log" 2>&1; then note "$name" 1 0; else tail -n 40 "test-results/$name.log"; note "$name" 0 1; fi
}

if ! bash scripts/setup.sh --browser; then
  echo "setup failed"; echo "0 passed, 1 failed"; exit 1
fi

check rustfmt cargo fmt --all -- --check
check clippy cargo clippy --all-targets --release -- -D warnings

# Rust tests: count the libtest summary lines (--no-fail-fast: a failing test binary must not
# keep the ones after it from running and being counted)
cargo test --release --no-fail-fast > test-results/cargo-test.log 2>&1
CARGO_RC=$?
grep -E "^test result:|panicked|FAILED" test-results/cargo-test.log || true
read -r P F < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p+0, f+0 }' test-results/cargo-test.log)
if ! grep -qE "^test result:" test-results/cargo-test.log; then P=0; F=1; fi
if [ "$CARGO_RC" != 0 ] && [ "${F:-0}" = 0 ]; then F=1; fi
note "cargo test" "${P:-0}" "${F:-0}"

check wasm-build bash scripts/build-wasm.sh
check typescript node_modules/.bin/tsc -p web/tsconfig.json --noEmit
check vite-build node_modules/.bin/vite build --config web/vite.config.ts --logLevel warn

# lesson checker (native CLI): every lesson parses, every scene compiles, every measured check
# meets its expect
check lessons cargo run --release --quiet -p flexlab -- lessons check lessons/
grep -E "^(pending|lessons):" test-results/lessons.log || true

# vitest
node_modules/.bin/vitest run --config web/vite.config.ts --reporter=default --reporter=json \
  --outputFile="$PWD/test-results/vitest.json" > test-results/vitest.log 2>&1
VITEST_RC=$?
tail -n 15 test-results/vitest.log
if [ -f test-results/vitest.json ]; then
  # failed tests, plus each failed file none of whose tests failed (it did not load or run)
  read -r P F < <(node -e 'const r=require("./test-results/vitest.json");const broken=(r.testResults||[]).filter((f)=>f.status==="failed"&&!(f.assertionResults||[]).some((a)=>a.status==="failed")).length;console.log(r.numPassedTests, r.numFailedTests + broken)')
else P=0; F=1; fi
# a failing run (e.g. an unhandled error) with no failed test still fails once
if [ "$VITEST_RC" != 0 ] && [ "${F:-0}" = 0 ]; then F=1; fi
note vitest "$P" "$F"

# Playwright in Debian Chromium
PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/playwright.json node_modules/.bin/playwright test \
  --reporter=list,json > test-results/playwright.log 2>&1
PLAYWRIGHT_RC=$?
tail -n 25 test-results/playwright.log
if [ -f test-results/playwright.json ]; then
  read -r P F < <(node -e 'const r=require("./test-results/playwright.json");const s=r.stats||{};console.log(s.expected||0, (s.unexpected||0)+(s.flaky||0)+((r.errors||[]).length))')
else P=0; F=1; fi
if [ "$PLAYWRIGHT_RC" != 0 ] && [ "${F:-0}" = 0 ]; then F=1; fi
note playwright "$P" "$F"

if [ ${#FAILED_SUITES[@]} -gt 0 ]; then echo "failing: ${FAILED_SUITES[*]}"; fi
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
