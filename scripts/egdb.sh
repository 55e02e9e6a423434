#!/usr/bin/env bash
# Builds the endgame tables up to PIECES pieces (default 5) in DIR (default: the settings' or the
# user's data directory), resuming where an earlier run stopped, then lists what was built and
# the time and peak memory the build took. Each slice's counts of wins, draws and losses and its
# longest distance to conversion are printed as it is written (4K-1K: 10,573,242 wins, 20,558
# draws). MEMORY bounds the build (`8G`; default three quarters of the machine's): pairs that do
# not fit are built in parts.
#
# usage: scripts/egdb.sh [PIECES] [DIR] [THREADS] [MEMORY]
set -euo pipefail
cd "$(dirname "$0")/.."
pieces=${1:-5}
cargo build --release --quiet
kroon=${CARGO_TARGET_DIR:-target}/release/kroon
args=(egdb build --pieces "$pieces")
[[ -n ${2:-} ]] && args+=(--dir "$2")
[[ -n ${3:-} ]] && args+=(--threads "$3")
[[ -n ${4:-} ]] && args+=(--memory "$4")
if command -v /usr/bin/time >/dev/null; then
    /usr/bin/time -f "wall %e s, CPU %U s, peak memory %M KiB" "$kroon" "${args[@]}"
else
    time "$kroon" "${args[@]}"
fi
info=(egdb info)
[[ -n ${2:-} ]] && info+=(--dir "$2")
"$kroon" "${info[@]}" | tail -n 3
