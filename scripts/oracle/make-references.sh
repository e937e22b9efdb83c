#!/usr/bin/env bash
# Regenerates the committed MuJoCo 3.15.0 reference traces listed in references.txt, using the
# shared oracle script (never edit the JSON by hand). Needs PyPI access once for the venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
ORACLE="${ORACLE:-../shared/oracle}"
VENV=.venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import mujoco; assert mujoco.__version__ == "3.15.0"' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q mujoco==3.15.0 numpy
fi
mkdir -p crate/tests/reference
only="${1:-}"
grep -v '^#' scripts/oracle/references.txt | while IFS='|' read -r name model steps every _p _v _f extra _check; do
  name=$(echo "$name" | xargs); model=$(echo "$model" | xargs)
  [ -z "$name" ] && continue
  if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
  model=${model//\$ORACLE/$ORACLE}
  echo "reference: $name"
  # shellcheck disable=SC2086
  "$VENV/bin/python" "$ORACLE/trace.py" "$model" --steps $(echo $steps) --every $(echo $every) $extra \
    > "crate/tests/reference/$name.json"
done
