#!/usr/bin/env bash
# The whole test suite N times in a row (default 5) with both cores kept busy, as a loaded CI
# machine or a new user's laptop runs it: a test that depends on how fast the machine happens to
# be fails here. Prints one line per run and exits 1 if any run failed.
#
#   bash Scripts/test-under-load.sh        # 5 runs
#   bash Scripts/test-under-load.sh 2      # 2 runs
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
swift build --build-tests > /dev/null 2>&1 || { echo "the build failed: run swift build --build-tests"; exit 1; }
load=()
for _ in $(seq 1 "$(nproc)"); do yes > /dev/null & load+=($!); done
trap 'kill "${load[@]}" 2> /dev/null' EXIT
failed=0
for run in $(seq 1 "$runs"); do
    log=$(mktemp)
    start=$(date +%s)
    if swift test --skip-build > "$log" 2>&1; then status=passed; else status=FAILED; failed=1; fi
    echo "run $run: $status in $(( $(date +%s) - start )) s ($(grep -E '^. Test run with' "$log" | tail -1 | sed 's/^. //'))"
    [ "$status" = FAILED ] && grep -E '✘' "$log" | grep -v 'Suite\|Test run' | head -10
    rm -f "$log"
done
exit $failed
