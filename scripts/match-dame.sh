#!/usr/bin/env bash
# Strength check: Kroon (`kroon hub`) against dame-rs (`dame hub`), run by `kroon match`, which keeps
# the board and the clocks, checks every move, and prints a line per game and the final table
# (W/D/L from Kroon's side, score, Elo with its 95% margin, pentanomial pair counts).
#
# usage: scripts/match-dame.sh [-n GAMES] [-t SECONDS_PER_MOVE] [-c CONCURRENCY] [-o PDN] [-- MATCH_ARGS...]
#   -n  games (default 20; each opening of the embedded set is played twice, colours reversed)
#   -t  seconds per move (default 0.1)
#   -c  games at once (default 1; each game uses one core per engine while it is to move)
#   -o  PDN file the games are appended to (default: target/match-dame.pdn, emptied first)
#   anything after -- goes to `kroon match` as is, e.g. -- --tc 10+0.1 --sprt "elo0=0 elo1=10"
# Environment: KROON (default: target/release/kroon, built if missing), DAME (default: `dame` on PATH).
# Exits with kroon match's status: 0 when the match ran, whatever the score.
source "$(dirname "$0")/lib.sh"
games=20
movetime=0.1
concurrency=1
pdn=target/match-dame.pdn
while getopts "n:t:c:o:h" opt; do
    match_option "$opt" "${OPTARG:-}" || usage
done
shift $((OPTIND - 1))

kroon=$(kroon_binary)
dame=${DAME:-$(command -v dame || true)}
[[ -x $kroon ]] || { echo "no kroon binary at $kroon" >&2; exit 2; }
[[ -n $dame ]] || { echo "dame not found: pip install dame-rs, or set DAME" >&2; exit 2; }

mkdir -p "$(dirname "$pdn")"
: > "$pdn"
json=${pdn%.pdn}.json

match_limit "$@"

"$kroon" match \
    --engine name=Kroon cmd="$kroon hub" option.threads=1 option.hash=64 \
    --engine name=dame cmd="$(realpath "$dame") hub" option.hash=64 \
    --games "$games" "${limit[@]}" --concurrency "$concurrency" \
    --pdn "$pdn" --results-json "$json" "$@"
echo "games: $pdn   results: $json"
