#!/usr/bin/env bash
# Regenerates the committed MuJoCo 3.15.0 contact lists of contact-references.txt with
# scripts/oracle/contacts.py (never edit the outputs by hand). Needs the venv of
# make-references.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p crate/tests/contacts
only="${1:-}"
grep -v '^#' scripts/oracle/contact-references.txt | while IFS='|' read -r name model steps; do
  name=$(echo "$name" | xargs); model=$(echo "$model" | xargs); steps=$(echo "$steps" | xargs)
  [ -z "$name" ] && continue
  if [ -n "$only" ] && [ "$only" != "$name" ]; then continue; fi
  echo "contacts: $name"
  DIGITS=16 .venv/bin/python scripts/oracle/contacts.py "$model" "$steps" "crate/tests/contacts/$name.state" \
    > "crate/tests/contacts/$name.txt"
done
