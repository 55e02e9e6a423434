#!/usr/bin/env bash
# A/B strength test: Kroon as it is (A) against Kroon with one change applied (B), played by
# `kroon match` from the embedded balanced openings, each played with both colours. Prints a line per
# game and the final table from A's side: a positive Elo means the change loses strength.
#
# usage: scripts/ab-match.sh [-n GAMES] [-t SECONDS_PER_MOVE | -N NODES_PER_MOVE] [-c CONCURRENCY]
#                            [-a A_OPTION]... PATCH [-- MATCH_ARGS...]
#   PATCH  a patch against HEAD (e.g. scripts/ab/no-rfp.patch); B is HEAD with it applied, built in a
#          temporary worktree. A is HEAD as well, so local edits never enter the test. `none`: B is
#          HEAD unchanged, to compare settings (e.g. -a option.threads=2 -c 1 none: lazy SMP).
#   -n  games (default 200)   -t  seconds per move (default 0.05)   -c  games at once (default 2)
#   -N  nodes per move instead of a move time: the games do not depend on the machine's load, so
#       several tests can run at once; a game repeats exactly, so the openings are the 640 of
#       scripts/openings/ab-openings.txt (1280 distinct games).
#   -a  a Hub option for A only, as `option.NAME=VALUE` (repeatable). Both play without the
#       opening book unless -a option.book=true turns it on for A.
#   -b  a search tuning value for B only, as `NAME=VALUE` (repeatable; the names are the fields of
#       crates/search/src/tuning.rs), passed through KROON_TUNE: with PATCH `none`, a tuning test
#       needs no patch, e.g. -b futility_margin=100 none.
#   anything after -- goes to `kroon match` and overrides the defaults below, e.g.
#   -- --sprt "elo0=-10 elo1=10", or -- --adjudicate-score 99 to play won endings out.
# Games are adjudicated (both engines agree on +-3 men for 6 plies, or on a draw for 20 plies after
# ply 80) so that the clock goes to the positions that decide the result.
source "$(dirname "$0")/lib.sh"
games=200
movetime=0.05
concurrency=2
nodes=
a_options=()
b_tune=()
while getopts "n:t:N:c:a:b:h" opt; do
    case $opt in
        N) nodes=$OPTARG ;;
        a) a_options+=("$OPTARG") ;;
        b) b_tune+=("$OPTARG") ;;
        *) match_option "$opt" "${OPTARG:-}" || usage ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || usage
if [[ $1 == none ]]; then
    patch=none
    name=B
else
    patch=$(realpath "$1")
    name=$(basename "$patch" .patch)
fi
shift
[[ ${1:-} == -- ]] && shift

root=$(pwd)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/a" >/dev/null 2>&1 || true;
      git -C "$root" worktree remove --force "$work/b" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
for side in a b; do
    git worktree add --detach --quiet "$work/$side" HEAD
done
[[ $patch == none ]] || git -C "$work/b" apply "$patch"
mkdir -p "$work/bin"
# Each side builds in a target directory of its own: cargo judges a build fresh from the sources
# its last build read, so B built where A was built would reuse A's binary. Each test has its own
# directories too, so tests started together never swap binaries.
for side in a b; do
    (cd "$work/$side" && CARGO_TARGET_DIR=$root/target/ab/$name-$side cargo build --release --quiet -p kroon)
    cp "$root/target/ab/$name-$side/release/kroon" "$work/bin/kroon-$side"
done
if [[ $patch != none ]] && cmp -s "$work/bin/kroon-a" "$work/bin/kroon-b"; then
    echo "ab-match: the patch does not change the binary" >&2
    exit 1
fi

b_env=
if [[ ${#b_tune[@]} -gt 0 ]]; then
    tune=$(IFS=,; echo "${b_tune[*]}")
    b_env="env KROON_TUNE=$tune "
    [[ $name == B ]] && name=$(echo "$tune" | tr '=,' '-_')
fi
if [[ -n $nodes ]]; then
    limit=(--nodes "$nodes" --openings "$root/scripts/openings/ab-openings.txt")
else
    limit=(--movetime "$movetime")
fi
mkdir -p target
"$work/bin/kroon-a" match \
    --engine name=Kroon cmd="$work/bin/kroon-a hub" option.threads=1 option.hash=64 option.book=false "${a_options[@]}" \
    --engine name="$name" cmd="$b_env$work/bin/kroon-b hub" option.threads=1 option.hash=64 option.book=false \
    --games "$games" "${limit[@]}" --concurrency "$concurrency" \
    --adjudicate-score 3 --adjudicate-draw 0.1 \
    --pdn "target/ab-$name.pdn" --results-json "target/ab-$name.json" "$@"
