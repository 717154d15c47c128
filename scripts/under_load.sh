#!/usr/bin/env bash
# A test of the tests: runs COMMAND with two CPU-bound processes beside it, as on a busy
# machine, and exits with COMMAND's status. Without a COMMAND it runs the app tests of
# build/release (built by scripts/test.sh) ROUNDS times (default 3), since a test that leans on
# timing fails only now and then.
#   scripts/under_load.sh [--rounds N] [COMMAND…]
#   scripts/under_load.sh scripts/test.sh      # the whole suite under load
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3
if [ "${1:-}" = "--rounds" ]; then rounds="$2"; shift 2; fi

burners=()
stop_burners() { [ ${#burners[@]} -eq 0 ] || kill "${burners[@]}" 2>/dev/null || true; }
trap stop_burners EXIT
for _ in 1 2; do
  # A shell loop that never sleeps: one core's worth of CPU each, nothing else.
  bash -c 'while :; do :; done' &
  burners+=($!)
done
echo "== two CPU-bound processes beside the command: ${burners[*]}"

if [ $# -gt 0 ]; then
  "$@"
  exit
fi
export QT_QPA_PLATFORM=offscreen
for round in $(seq 1 "$rounds"); do
  echo "== app tests under load, round $round of $rounds"
  ctest --test-dir "$ROOT/build/release" -L app --output-on-failure -j "$(nproc)"
done
