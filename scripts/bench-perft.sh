#!/usr/bin/env bash
# Perft speed of Kroon against dame-rs (pip install dame-rs), side by side in one run.
# Prints each run's seconds, the medians and the ratio. usage: scripts/bench-perft.sh [DEPTH] [RUNS]
source "$(dirname "$0")/lib.sh"
depth=${1:-10}; runs=${2:-3}
need_dame
k=$(kroon_binary)
kt=(); k2=(); dt=()
for i in $(seq "$runs"); do
  kt+=("$($k perft --depth "$depth" | awk '/^seconds/{print $2}')")
  k2+=("$($k perft --depth "$depth" --threads 2 | awk '/^seconds/{print $2}')")
  dt+=("$(dame perft "$depth" | sed -E 's/.* in ([0-9.]+)s.*/\1/')")
  echo "run $i: kroon ${kt[-1]}s  kroon(2 threads) ${k2[-1]}s  dame ${dt[-1]}s"
done
km=$(printf '%s\n' "${kt[@]}" | median); k2m=$(printf '%s\n' "${k2[@]}" | median); dm=$(printf '%s\n' "${dt[@]}" | median)
echo "perft($depth) medians: kroon ${km}s, kroon 2 threads ${k2m}s, dame ${dm}s"
awk -v k="$km" -v k2="$k2m" -v d="$dm" 'BEGIN{printf "kroon/dame speed ratio %.2fx; 2 threads/1 thread %.2fx\n", d/k, k/k2}'
