#!/usr/bin/env bash
# The 4-piece table build through the queue: 2M-2M and the 24 slices it converts into, built
# here and then by two `kroon worker`s on a redis-server of the test's own, the files compared
# byte for byte. The test is in tests/queue.rs, left out of CI runs (#[ignore]) as too long for
# them: 52 to 65 s on a 2-core machine shared with other work, 42 to 59 s of CPU, 16 s of it the
# local build. Needs redis-server (apt-get install redis-server).
#
# usage: scripts/queue-egdb4.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KROON_REQUIRE_REDIS=1 exec cargo test --profile ci -p kroon --test end_to_end -- --ignored \
    --exact queue::a_four_piece_table_build_on_two_workers_writes_the_local_files
