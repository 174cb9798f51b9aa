#!/usr/bin/env bash
# Typechecks Sources/CatalogUIKit (compiled only where UIKit exists) against the stand-in for
# UIKit's interface in Tests/UIKitStandIn, using the package's modules from a build of the given
# configuration (debug, the default, or release; `swift build [-c release]` first) and the
# package name SwiftPM gave that build, read from its build description: the adapter is checked
# as SwiftPM compiles it, inside the package. Exits non-zero on any error or warning.
set -euo pipefail
cd "$(dirname "$0")/.."
configuration=${1:-debug}
bin=$(swift build -c "$configuration" --show-bin-path)
modules=$bin/Modules
[ -e "$modules/CatalogDiff.swiftmodule" ] || { echo "no $configuration build at $modules; run swift build -c $configuration first"; exit 1; }
description=$(dirname "$bin")/$configuration.yaml
[ -f "$description" ] || description=.build/$configuration.yaml
# The name SwiftPM passed when it compiled CatalogDiff, the module whose protocol the adapter conforms to.
package=$(grep -- '"-module-name","CatalogDiff"' "$description" | grep -o -- '"-package-name","[^"]*"' | head -1 | cut -d'"' -f4)
[ -n "$package" ] || { echo "no -package-name for CatalogDiff in $description"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
swiftc -swift-version 6 -parse-as-library -emit-module -module-name UIKit \
    -emit-module-path "$scratch/UIKit.swiftmodule" Tests/UIKitStandIn/UIKit.swift
printf 'module CCatalogSupport {\n  header "%s"\n  export *\n}\n' "$PWD/Sources/CCatalogSupport/include/CCatalogSupport.h" \
    > "$scratch/module.modulemap"
output=$(swiftc -swift-version 6 -typecheck -package-name "$package" -module-name CatalogUIKit \
    -I "$scratch" -I "$modules" -Xcc -fmodule-map-file="$scratch/module.modulemap" \
    Sources/CatalogUIKit/*.swift 2>&1) || { echo "$output"; exit 1; }
if [ -n "$output" ]; then echo "$output"; exit 1; fi
echo "CatalogUIKit typechecks against the UIKit stand-in ($configuration build, package name $package)"

# The documentation's SwiftUI examples, as an app would compile them (outside the package), against
# the stand-in for SwiftUI and the package's modules (CatalogStore's C modules from the build).
# Once, with the debug build: outside the package the configuration changes nothing the
# typecheck sees, and CI's release build holds only the adapter's modules.
[ "$configuration" = debug ] || exit 0
swiftc -swift-version 6 -parse-as-library -emit-module -module-name SwiftUI \
    -emit-module-path "$scratch/SwiftUI.swiftmodule" Tests/SwiftUIStandIn/SwiftUI.swift
maps=()
for map in "$bin"/CSQLiteSupport.build/module.modulemap "$bin"/CCatalogSupport.build/module.modulemap \
           .build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap; do
    [ -f "$map" ] || { echo "no $map; build first"; exit 1; }
    maps+=(-Xcc "-fmodule-map-file=$map")
done
output=$(swiftc -swift-version 6 -typecheck -parse-as-library -module-name SwiftUIExamples \
    -I "$scratch" -I "$modules" "${maps[@]}" Tests/SwiftUIExamples/*.swift 2>&1) || { echo "$output"; exit 1; }
if [ -n "$output" ]; then echo "$output"; exit 1; fi
echo "the SwiftUI examples typecheck against the SwiftUI stand-in ($configuration build)"
