#!/usr/bin/env bash
# What the work queue costs: self-play and a match, each run locally (one thread) and then on the
# queue with one worker (one thread), in turn, ROUNDS times; then once with two workers. Redis runs
# on loopback, started here (Debian's redis-server). Prints each run's seconds and CPU seconds
# (the command's, the workers' and their engines', the Redis server's), the medians and the queued
# runs' overhead against the local ones, and checks that every queued output is the local one.
# On a machine shared with other work the CPU seconds vary less than the wall time.
# usage: scripts/queue-bench.sh [ROUNDS] [BATCH] [GAMES]
#   (default 3 rounds, 16 games a self-play job, 64 self-play games; the match has 40 games)
#        KROON=BIN scripts/queue-bench.sh ...   use BIN instead of building the release binary
# A producer and a worker find the bench signature in the cache once this binary has computed it
# (the workers, started before the timed runs, do that at their first start).
source "$(dirname "$0")/lib.sh"
rounds=${1:-3}
batch=${2:-16}
games=${3:-64}
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

selfplay=(--games "$games" --nodes 3000 --hash 16 --max-plies 150 --threads 1)
engine() { echo "name=$1 cmd=\"$k hub\" option.threads=1 option.hash=$2"; }
printf '%s\n%s\n' "$(engine A 1)" "$(engine B 2)" >"$tmp/engines.txt"
match=(--games 40 --nodes 3000 --max-plies 100 --concurrency 1)

now() { date +%s.%N; }
# CPU seconds (user + system) of the process $1 so far, from /proc.
ticks=$(getconf CLK_TCK)
cpu_so_far() { awk -v t="$ticks" '{printf "%.2f", ($14 + $15) / t}' "/proc/$1/stat"; }
# Starts N workers of one thread each; they leave once the queue has been idle for 5 s.
pids=()
workers() {
    local i
    pids=()
    for i in $(seq "$1"); do
        /usr/bin/time -f "%U %S" -o "$tmp/cpu-worker-$i" \
            "$k" worker --queue "$url" --threads 1 --name "w$i" --engines "$tmp/engines.txt" \
            --idle-exit 5 >"$tmp/worker-$i.log" 2>&1 &
        pids+=($!)
    done
    # Ready (its bench signature made, its consumer group joined): a worker's start is not a job's.
    for i in $(seq "$1"); do
        until grep -q "threads, bench" "$tmp/worker-$i.log" 2>/dev/null; do sleep 0.05; done
    done
}
# One run of "$@", with N workers started beside it (0: none, a local run): its seconds in
# $wall, and in $cpu the CPU seconds of the command, the workers (their engines included) and
# the Redis server while it ran. A queued run starts from an empty server: a producer finds the
# results of an earlier run of the same settings and would not issue its jobs again.
wall=0 cpu=0
timed() {
    local n=$1 start end r0 r1 i
    shift
    if (( n > 0 )); then
        redis-cli -p "$port" flushall >/dev/null
        workers "$n"
    fi
    r0=$(cpu_so_far "$redis")
    start=$(now)
    /usr/bin/time -f "%U %S" -o "$tmp/cpu-run" "$@" >"$tmp/run.log" 2>&1 \
        || { cat "$tmp/run.log" >&2; exit 1; }
    end=$(now)
    if (( n > 0 )); then
        wait "${pids[@]}"
    fi
    r1=$(cpu_so_far "$redis")
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b-a}')
    cpu=$(cat "$tmp/cpu-run" $(for i in $(seq "$n"); do echo "$tmp/cpu-worker-$i"; done) \
        | awk -v r="$r1" -v q="$r0" '{c += $1 + $2} END{printf "%.2f", c + r - q}')
}

# The medians of local ($3: seconds, $4: CPU seconds) and one-worker ($5, $6) runs, and what a
# job costs over the local run.
report() {
    local what=$1 games=$2 jobs=$3
    local l q lc qc
    l=$(tr ' ' '\n' <<<"$4" | median)
    lc=$(tr ' ' '\n' <<<"$5" | median)
    q=$(tr ' ' '\n' <<<"$6" | median)
    qc=$(tr ' ' '\n' <<<"$7" | median)
    echo "$what:"
    echo "  local: $4 s -> median $l s; CPU $5 s -> median $lc s"
    echo "  one worker: $6 s -> median $q s; CPU $7 s -> median $qc s"
    awk -v l="$l" -v q="$q" -v lc="$lc" -v qc="$qc" -v g="$games" -v j="$jobs" \
        'BEGIN{printf "  %.2f games/s local, %.2f on one worker: %+.1f%%, %+.0f ms a job (%d jobs); CPU %+.1f%%, %+.0f ms a job\n",
            g/l, g/q, 100*(q/l-1), 1000*(q-l)/j, j, 100*(qc/lc-1), 1000*(qc-lc)/j}'
}

ls_=() lsc=() qs_=() qsc=()
for r in $(seq "$rounds"); do
    rm -f "$tmp/local.bin" "$tmp/queue.bin"
    timed 0 "$k" selfplay --out "$tmp/local.bin" --seed "$r" "${selfplay[@]}"
    ls_+=("$wall") lsc+=("$cpu")
    timed 1 "$k" selfplay --out "$tmp/queue.bin" --seed "$r" "${selfplay[@]}" --queue "$url" --batch "$batch"
    qs_+=("$wall") qsc+=("$cpu")
    cmp -s "$tmp/local.bin" "$tmp/queue.bin" || { echo "self-play round $r: the queued file differs" >&2; exit 1; }
done
report "self-play, $games games of 3000 nodes a move, $batch games a job" "$games" \
    $(((games + batch - 1) / batch)) "${ls_[*]}" "${lsc[*]}" "${qs_[*]}" "${qsc[*]}"
rm -f "$tmp/queue.bin"
timed 2 "$k" selfplay --out "$tmp/queue.bin" --seed "$rounds" "${selfplay[@]}" --queue "$url" --batch "$batch"
cmp -s "$tmp/local.bin" "$tmp/queue.bin" || { echo "self-play on two workers: the queued file differs" >&2; exit 1; }
echo "  two workers: $wall s, CPU $cpu s"

lm=() lmc=() qm=() qmc=()
for r in $(seq "$rounds"); do
    timed 0 "$k" match --engine name=A cmd="$k hub" option.threads=1 option.hash=1 \
        --engine name=B cmd="$k hub" option.threads=1 option.hash=2 "${match[@]}" \
        --results-json "$tmp/local.json"
    lm+=("$wall") lmc+=("$cpu")
    timed 1 "$k" match --engine name=A --engine name=B "${match[@]}" --queue "$url" \
        --results-json "$tmp/queue.json"
    qm+=("$wall") qmc+=("$cpu")
    cmp -s "$tmp/local.json" "$tmp/queue.json" || { echo "match round $r: the queued results differ" >&2; exit 1; }
done
report "match, 40 games of 3000 nodes a move (20 pairs)" 40 20 "${lm[*]}" "${lmc[*]}" "${qm[*]}" "${qmc[*]}"
timed 2 "$k" match --engine name=A --engine name=B "${match[@]}" --queue "$url" --results-json "$tmp/queue.json"
cmp -s "$tmp/local.json" "$tmp/queue.json" || { echo "match on two workers: the queued results differ" >&2; exit 1; }
echo "  two workers: $wall s, CPU $cpu s"
