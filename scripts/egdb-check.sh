#!/usr/bin/env bash
# Builds slices of six pieces (and what they need) in DIR, then checks every slice of six or more
# pieces there against the search alone: 400 positions of each, searched to depth 9 without
# tables; wherever the search proves a win or a loss, the tables must say the same. Then 20 won
# positions of each are played out by the engine with the tables on both sides: the winner keeps
# the win, converts within the tables' distance where they keep one, and wins. The default
# slices, 4K1M-1K and 5K-1K with their mirrors, take about 15 CPU-minutes and 10 GB (give MEMORY,
# e.g. 3G, to build them in parts within less).
#
# usage: scripts/egdb-check.sh DIR [SLICES] [MEMORY]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/egdb-check.sh DIR [SLICES] [MEMORY]}
slices=${2:-4K1M-1K,5K-1K}
cargo build --release --quiet
kroon=${CARGO_TARGET_DIR:-target}/release/kroon
args=(egdb build --slices "$slices" --dir "$dir")
[[ -n ${3:-} ]] && args+=(--memory "$3")
"$kroon" "${args[@]}"
KROON_EGDB_CHECK_DIR=$(realpath "$dir") cargo test --profile ci -p kroon-egdb --test known \
    large_ -- --ignored --nocapture --test-threads 1
