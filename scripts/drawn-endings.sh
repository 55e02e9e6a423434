#!/usr/bin/env bash
# Games from drawn endings of two or three pieces against a lone king (the endgame tables say
# drawn), Kroon on both sides, against an opponent that never claims and never accepts a draw.
# Usage: scripts/drawn-endings.sh [GAMES]   (default 100; KROON_DRAWN_ENDINGS sets the count)
set -euo pipefail
cd "$(dirname "$0")/.."
KROON_DRAWN_ENDINGS="${1:-100}" cargo test --release -p kroon --test end_to_end -- drawn_endings:: --ignored --nocapture
