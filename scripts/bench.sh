#!/usr/bin/env bash
# npm run bench: the benchmark suite of issue 8, written to BENCHMARKS.md (raw numbers in
# bench-results/). Not part of npm test; nothing here asserts a timing.
#
#   bash scripts/bench.sh [--rounds N] [--only NAME[,NAME…]] [--no-native] [--no-browser] [--no-profile]
#
# 1. set-up (scripts/setup.sh --browser; a venv with MuJoCo 3.15.0 from PyPI in .venv, as
#    scripts/oracle/make-references.sh makes it; perf from Debian for the profile);
# 2. builds: the native CLI (release), the wasm engine (scripts/build-wasm.sh, as the lab ships
#    it) and the web app with its bench page into bench-results/dist;
# 3. native: for every scene of scripts/bench/scenes.txt, `flexlab bench` beside MuJoCo 3.15.0
#    (scripts/bench/mujoco_native.py), alternating, N rounds, fastest round kept;
# 4. browser: scripts/bench/browser.mjs — flexlab wasm beside @mujoco/mujoco in headless
#    Chromium, and the lab's time from page load to its first simulated frame;
# 5. profile: perf record of the native 30×30 cloth;
# 6. scripts/bench/report.mjs writes BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

ORIG="$*"
ROUNDS=3
ONLY=""
NATIVE=1
BROWSER=1
PROFILE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --no-native) NATIVE=0 ;;
    --no-browser) BROWSER=0 ;;
    --no-profile) PROFILE=0 ;;
    *) echo "usage: bash scripts/bench.sh [--rounds N] [--only NAME,…] [--no-native] [--no-browser] [--no-profile]" >&2; exit 2 ;;
  esac
  shift
done
OUT=bench-results
mkdir -p "$OUT"
# results of one run only: nothing left from an earlier one
rm -f "$OUT/native.jsonl" "$OUT/browser.json" "$OUT/profile.txt" "$OUT/perf.data"
COMMAND="npm run bench${ORIG:+ -- $ORIG}"

# ---- 1. set-up
bash scripts/setup.sh --browser
VENV=.venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import mujoco; assert mujoco.__version__ == "3.15.0"' 2>/dev/null; then
  echo "bench: installing mujoco==3.15.0 into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q mujoco==3.15.0 numpy
fi
if [ "$PROFILE" = 1 ] && ! command -v perf >/dev/null; then
  echo "bench: installing perf (Debian linux-perf) for the profile"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq linux-perf >/dev/null; } ||
    echo "bench: perf could not be installed; no profile"
fi

# ---- 2. builds
echo "bench: building the native CLI, the wasm engine and the bench page"
cargo build --release -p flexlab --bin flexlab
bash scripts/build-wasm.sh
node_modules/.bin/vite build --config web/vite.config.ts --outDir "$PWD/$OUT/dist" --emptyOutDir --logLevel warn
FLEXLAB=target/release/flexlab

# ---- machine and versions (the report prints them)
{
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | xargs)"
  echo "mem=$(free -h | awk '/^Mem:/ {print $2}')"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crate web Cargo.toml Cargo.lock || echo '+uncommitted')"
  echo "rustc=$(rustc --version)"
  echo "node=$(node --version)"
  echo "python=$("$VENV/bin/python" -c 'import mujoco, sys; print(sys.version.split()[0], "mujoco", mujoco.__version__)')"
  echo "command=$COMMAND"
} > "$OUT/machine.txt"

scenes() { # name|model|warmup|steps, with $SHARED resolved
  local shared=${SHARED:-../shared}
  grep -v '^#' scripts/bench/scenes.txt | while IFS='|' read -r name model warmup steps; do
    name=$(echo "$name" | xargs); model=$(echo "$model" | xargs)
    [ -z "$name" ] && continue
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
    echo "$name|${model//\$SHARED/$shared}|$(echo "$warmup" | xargs)|$(echo "$steps" | xargs)"
  done
}

# one JSON line per run; a model an engine rejects gets {"model":…,"error":…}
measure() { # engine name model warmup steps
  local engine=$1 name=$2 model=$3 warmup=$4 steps=$5 line err
  err=$(mktemp)
  if [ "$engine" = flexlab ]; then
    line=$("$FLEXLAB" bench "$model" --steps "$steps" --warmup "$warmup" --repeat 1 2>"$err" </dev/null) || line=""
  else
    line=$("$VENV/bin/python" scripts/bench/mujoco_native.py "$model" --steps "$steps" --warmup "$warmup" --repeat 1 2>"$err" </dev/null) || line=""
  fi
  # the scene's name as the model; anything but a result line becomes {"model","error"}
  node -e '
    const [name, line, err] = process.argv.slice(1);
    let r;
    try { r = JSON.parse(line); } catch { r = { error: (err || line || "no output").trim() }; }
    r.model = name;
    console.log(JSON.stringify(r));' "$name" "$line" "$(head -c 600 "$err")"
  rm -f "$err"
}

# ---- 3. native
if [ "$NATIVE" = 1 ]; then
  for round in $(seq 1 "$ROUNDS"); do
    while IFS='|' read -r name model warmup steps; do
      for engine in flexlab mujoco; do
        r=$(measure "$engine" "$name" "$model" "$warmup" "$steps")
        echo "{\"engine\":\"$engine\",\"round\":$round,\"result\":$r}" >> "$OUT/native.jsonl"
        echo "native round $round $engine: $r" | cut -c1-160
      done
    done < <(scenes)
  done
fi

# ---- 4. browser
if [ "$BROWSER" = 1 ]; then
  node scripts/bench/browser.mjs --dist "$OUT/dist" --out "$OUT/browser.json" --rounds "$ROUNDS" ${ONLY:+--only "$ONLY,first-frame"} ||
    echo "bench: the browser part failed; BENCHMARKS.md will have no browser numbers"
fi

# ---- 5. profile of the native 30×30 cloth (timed part dominates: 100 warm-up, 250 timed steps)
if [ "$PROFILE" = 1 ] && command -v perf >/dev/null; then
  cloth=$(grep '^cloth30_sphere' scripts/bench/scenes.txt | cut -d'|' -f2 | xargs)
  if perf record -q -F 999 -o "$OUT/perf.data" "$FLEXLAB" bench "$cloth" --steps 250 --warmup 100 > /dev/null 2>"$OUT/perf.log"; then
    perf report -i "$OUT/perf.data" --stdio --no-children --sort symbol 2>/dev/null |
      grep -E '^ +[0-9.]+%' | head -n 20 > "$OUT/profile.txt" || true
  else
    echo "bench: perf record failed (see $OUT/perf.log)"; : > "$OUT/profile.txt"
  fi
fi

echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
node scripts/bench/report.mjs --results "$OUT" --out BENCHMARKS.md
echo "bench: wrote BENCHMARKS.md (raw numbers in $OUT/)"
