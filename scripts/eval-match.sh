#!/usr/bin/env bash
# Strength of the learned evaluation against the hand-set one: the same binary plays both sides
# (`kroon hub` with option.eval=learned against option.eval=hand) under `kroon match`, from the
# embedded balanced openings, each played with both colours. Elo is from the learned side.
#
# usage: scripts/eval-match.sh [-n GAMES] [-t SECONDS_PER_MOVE] [-c CONCURRENCY] [-w WEIGHTS]
#                              [-o PDN] [-- MATCH_ARGS...]
#   -n  games (default 400)   -t  seconds per move (default 0.1)   -c  games at once (default 2)
#   -w  a weights file for the learned side (default: the embedded weights)
#   anything after -- goes to `kroon match`, e.g. -- --sprt "elo0=0 elo1=150", or -- --nodes N
#   for a node-limited match
# Environment: KROON (default: target/release/kroon, built if missing).
source "$(dirname "$0")/lib.sh"
games=400
movetime=0.1
concurrency=2
weights=
pdn=target/eval-match.pdn
while getopts "n:t:c:w:o:h" opt; do
    case $opt in
        w) weights=$(realpath "$OPTARG") ;;
        *) match_option "$opt" "${OPTARG:-}" || usage ;;
    esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
kroon=$(kroon_binary)
mkdir -p target "$(dirname "$pdn")"
learned=("$kroon" hub)
if [[ -n $weights ]]; then
    conf=$(mktemp --suffix=.toml)
    trap 'rm -f "$conf"' EXIT
    printf '[eval]\nfile = "%s"\n' "$weights" > "$conf"
    learned=("$kroon" --config "$conf" hub)
fi
: > "$pdn"
match_limit "$@"
"$kroon" match \
    --engine name=learned cmd="${learned[*]}" option.eval=learned option.threads=1 option.hash=64 \
    --engine name=hand cmd="$kroon hub" option.eval=hand option.threads=1 option.hash=64 \
    --games "$games" "${limit[@]}" --concurrency "$concurrency" \
    --adjudicate-score 3 --adjudicate-draw 0.1 \
    --pdn "$pdn" --results-json "${pdn%.pdn}.json" "$@"
