#!/usr/bin/env bash
# What the work queue costs: self-play and a match, each run locally (one thread) and then on the
# queue with one worker (one thread), in turn, ROUNDS times; then once with two workers. Redis runs
# on loopback, started here (Debian's redis-server). Prints each run's seconds, the medians and the
# queued runs' overhead against the local ones, and checks that every queued output is the local
# one. usage: scripts/queue-bench.sh [ROUNDS] [BATCH]   (default 3 rounds, 16 games a self-play job)
#        KROON=BIN scripts/queue-bench.sh ...   use BIN instead of building the release binary
source "$(dirname "$0")/lib.sh"
rounds=${1:-3}
batch=${2:-16}
command -v redis-server >/dev/null || { echo "needs redis-server (apt-get install redis-server)" >&2; exit 2; }
k=$(kroon_binary)
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$tmp" >"$tmp/redis.log" 2>&1 &
redis=$!
url=redis://127.0.0.1:$port/0
# Workers of a run cut short go with the server.
trap 'pkill -f "worker --queue $url" || true; kill $redis 2>/dev/null || true; wait $redis 2>/dev/null || true; rm -rf "$tmp"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done

selfplay=(--games 64 --nodes 3000 --hash 16 --max-plies 150 --threads 1)
engine() { echo "name=$1 cmd=\"$k hub\" option.threads=1 option.hash=$2"; }
printf '%s\n%s\n' "$(engine A 1)" "$(engine B 2)" >"$tmp/engines.txt"
match=(--games 40 --nodes 3000 --max-plies 100 --concurrency 1)

now() { date +%s.%N; }
# Starts N workers of one thread each; they leave once the queue has been idle for 5 s.
pids=()
workers() {
    local i
    pids=()
    for i in $(seq "$1"); do
        "$k" worker --queue "$url" --threads 1 --name "w$i" --engines "$tmp/engines.txt" \
            --idle-exit 5 >"$tmp/worker-$i.log" 2>&1 &
        pids+=($!)
    done
    # Ready (its bench signature made, its consumer group joined): a worker's start is not a job's.
    for i in $(seq "$1"); do
        until grep -q "threads, bench" "$tmp/worker-$i.log" 2>/dev/null; do sleep 0.05; done
    done
}
# Seconds of one run of "$@", with N workers started beside it (0: none, a local run). A queued
# run starts from an empty server: a producer finds the results of an earlier run of the same
# settings and would not issue its jobs again.
timed() {
    local n=$1 start end
    shift
    if (( n > 0 )); then
        redis-cli -p "$port" flushall >/dev/null
        workers "$n"
    fi
    start=$(now)
    "$@" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log" >&2; exit 1; }
    end=$(now)
    (( n > 0 )) && wait "${pids[@]}"
    awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}'
}

report() {
    local what=$1 games=$2 local_s=$3 one_s=$4
    local l q
    l=$(tr ' ' '\n' <<<"$local_s" | median)
    q=$(tr ' ' '\n' <<<"$one_s" | median)
    echo "$what: local $local_s -> median $l s; one worker $one_s -> median $q s"
    awk -v l="$l" -v q="$q" -v g="$games" \
        'BEGIN{printf "  %.2f games/s local, %.2f on one worker: %+.1f%%\n", g/l, g/q, 100*(q/l-1)}'
}

ls_=() qs_=()
for r in $(seq "$rounds"); do
    rm -f "$tmp/local.bin" "$tmp/queue.bin"
    ls_+=("$(timed 0 "$k" selfplay --out "$tmp/local.bin" --seed "$r" "${selfplay[@]}")")
    qs_+=("$(timed 1 "$k" selfplay --out "$tmp/queue.bin" --seed "$r" "${selfplay[@]}" --queue "$url" --batch "$batch")")
    cmp -s "$tmp/local.bin" "$tmp/queue.bin" || { echo "self-play round $r: the queued file differs" >&2; exit 1; }
done
report "self-play, 64 games of 3000 nodes a move, $batch games a job" 64 "${ls_[*]}" "${qs_[*]}"
rm -f "$tmp/queue.bin"
two=$(timed 2 "$k" selfplay --out "$tmp/queue.bin" --seed "$rounds" "${selfplay[@]}" --queue "$url" --batch "$batch")
cmp -s "$tmp/local.bin" "$tmp/queue.bin" || { echo "self-play on two workers: the queued file differs" >&2; exit 1; }
echo "  two workers: $two s"

lm=() qm=()
for r in $(seq "$rounds"); do
    lm+=("$(timed 0 "$k" match --engine name=A cmd="$k hub" option.threads=1 option.hash=1 \
        --engine name=B cmd="$k hub" option.threads=1 option.hash=2 "${match[@]}" \
        --results-json "$tmp/local.json")")
    qm+=("$(timed 1 "$k" match --engine name=A --engine name=B "${match[@]}" --queue "$url" \
        --results-json "$tmp/queue.json")")
    cmp -s "$tmp/local.json" "$tmp/queue.json" || { echo "match round $r: the queued results differ" >&2; exit 1; }
done
report "match, 40 games of 3000 nodes a move (20 pairs)" 40 "${lm[*]}" "${qm[*]}"
two=$(timed 2 "$k" match --engine name=A --engine name=B "${match[@]}" --queue "$url" --results-json "$tmp/queue.json")
cmp -s "$tmp/local.json" "$tmp/queue.json" || { echo "match on two workers: the queued results differ" >&2; exit 1; }
echo "  two workers: $two s"
