#!/usr/bin/env bash
# Instruction counts of the hot paths under callgrind, which repeat exactly from run to run:
# a 100k diff (Int ids in sections, string ids flat, and two catalogues of 100k video cards as
# users call it: `Changeset(from:to:)`), a 100k flow prepare, and 100 quick moves
# (SQLite included). Each count is of the operation alone (`measuredRegion` in
# Sources/CatalogBenchmarks/InstructionCounts.swift). A change to one of these paths keeps each
# count within 3 % of the count before it; BENCHMARKS.md has the current figures.
#
#   bash Scripts/instruction-counts.sh            # release build, then every case
#   bash Scripts/instruction-counts.sh diff-int   # one case
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind > /dev/null || { echo "valgrind is not installed"; exit 1; }
swift build -c release --product catalog-bench > /dev/null
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(diff-int diff-string diff-catalog flow-prepare quick-moves)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Valgrind cannot read the DWARF 5 debug information Swift writes; the symbol table it needs to
# find `measuredRegion` stays in a copy without it.
bin="$scratch/catalog-bench"
objcopy --strip-debug "$(swift build -c release --show-bin-path)/catalog-bench" "$bin"
printf '%-14s %16s\n' case instructions
for name in "${cases[@]}"; do
    valgrind --tool=callgrind --toggle-collect='*measuredRegion*' --callgrind-out-file="$scratch/$name.out" \
        "$bin" --instructions "$name" > /dev/null 2> "$scratch/$name.log" \
        || { cat "$scratch/$name.log"; exit 1; }
    count=$(grep -E '^(summary|totals):' "$scratch/$name.out" | head -1 | awk '{print $2}')
    printf '%-14s %16s\n' "$name" "$(printf "%'d" "$count")"
done
