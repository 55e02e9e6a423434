#!/usr/bin/env bash
# Deep perft counts that are too slow for `cargo test`: checks each against the published number.
# usage: scripts/perft-deep.sh [THREADS]     (about a minute and a half on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-$(nproc)}
cargo build --release --quiet
k=target/release/kroon
fail=0
check() { # name fen depth expected [flags...]
  local name=$1 fen=$2 depth=$3 want=$4; shift 4
  local out; out=$($k perft --fen "$fen" --depth "$depth" --threads "$threads" "$@")
  local got; got=$(awk '/^nodes/{print $2}' <<<"$out")
  local mnps; mnps=$(awk '/^mnps/{print $2}' <<<"$out")
  if [ "$got" = "$want" ]; then echo "ok   $name d$depth $got ($mnps Mnps)"; else echo "FAIL $name d$depth got $got want $want"; fail=1; fi
}
check initial   "W:W31-50:B1-20" 9 41022423
check initial   "W:W31-50:B1-20" 10 258895763
check initial   "W:W31-50:B1-20" 10 258935682 --keep-duplicates
check initial   "W:W31-50:B1-20" 11 1665861398
check Random178 "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46" 9 1216917193
check Woldouby  "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38" 15 346184885
check AllKings  "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20" 10 58381162
check AlmostPromotion "W:W6,7,8,9,10:B41,42,43,44,45" 8 138362698
check FrontRows "W:B16,17,18,19,20:W31,32,33,34,35" 12 34907891
check Killer-Random178 "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46" 9 1133545351 --variant killer
check Killer-Woldouby "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38" 15 343968214 --variant killer
check Brazilian "W:W21-32:B1-12" 11 105491257 --variant brazilian
check Brazilian "W:W21-32:B1-12" 10 21566606 --variant brazilian --keep-duplicates
check Russian "W:W21-32:B1-12" 10 22444032 --variant russian
check Russian "W:W21-32:B1-12" 10 22450628 --variant russian --keep-duplicates
check Russian "W:W21-32:B1-12" 11 110917189 --variant russian
check Russian "W:W21-32:B1-12" 12 544770444 --variant russian
check English "B:W21-32:B1-12" 12 388623673 --variant english --keep-duplicates
check English "B:W21-32:B1-12" 12 388617999 --variant english
# Frisian (dctl board_10x10.cpp, damforum t=2822); perft leaves out the king-move limit, as these do.
check Frisian "W:W31-50:B1-20" 9 15605069 --variant frisian
check Frisian "W:W31-50:B1-20" 9 16204497 --variant frisian --keep-duplicates
check Frisian "W:W31-50:B1-20" 10 85817725 --variant frisian
check Frisian "W:W31-50:B1-20" 10 90161025 --variant frisian --keep-duplicates
check Frisian "W:W31-50:B1-20" 11 491186430 --variant frisian
check Frisian "W:W31-50:B1-20" 11 521287205 --variant frisian --keep-duplicates
exit $fail
