#!/usr/bin/env bash
# The PostgreSQL load test (docs/PostgreSQL.md, BENCHMARKS.md): a throwaway PostgreSQL 15 with
# its default durability, then `catalog-bench cluster` against it — one `catalog serve` on
# SQLite, one on PostgreSQL, two on PostgreSQL (writes, then GET /health as the ceiling), then
# two with event-stream subscribers and `kill -9` of one half-way, and the checks after. Extra
# arguments go to catalog-bench (for instance --cluster-seconds 30 --connections 64
# --subscribers 100, the defaults).
#
#   bash Scripts/cluster-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product catalog
swift build -c release --product catalog-bench
bin=$(swift build -c release --show-bin-path)
dir=$(mktemp -d /tmp/catalog-cluster-pg.XXXXXX)
trap 'bash Scripts/postgres.sh stop "$dir"; rm -rf "$dir"' EXIT
url=$(POSTGRES_DURABLE=1 bash Scripts/postgres.sh start "$dir")
"$bin/catalog-bench" cluster --postgres "$url" "$@"
