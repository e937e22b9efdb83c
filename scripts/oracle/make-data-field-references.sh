#!/usr/bin/env bash
# Regenerates the committed MuJoCo 3.15.0 data arrays of data-field-references.txt with
# scripts/oracle/data-fields.py (never edit the outputs by hand). Needs the venv of
# make-references.sh. `make-data-field-references.sh NAME` regenerates one case.
set -euo pipefail
cd "$(dirname "$0")/../.."
ORACLE="${ORACLE:-../shared/oracle}"
mkdir -p crate/tests/data_fields
only="${1:-}"
grep -v '^#' scripts/oracle/data-field-references.txt | while IFS='|' read -r name model steps stale; do
  name=$(echo "$name" | xargs); model=$(echo "$model" | xargs); steps=$(echo "$steps" | xargs)
  [ -z "$name" ] && continue
  if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
  model=${model//\$ORACLE/$ORACLE}
  echo "data fields: $name"
  .venv/bin/python scripts/oracle/data-fields.py "$model" "$steps" crate/core/src \
    > "crate/tests/data_fields/$name.json"
done
