#!/usr/bin/env bash
# The full differential test against pydraughts: legal-move sets on 20,000 positions.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import draughts' 2>/dev/null || python3 -m pip install --quiet pydraughts==0.6.7
cargo build --release --quiet
python3 tests/interop/moves_vs_pydraughts.py target/release/kroon --positions "${1:-20000}" --seed "${2:-2026}"
