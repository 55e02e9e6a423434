#!/usr/bin/env bash
# Strength of the learned evaluation against the hand-set one, or of one set of weights against
# another: the same binary plays both sides (`kroon hub` with option.eval=learned against
# option.eval=hand, or against other weights) under `kroon match`, from the embedded balanced
# openings, each played with both colours. Elo is from the learned side.
#
# usage: scripts/eval-match.sh [-n GAMES] [-t SECONDS_PER_MOVE] [-c CONCURRENCY] [-w WEIGHTS]
#                              [-r REFERENCE] [-o PDN] [-- MATCH_ARGS...]
#   -n  games (default 400)   -t  seconds per move (default 0.1)   -c  games at once (default 2)
#   -w  a weights file for the learned side (default: the embedded weights)
#   -r  the other side: hand (default), embedded (the embedded weights) or a weights file
#   anything after -- goes to `kroon match`, e.g. -- --sprt "elo0=0 elo1=150", or -- --nodes N
#   for a node-limited match
# Environment: KROON (default: target/release/kroon, built if missing).
source "$(dirname "$0")/lib.sh"
games=400
movetime=0.1
concurrency=2
weights=
reference=hand
pdn=target/eval-match.pdn
while getopts "n:t:c:w:r:o:h" opt; do
    case $opt in
        w) weights=$(realpath "$OPTARG") ;;
        r) reference=$OPTARG ;;
        *) match_option "$opt" "${OPTARG:-}" || usage ;;
    esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
kroon=$(kroon_binary)
mkdir -p target "$(dirname "$pdn")"
conf_dir=$(mktemp -d)
trap 'rm -rf "$conf_dir"' EXIT
# `kroon hub` with the learned evaluation and weights file $2 (none: the embedded weights), as
# the command line of `kroon match --engine`, into the array named $1.
hub_with_weights() {
    local -n cmd=$1
    cmd=("$kroon" hub)
    if [[ -n $2 ]]; then
        printf '[eval]\nfile = "%s"\n' "$(realpath "$2")" > "$conf_dir/$1.toml"
        cmd=("$kroon" --config "$conf_dir/$1.toml" hub)
    fi
}
hub_with_weights learned "$weights"
case $reference in
    hand) other=(name=hand cmd="$kroon hub" option.eval=hand) ;;
    embedded) other=(name=embedded cmd="$kroon hub" option.eval=learned) ;;
    *)
        hub_with_weights ref "$reference"
        other=(name=reference cmd="${ref[*]}" option.eval=learned)
        ;;
esac
: > "$pdn"
match_limit "$@"
"$kroon" match \
    --engine name=learned cmd="${learned[*]}" option.eval=learned option.threads=1 option.hash=64 \
    --engine "${other[@]}" option.threads=1 option.hash=64 \
    --games "$games" "${limit[@]}" --concurrency "$concurrency" \
    --adjudicate-score 3 --adjudicate-draw 0.1 \
    --pdn "$pdn" --results-json "${pdn%.pdn}.json" "$@"
