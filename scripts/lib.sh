# What the scripts share. Each starts with
#   source "$(dirname "$0")/lib.sh"
# which sets bash's strict mode and moves to the repository root.
# shellcheck shell=bash
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."

# Prints the calling script's header comment (from line 2 to the first line that is not a
# comment: its usage) and exits with status 2.
usage() {
    sed -n '2,/^[^#]/{/^#/p}' "$self"
    exit 2
}

# The kroon binary to run, as an absolute path: $KROON when set, else the release build, built
# first (cargo's output goes to standard error).
kroon_binary() {
    [[ -n ${KROON:-} ]] || cargo build --release --quiet -p kroon >&2
    realpath "${KROON:-target/release/kroon}"
}

# The median of the numbers on standard input, one a line.
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# dame-rs's `dame` on PATH, installed with pip when it is missing.
need_dame() { command -v dame >/dev/null || python3 -m pip install --quiet dame-rs; }

# The options of the scripts that run `kroon match`, for their getopts loop:
#   *) match_option "$opt" "${OPTARG:-}" || usage ;;
# -n games, -t seconds per move, -c games at once, -o PDN file; status 1 for any other option.
match_option() {
    case $1 in
        n) games=$2 ;;
        t) movetime=$2 ;;
        c) concurrency=$2 ;;
        o) pdn=$2 ;;
        *) return 1 ;;
    esac
}

# Sets `limit` to `kroon match`'s --movetime $movetime, or to nothing when the arguments (those
# passed on to `kroon match`) set a limit of their own.
match_limit() {
    limit=(--movetime "$movetime")
    for arg in "$@"; do
        case $arg in --tc|--depth|--nodes|--movetime) limit=() ;; esac
    done
}
