#!/usr/bin/env bash
# The Chinese checkers solitaire: all ten pieces across in the fewest moves (27 is the optimum).
# Runs `kroon chinese solve` and the ignored test that checks the 27 and the replay.
set -euo pipefail
cd "$(dirname "$0")/.."
kroon="${CARGO_TARGET_DIR:-target}/release/kroon"
[ -x "$kroon" ] || cargo build --release -p kroon
time "$kroon" chinese solve "$@"
cargo test --release -p kroon-chinese-checkers --test integration -- solve:: --ignored
