#!/usr/bin/env bash
# The strength ladder of lidraughts' AI levels as Kroon serves them over Hub (docs/hub.md,
# "Strength handicaps"): each level against the next, both colours of each opening, one thread.
# Each level is one engine spec whose own `level` line (handicap, nodes or depth, move time)
# follows the match's; the match's generous move time only guards against a hang.
# usage: scripts/handicap-ladder.sh [GAMES_PER_PAIR] [FIRST_LEVEL] [LAST_LEVEL]   (default 100 1 8)
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100}
first=${2:-1}
last=${3:-8}
kroon=${KROON:-target/release/kroon}
[ -x "$kroon" ] || cargo build --release
out=${OUT:-/tmp/kroon-ladder}
mkdir -p "$out"

# level -> the engine's spec words after name= and cmd= (as lidraughts sends them: handicap,
# nodes or depth, evaluation, move time)
levels=(
    ""
    "option.eval=pst level.handicap=3 level.nodes=50 level.move-time=0.05"
    "option.eval=pst level.handicap=2 level.nodes=120 level.move-time=0.1"
    "option.eval=pst level.nodes=400 level.move-time=0.15"
    "option.eval=pst level.nodes=1200 level.move-time=0.2"
    "option.eval=pst level.depth=6 level.move-time=0.3"
    "option.eval=pattern level.depth=5 level.move-time=0.4"
    "option.eval=pattern level.depth=11 level.move-time=0.5"
    "option.eval=pattern level.depth=21 level.move-time=1"
)

for ((l = first; l < last; l++)); do
    up=$((l + 1))
    # shellcheck disable=SC2086
    "$kroon" match \
        --engine name=L$up "cmd=$kroon hub" option.threads=1 option.hash=16 ${levels[$up]} \
        --engine name=L$l "cmd=$kroon hub" option.threads=1 option.hash=16 ${levels[$l]} \
        --games "$games" --movetime 3 --margin-ms 1000 --max-plies 300 \
        --pdn "$out/L$up-L$l.pdn" --results-json "$out/L$up-L$l.json" \
        2>&1 | tee "$out/L$up-L$l.txt" | tail -8
done
