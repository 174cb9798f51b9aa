#!/usr/bin/env bash
# Fuzzes the readers of untrusted bytes (Fuzz/ReadersFuzzer.swift) with libFuzzer for SECONDS
# seconds (default 60), starting from Fuzz/corpus; exits non-zero on a crash, a leak of the
# readers' own or a hang, leaving the input that caused it in the working folder (crash-…).
# New interesting inputs go to a scratch corpus; copy the ones worth keeping into Fuzz/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=.build-fuzz
mkdir -p "$build"
flags=(-sanitize=fuzzer,address -parse-as-library -DDEBUG -Onone -g -swift-version 6)
# The two modules, built as they are in the package, but instrumented for coverage.
swiftc "${flags[@]}" -emit-module -emit-library -static -module-name CatalogModel -package-name CatalogKit \
    -emit-module-path "$build/CatalogModel.swiftmodule" -o "$build/libCatalogModel.a" \
    $(find Sources/CatalogModel -name '*.swift')
swiftc "${flags[@]}" -emit-module -emit-library -static -module-name CatalogImport -package-name CatalogKit -I "$build" \
    -emit-module-path "$build/CatalogImport.swiftmodule" -o "$build/libCatalogImport.a" \
    $(find Sources/CatalogImport -name '*.swift')
swiftc "${flags[@]}" -I "$build" -L "$build" -lCatalogImport -lCatalogModel -package-name CatalogKit \
    Fuzz/ReadersFuzzer.swift -o "$build/readers-fuzzer"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$build/readers-fuzzer" "$scratch" Fuzz/corpus \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
