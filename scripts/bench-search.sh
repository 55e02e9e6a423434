#!/usr/bin/env bash
# Search speed against dame-rs (pip install dame-rs), side by side in one run: time to reach a fixed
# depth from the same positions, single thread, Kroon's own 2-thread time to depth, and Kroon with
# the hand evaluation (--eval hand) beside its default learned one.
# usage: scripts/bench-search.sh [DEPTH] [RUNS]
source "$(dirname "$0")/lib.sh"
depth=${1:-14}; runs=${2:-3}
need_dame
k=$(kroon_binary)
positions=(
  "W:W31-50:B1-20"
  "W:W27,28,29,31,32,33,34,35,36,38,39,40,42,43,45:B3,6,7,8,9,11,12,13,14,16,17,18,19,22,24"
  "B:W22,26,27,28,32,33,34,36,37,38,39,41,43,44,48:B2,6,7,8,9,11,12,13,15,16,17,19,20,23,24"
  "W:W24,27,30,32,33,35,38,39,40,42,44,47:B4,8,9,10,12,13,14,16,17,19,21,26"
  "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"
)
kroon_time() { # fen threads [eval] -> seconds, nodes
  $k analyse --fen "$1" --depth "$depth" --threads "$2" --hash 64 --eval "${3:-learned}" | awk '/^depth/{t=$8; n=$6} END{print t, n}'
}
dame_time() {
  dame search --fen "$1" --depth "$depth" --time 100000 --hash 64 | awk '/^depth/{t=$10; n=$8} END{sub("s","",t); print t, n}'
}
k1=(); k2=(); kh=(); d1=(); r1=(); rh=()
for r in $(seq "$runs"); do
  sk=0; sk2=0; skh=0; sd=0; nk=0; nkh=0; nd=0
  for fen in "${positions[@]}"; do
    read -r t n < <(kroon_time "$fen" 1); sk=$(awk -v a="$sk" -v b="$t" 'BEGIN{print a+b}'); nk=$((nk + n))
    read -r t n < <(kroon_time "$fen" 2); sk2=$(awk -v a="$sk2" -v b="$t" 'BEGIN{print a+b}')
    read -r t n < <(kroon_time "$fen" 1 hand); skh=$(awk -v a="$skh" -v b="$t" 'BEGIN{print a+b}'); nkh=$((nkh + n))
    read -r t n < <(dame_time "$fen"); sd=$(awk -v a="$sd" -v b="$t" 'BEGIN{print a+b}'); nd=$((nd + n))
  done
  echo "run $r: depth $depth over ${#positions[@]} positions: kroon ${sk}s (${nk} nodes), kroon 2 threads ${sk2}s, kroon hand ${skh}s (${nkh} nodes), dame ${sd}s (${nd} nodes)"
  k1+=("$sk"); k2+=("$sk2"); kh+=("$skh"); d1+=("$sd")
  r1+=("$(awk -v n="$nk" -v t="$sk" 'BEGIN{print n/t}')"); rh+=("$(awk -v n="$nkh" -v t="$skh" 'BEGIN{print n/t}')")
done
km=$(printf '%s\n' "${k1[@]}" | median); k2m=$(printf '%s\n' "${k2[@]}" | median); khm=$(printf '%s\n' "${kh[@]}" | median); dm=$(printf '%s\n' "${d1[@]}" | median)
npsm=$(printf '%s\n' "${r1[@]}" | median); npshm=$(printf '%s\n' "${rh[@]}" | median)
echo "medians: kroon ${km}s, kroon 2 threads ${k2m}s, kroon hand ${khm}s, dame ${dm}s"
awk -v k="$km" -v k2="$k2m" -v kh="$khm" -v d="$dm" -v n="$npsm" -v nh="$npshm" 'BEGIN{printf "time to depth: kroon/dame %.2f (target < 0.5); 2 threads speed-up %.2fx (target >= 1.5); learned/hand time %.2f, nodes/s %.2f M against %.2f M (%.0f%%)\n", k/d, k/k2, k/kh, n/1e6, nh/1e6, 100*n/nh}'
