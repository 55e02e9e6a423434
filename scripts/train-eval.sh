#!/usr/bin/env bash
# Rebuilds the learned evaluation's weights from nothing, the way the embedded ones were made:
# generation 0 is played by the hand evaluation, weights 1 are trained on it, generation 1 is
# played by weights 1, weights 2 are trained on generations 0 and 1, and so on. Every step is
# deterministic for its seed (self-play per game, training per thread count). Self-play resumes: a
# finished games file is kept, an interrupted one is completed; each training runs again (minutes).
#
# usage: scripts/train-eval.sh [-d DIR] [-g GAMES] [-N NODES] [-G GENERATIONS] [-j THREADS]
#                              [-v VARIANT] [-r RANDOM_PLIES] [-- TRAIN_ARGS...]
#   -d  working folder (default target/train)     -g  games per generation (default 60000)
#   -N  nodes per move (default 3000)              -G  generations (default 2)
#   -j  threads (default: all cores)               -v  variant (default normal)
#   -r  random plies after each opening (default 4; 8 on 8x8, where starts repeat more)
#   anything after -- goes to every `kroon train`
# The last weights are DIR/wG.kew; to ship them: cp DIR/wG.kew crates/search/weights/VARIANT.kew
# On the 2-core machine one generation of 60000 games takes about 80 minutes, a training 2.
source "$(dirname "$0")/lib.sh"
dir=target/train
games=60000
nodes=3000
generations=2
threads=$(nproc)
variant=normal
random=4
while getopts "d:g:N:G:j:v:r:h" opt; do
    case $opt in
        d) dir=$OPTARG ;;
        g) games=$OPTARG ;;
        N) nodes=$OPTARG ;;
        G) generations=$OPTARG ;;
        j) threads=$OPTARG ;;
        v) variant=$OPTARG ;;
        r) random=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[[ ${1:-} == -- ]] && shift
cargo build --release --quiet -p kroon
kroon=target/release/kroon
mkdir -p "$dir"
data=()
for ((gen = 0; gen < generations; gen++)); do
    if ((gen == 0)); then
        player=(--eval hand)
    else
        player=(--eval learned --weights "$dir/w$gen.kew")
    fi
    games_file=$dir/g$gen.bin
    echo "== generation $gen: $games games at $nodes nodes a move (${player[*]})"
    time "$kroon" selfplay --variant "$variant" --out "$games_file" --games "$games" \
        --nodes "$nodes" --threads "$threads" --seed $((1000 * (gen + 1))) \
        --random-plies "$random" "${player[@]}"
    data+=("$games_file")
    weights=$dir/w$((gen + 1)).kew
    echo "== weights $((gen + 1)) from ${data[*]}"
    time "$kroon" train --data "${data[@]}" --out "$weights" --threads "$threads" \
        --epochs 14 --lr 2 --l2 1e-3 "$@"
done
echo "weights: $dir/w$generations.kew"
