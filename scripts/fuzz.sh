#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader of outside input (the targets of crates/fuzz), with
# libFuzzer through cargo-fuzz, on the stable toolchain: `--sanitizer none` needs no nightly, and
# `-a` keeps debug assertions and overflow checks on, so arithmetic slips fail too.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s, every target)
#        RUNS=N scripts/fuzz.sh SECONDS ...   stop each target after N inputs (SECONDS still bounds it)
#        FUZZ_SEEDS=BIN scripts/fuzz.sh ...     write the seeds with BIN, a fuzz-seeds already built
# The corpus grows in target/fuzz-corpus/NAME (seeded from crates/fuzz's seeds, kept between runs).
# A crash stops the run and is left in fuzz/artifacts/NAME/; copy it to
# crates/fuzz/regressions/NAME/ so that `cargo test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fen move_text hub_line dxp_frames dxp_message settings weights records openings egdb_slice pdn book queue_record)

# Unoptimised (--debug): cargo-fuzz only drives cargo and libFuzzer, and so builds in a fraction
# of the time for no loss.
command -v cargo-fuzz >/dev/null || cargo install --locked --debug cargo-fuzz --version 0.13.2
root=$(pwd)
corpus=$root/target/fuzz-corpus
# The seeds' writer. FUZZ_SEEDS names one already built (CI passes the one its tests' build made,
# which a `cargo run -p kroon-fuzz` here would build a second time, with other features).
if [[ -n ${FUZZ_SEEDS:-} ]]; then
    "$FUZZ_SEEDS" "$corpus"
else
    cargo run --quiet --profile ci -p kroon-fuzz --bin fuzz-seeds -- "$corpus"
fi
(cd fuzz && cargo fuzz build --sanitizer none -O -a)
# The targets run as built, so that editing the sources during a long run rebuilds nothing.
bin=$root/fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release

# One target per core at a time (JOBS=N to choose): each libFuzzer run is single-threaded.
jobs=${JOBS:-$(nproc)}

# Runs one target and prints its row, or why it failed (status 1).
run_target() {
    local t=$1 max_len=4096 log start end runs files
    # Weights images are 210 kB, the book 36 kB; every other input is a line or a small file.
    [[ $t == weights ]] && max_len=262144
    [[ $t == book ]] && max_len=65536
    log=$root/target/fuzz-$t.log
    mkdir -p "$root/fuzz/artifacts/$t"
    start=$(date +%s.%N)
    if ! "$bin/$t" "$corpus/$t" \
            -max_total_time="$seconds" -runs="${RUNS:--1}" -max_len="$max_len" -print_final_stats=1 \
            -artifact_prefix="$root/fuzz/artifacts/$t/" >"$log" 2>&1; then
        echo "$t: FAILED, see $log and fuzz/artifacts/$t/"
        grep -m1 -A3 "panicked" "$log" || tail -5 "$log"
        return 1
    fi
    end=$(date +%s.%N)
    runs=$(awk '/stat::number_of_executed_units/{print $2}' "$log")
    files=$(find "$corpus/$t" -type f | wc -l)
    awk -v t="$t" -v r="$runs" -v a="$start" -v b="$end" -v c="$files" \
        'BEGIN{s=b-a; printf "%-12s %12d %8.1f %10.0f %8d\n", t, r, s, r/s, c}'
}

printf '%-12s %12s %8s %10s %8s\n' target inputs seconds inputs/s corpus
failed=0
running=0
for t in "${targets[@]}"; do
    if (( running >= jobs )); then
        wait -n || failed=1
        running=$((running - 1))
    fi
    run_target "$t" &
    running=$((running + 1))
done
while (( running > 0 )); do
    wait -n || failed=1
    running=$((running - 1))
done
exit $failed
