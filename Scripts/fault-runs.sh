#!/usr/bin/env bash
# Seeded fault-injection runs of the device client (Tests/CatalogClientTests/FaultInjectionTests):
# a live server, a proxy that fails at random, a device making random moves. Each failure is
# printed with its seed; run one again with CATALOG_FAULT_SEED.
#
#   bash Scripts/fault-runs.sh 2000        # seeds 1…2000
#   bash Scripts/fault-runs.sh 500 9000    # seeds 9000…9499
#   CATALOG_FAULT_SEED=17 swift test --filter FaultInjectionTests
#
# CATALOG_FAULT_KILLS=1 makes a third of the syncs a `catalog sync` process killed with SIGKILL
# at random moments and started again (not in the suite yet: see FaultInjectionTests);
# CATALOG_FAULT_DEBUG=1 prints each round's outboxes, and each device's ids and the server's
# records of them when a run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000}
first=${2:-1}
swift build --build-tests > /dev/null
CATALOG_FAULT_SEEDS=$count CATALOG_FAULT_FIRST_SEED=$first swift test --skip-build --filter FaultInjectionTests 2>&1 \
    | grep -aE "seed [0-9]+:|Test run with" || true
