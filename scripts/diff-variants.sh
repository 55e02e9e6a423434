#!/usr/bin/env bash
# Differential test against pydraughts in every variant it shares with Kroon (normal, frisian,
# losing, bt, russian, brazilian, english): legal-move sets on positions from random games and
# random placements, then games of each variant replayed with Kroon's Game (state left by moves, and
# the Frisian king-move limit).
# usage: scripts/diff-variants.sh [PER_VARIANT [SEED [VARIANTS]]]   (default 5000 per variant:
#        2500 from games, 2500 placed; about 15 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import draughts' 2>/dev/null || python3 -m pip install --quiet pydraughts==0.6.7
cargo build --release --quiet
n=${1:-5000}
seed=${2:-2026}
variants=${3:-normal,frisian,losing,bt,russian,brazilian,english}
python3 tests/interop/variants_vs_pydraughts.py target/release/kroon --variants "$variants" \
  --games $((n / 2)) --placements $((n - n / 2)) --seed "$seed"
KROON_VARIANT_HISTORIES=$((n / 20)) KROON_VARIANT_SEED="$seed" KROON_VARIANT_GAMES=10 KROON_VARIANT_PLACEMENTS=10 \
  cargo test --release --quiet -p kroon --test end_to_end -- interop_variants_pydraughts::
