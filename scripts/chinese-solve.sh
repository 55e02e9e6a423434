#!/usr/bin/env bash
# The Chinese checkers solitaire: all ten pieces across in the fewest moves (27 is the optimum).
# Runs `kroon chinese solve` and the ignored test that checks the 27 and the replay.
#
# With --prove (and its options: --method, --max-nodes, --memory, --threads, --from-moves, --to-moves,
# --perimeter, --perimeter-memory), the proof search runs under nice and /usr/bin/time, which adds
# its CPU time and peak memory to the proof's own lines, e.g.
#   scripts/chinese-solve.sh --prove --max-nodes 100000000
#   scripts/chinese-solve.sh --prove --from-moves 25 --to-moves 25 --memory 20000
set -euo pipefail
cd "$(dirname "$0")/.."
kroon="${CARGO_TARGET_DIR:-target}/release/kroon"
[ -x "$kroon" ] || cargo build --release -p kroon
if [[ " $* " == *" --prove "* ]] && [ -x /usr/bin/time ]; then
    nice -n 19 /usr/bin/time -f "cpu seconds %U user %S system, peak memory %M KB" \
        "$kroon" chinese solve "$@"
else
    time "$kroon" chinese solve "$@"
fi
cargo test --release -p kroon-chinese-checkers --test integration -- solve:: --ignored
