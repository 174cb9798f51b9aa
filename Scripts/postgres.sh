#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks of the PostgreSQL store.
#
#   bash Scripts/postgres.sh start DIR   # a new cluster in DIR (created), on a free port of
#                                        # 127.0.0.1 and a socket in DIR; prints its URL (also
#                                        # in DIR/url)
#   bash Scripts/postgres.sh stop DIR    # stops it (DIR stays; remove it yourself)
#   bash Scripts/postgres.sh resume DIR  # starts a stopped cluster again, on its port
#
# The tests read the URL from CATALOG_TEST_POSTGRES_URL:
#   export CATALOG_TEST_POSTGRES_URL=$(bash Scripts/postgres.sh start /tmp/catalog-pg)
# initdb refuses to run as root, so as root the cluster belongs to the `postgres` user.
# fsync is off: the cluster holds test data only — unless POSTGRES_DURABLE=1 (benchmarks), which
# keeps PostgreSQL's defaults. pg_stat_statements is loaded when installed (the load test counts
# statements with it).
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|resume DIR" >&2; exit 2; }

bin=${POSTGRES_BIN:-}
if [ -z "$bin" ]; then
    if command -v pg_config > /dev/null && [ -x "$(pg_config --bindir)/initdb" ]; then
        bin=$(pg_config --bindir)
    else
        bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1 || true)
    fi
fi
[ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "PostgreSQL's initdb was not found (set POSTGRES_BIN)" >&2; exit 1; }

# Runs a PostgreSQL program as the cluster's owner.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Starts the cluster in $dir on $port.
start_server() {
    local options="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300"
    [ "${POSTGRES_DURABLE:-0}" = 1 ] || options+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ -f "$bin/../lib/pg_stat_statements.so" ] && options+=" -c shared_preload_libraries=pg_stat_statements"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$options" \
        start > /dev/null || { cat "$dir/server.log" >&2; exit 1; }
}

case "$command" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync > "$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    echo "$port" > "$dir/port"
    start_server
    echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable" | tee "$dir/url"
    ;;
resume)
    port=$(cat "$dir/port")
    start_server
    ;;
stop)
    [ -d "$dir/data" ] || exit 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null || true
    ;;
*)
    echo "usage: $0 start|stop|resume DIR" >&2; exit 2
    ;;
esac
