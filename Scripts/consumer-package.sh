#!/usr/bin/env bash
# An app's view of CatalogKit: a package that depends on this checkout as an app would (every
# library product, `traits: []`) resolves, builds and runs, and what it resolved is GRDB alone —
# not the server's, the command line's or PostgreSQL's packages (docs/Apps.md). Exits non-zero
# otherwise. Uses a scratch folder of its own; the checkout's build is not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
app=$(mktemp -d)
trap 'rm -rf "$app"' EXIT
mkdir -p "$app/Sources/App"
cat > "$app/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(path: "$root", traits: [])],
    targets: [
        .executableTarget(name: "App", dependencies: [
            "CatalogModel", "CatalogDiff", "CatalogLayout", "CatalogViews", "CatalogImport", "CatalogStore", "CatalogClient",
            "CatalogUIKit", "CatalogSwiftUI",
        ].map { .product(name: \$0, package: "$(basename "$root")") }),
    ],
    swiftLanguageModes: [.v6]
)
SWIFT
cat > "$app/Sources/App/main.swift" <<'SWIFT'
import CatalogClient
import CatalogDiff
import CatalogImport
import CatalogLayout
import CatalogModel
import CatalogStore
import CatalogSwiftUI
import CatalogUIKit
import CatalogViews
import Foundation

let path = FileManager.default.temporaryDirectory.appendingPathComponent("app-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
let store = try CatalogStore(path: path)
defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
let shelf = Catalog(name: "shelf", sections: [Section(id: "s", kind: .bookshelf, items: [
    Item(id: "b1", content: .book(Book(title: "Anna Karenina", cover: "ak.png"))),
])])
_ = try store.replace(shelf)
let client = try CatalogClient(store: store, server: URL(string: "http://127.0.0.1:1")!, log: .discarding)
_ = client
print("app: \(try store.catalog(named: "shelf").sections[0].items.count) item(s)")
SWIFT
(cd "$app" && swift package resolve > resolve.log 2>&1) || { cat "$app/resolve.log"; exit 1; }
resolved=$(python3 -c 'import json,sys; print(" ".join(sorted(p["identity"] for p in json.load(open(sys.argv[1])).get("pins", []))))' "$app/Package.resolved" 2>/dev/null || true)
echo "an app's Package.resolved: ${resolved:-nothing}"
if [ "$resolved" != "grdb.swift" ]; then
    echo "an app that links the library products resolved more than GRDB: $resolved"
    exit 1
fi
(cd "$app" && swift build > build.log 2>&1) || { tail -40 "$app/build.log"; exit 1; }
(cd "$app" && "$(swift build --show-bin-path)/App")
