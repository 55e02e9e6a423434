#!/usr/bin/env bash
# The search's functional signature: the node count of `kroon bench` (fixed positions, one
# thread, a fresh table), which any change to the search, the evaluation or move ordering moves.
# scripts/bench-signature holds the committed value; this checks a binary against it.
#
# usage: scripts/bench-signature.sh KROON            check (exit 1 on a difference or instability)
#        scripts/bench-signature.sh KROON --update   write the binary's count to the file; commit
#                                                    it with the change that moved it, and say so
set -euo pipefail
cd "$(dirname "$0")/.."
kroon=$1
file=scripts/bench-signature
a=$("$kroon" bench | awk '/^nodes/{print $2}')
b=$("$kroon" bench | awk '/^nodes/{print $2}')
if [ -z "$a" ] || [ "$a" != "$b" ]; then
    echo "bench signature unstable: '$a' then '$b'"
    exit 1
fi
if [ "${2:-}" = "--update" ]; then
    echo "$a" >"$file"
    echo "bench signature $a written to $file"
    exit 0
fi
want=$(cat "$file")
if [ "$a" != "$want" ]; then
    echo "bench signature $a, but $file says $want: a change moved the search."
    echo "If it was meant to: scripts/bench-signature.sh $kroon --update, and commit the file."
    exit 1
fi
echo "bench signature $a (as $file)"
