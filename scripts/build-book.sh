#!/usr/bin/env bash
# Rebuilds the default opening book, crates/book/data/normal.kbk, embedded in the binary.
# Node-limited searches: the same settings give the same book, byte for byte, on any number of
# threads (THREADS only changes how long it takes). Interrupted, it goes on from its state file
# (target/book/normal.kbk.state) when run again.
#
# usage: scripts/build-book.sh [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-2}
cargo build --release --quiet -p kroon
kroon="${CARGO_TARGET_DIR:-target}/release/kroon"
mkdir -p target/book
"$kroon" book build --variant normal --plies 14 --margin 10 --nodes 100000 --positions 800 \
    --threads "$threads" --out target/book/normal.kbk
cp target/book/normal.kbk crates/book/data/normal.kbk
echo "crates/book/data/normal.kbk: $(wc -c < crates/book/data/normal.kbk) bytes"
