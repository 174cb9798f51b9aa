#!/usr/bin/env bash
# Typechecks Sources/CatalogUIKit (compiled only where UIKit exists) against the stand-in for
# UIKit's interface in Tests/UIKitStandIn, using the package's modules from a debug build
# (`swift build` first). Exits non-zero on any error or warning.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=$(swift build --show-bin-path)/Modules
[ -d "$modules" ] || { echo "no debug build at $modules; run swift build first"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
swiftc -swift-version 6 -parse-as-library -emit-module -module-name UIKit \
    -emit-module-path "$scratch/UIKit.swiftmodule" Tests/UIKitStandIn/UIKit.swift
printf 'module CCatalogSupport {\n  header "%s"\n  export *\n}\n' "$PWD/Sources/CCatalogSupport/include/CCatalogSupport.h" \
    > "$scratch/module.modulemap"
output=$(swiftc -swift-version 6 -typecheck -package-name CatalogKit -module-name CatalogUIKit \
    -I "$scratch" -I "$modules" -Xcc -fmodule-map-file="$scratch/module.modulemap" \
    Sources/CatalogUIKit/*.swift 2>&1) || { echo "$output"; exit 1; }
if [ -n "$output" ]; then echo "$output"; exit 1; fi
echo "CatalogUIKit typechecks against the UIKit stand-in"
