// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CatalogKit",
    platforms: [.macOS(.v14), .iOS(.v17), .macCatalyst(.v17), .tvOS(.v17), .visionOS(.v1), .watchOS(.v10)],
    products: [
        .library(name: "CatalogModel", targets: ["CatalogModel"]),
        .library(name: "CatalogDiff", targets: ["CatalogDiff"]),
        .library(name: "CatalogLayout", targets: ["CatalogLayout"]),
        .library(name: "CatalogViews", targets: ["CatalogViews"]),
        .library(name: "CatalogImport", targets: ["CatalogImport"]),
        .library(name: "CatalogStore", targets: ["CatalogStore"]),
        .library(name: "CatalogUIKit", targets: ["CatalogUIKit"]),
        .library(name: "CatalogSwiftUI", targets: ["CatalogSwiftUI"]),
        .library(name: "CatalogClient", targets: ["CatalogClient"]),
        // The PostgreSQL store, for a server of an app's own; it needs the default `Server` trait.
        .library(name: "CatalogPostgres", targets: ["CatalogPostgres"]),
        .executable(name: "catalog", targets: ["catalog"]),
    ],
    // What an app links needs GRDB alone. The server, the command line, PostgreSQL, the benchmarks
    // and the client's AsyncHTTPClient transport need the other packages below: they are behind the
    // `Server` trait, on by default (so `swift run catalog` and `swift test` need no flag), which an
    // app turns off with `traits: []` on its `.package(url:…)` line: SwiftPM then neither fetches
    // nor builds them (docs/Apps.md; Scripts/consumer-package.sh checks it).
    traits: [
        .trait(name: "Server", description: "The catalog command line, the HTTP server, the PostgreSQL store and the benchmarks.",
               enabledTraits: ["AsyncHTTPClient"]),
        .trait(name: "AsyncHTTPClient", description: "CatalogClient's AsyncHTTPClientTransport (the default transport on Linux)."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // HTTP request and response parts as NIO channel handlers see them (Hummingbird uses it too).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // HTTP field names, and graceful shutdown for the server's event streams (Hummingbird
        // builds on both).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The client side of `catalog watch --server`: a streamed response body on every platform.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation`: the DocC catalogue in Sources/CatalogStore.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The PostgreSQL backend: a connection pool, LISTEN/NOTIFY.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `GET /metrics`: counters, gauges and histograms (swift-metrics) in Prometheus' text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `catalog serve --jwt-key`: bearer JWTs signed by a team's own backend (ES256, RS256,
        // EdDSA), and SHA-256 for the hashes in `--token-file`.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The tests' TLS certificates, made when they run (`serve --tls-cert`).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // Pure value types: catalogues, sections, items. No GRDB, no I/O.
        .target(name: "CatalogModel"),

        // Staged changesets between snapshots and the batch-update simulator. Pure: no GRDB, no I/O.
        .target(name: "CatalogDiff", dependencies: ["CatalogModel", "CCatalogSupport"]),
        // A prefetch hint for the diff's hash tables, and a rounding for the layouts (C, header only).
        .target(name: "CCatalogSupport"),

        // Geometry of collection-view layouts (flow, waterfall, circular, shelf, carousel), rect
        // queries, hit tests, update animations and SVG pictures. Pure: no UIKit, no GRDB, no I/O.
        .target(name: "CatalogLayout", dependencies: ["CatalogModel", "CatalogDiff", "CCatalogSupport"]),

        // Live views (docs/Views.md): a catalogue filtered, sorted, grouped and windowed, evaluated
        // from scratch or kept up to date write by write. Pure: no GRDB, no I/O.
        .target(name: "CatalogViews", dependencies: ["CatalogModel", "CatalogDiff"]),

        // A UICollectionView target for CollectionUpdater and a UICollectionViewLayout answering
        // from CatalogLayout; only forwarding, compiled where UIKit exists (empty elsewhere).
        .target(name: "CatalogUIKit", dependencies: ["CatalogModel", "CatalogDiff", "CatalogLayout"]),

        // A live catalogue for SwiftUI: an @Observable model on the main actor fed by a store's
        // updates. Observation only (it ships with the toolchain): builds and is tested everywhere.
        .target(name: "CatalogSwiftUI", dependencies: ["CatalogModel", "CatalogDiff"]),

        // Reading catalogue files (JSON, XML and binary plist, loose shapes) into the model.
        .target(name: "CatalogImport", dependencies: ["CatalogModel"]),

        // What both stores share, without GRDB or PostgreSQL: the protocol the server and the
        // command line call (`CatalogDatabase`), errors, results, the journal's format, observers
        // and the notifier, the caches, and every rule of a write written once (`StoreRules`).
        .target(name: "CatalogStoreCore", dependencies: ["CatalogModel", "CatalogDiff", "CatalogViews", "CatalogConcurrency"]),
        // `Locked<State>`: the package's one lock type, a value behind a lock of its own.
        .target(name: "CatalogConcurrency"),

        // SQLite persistence through GRDB; the schema comes from the top-level Migrations/ folder,
        // embedded at build time by the EmbedMigrations plugin.
        .target(
            name: "CatalogStore",
            dependencies: [
                "CatalogModel", "CatalogDiff", "CatalogStoreCore", "CatalogConcurrency",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The C API, for binding the hot insert statement without boxing every value.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteSupport",
            ],
            plugins: ["EmbedMigrations"]
        ),
        // The same store on PostgreSQL, for several `catalog serve` instances on one database; the
        // schema comes from Migrations/postgres/, embedded like SQLite's.
        .target(
            name: "CatalogPostgres",
            dependencies: [
                "CatalogModel", "CatalogDiff", "CatalogStoreCore", "CatalogConcurrency",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
            ],
            plugins: ["EmbedMigrations"]
        ),
        // SQLite's process-wide settings, which only C can reach (`sqlite3_config` is variadic).
        .target(name: "CSQLiteSupport", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // Text files compiled into the binary: the migrations, the OpenAPI document.
        .executableTarget(name: "EmbedFilesTool"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),
        .plugin(name: "EmbedDocuments", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),

        // Benchmarks behind `catalog-bench` (run them from a release build); linked by no product.
        .target(
            name: "CatalogBenchmarks",
            dependencies: [
                "CatalogModel", "CatalogDiff", "CatalogImport", "CatalogStore", "CatalogLayout", "CatalogViews", "CBenchmarkSupport", "CatalogServer",
                // The follow suite: a device following `catalog serve`.
                "CatalogClient",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The cluster load test: `catalog serve` instances on one PostgreSQL database.
                "CatalogPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
                // A live server and keep-alive clients for the HTTP benchmark.
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                // Baseline for the diff benchmark.
                .product(name: "OrderedCollections", package: "swift-collections", condition: .when(traits: ["Server"])),
                // The JWT the http suite's moves present.
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Server"])),
            ]
        ),

        // The JSON documents of docs/Changesets.md, Command-line.md, Layouts.md and HTTP-API.md that the command line prints and the HTTP API sends.
        .target(name: "CatalogJSON", dependencies: ["CatalogDiff", "CatalogImport", "CatalogLayout", "CatalogStore"]),

        // The HTTP API (docs/HTTP-API.md) on Hummingbird: the store's reads and writes over JSON.
        .target(
            name: "CatalogServer",
            dependencies: [
                "CatalogModel", "CatalogDiff", "CatalogImport", "CatalogStore", "CatalogLayout", "CatalogJSON", "CatalogViews",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Server"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Server"])),
                .product(name: "DequeModule", package: "swift-collections", condition: .when(traits: ["Server"])),
                // `catalog serve --tls-cert --tls-key`: TLS without a proxy (swift-nio-ssl).
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Server"])),
            ],
            // The OpenAPI 3.1 document of the API (openapi.json), served at /openapi.json, and the
            // browser console (Console/: HTML, CSS, JavaScript modules), served at /; both
            // compiled into the binary.
            exclude: ["openapi.json", "Console"],
            plugins: ["EmbedDocuments"]
        ),

        // Heap statistics for the benchmarks' bytes-per-item figures (C, header only).
        .target(name: "CBenchmarkSupport"),

        // A device's side of a server (docs/Following-a-server.md): catalogues followed into a
        // local store over the event stream, and the device's writes sent from its outbox.
        .target(
            name: "CatalogClient",
            dependencies: [
                "CatalogModel", "CatalogDiff", "CatalogImport", "CatalogStore",
                // AsyncHTTPClientTransport, the default on Linux; without the trait the client talks
                // through URLSession everywhere.
                .product(name: "AsyncHTTPClient", package: "async-http-client",
                         condition: .when(platforms: [.linux, .android, .windows], traits: ["AsyncHTTPClient"])),
            ]
        ),

        // The `catalog` command line: commands live in a library so tests can reach them.
        .target(
            name: "CatalogCLI",
            dependencies: [
                "CatalogModel", "CatalogDiff", "CatalogImport", "CatalogStore", "CatalogPostgres", "CatalogLayout", "CatalogJSON", "CatalogServer", "CatalogClient", "CatalogViews",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Server"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
            ]
        ),
        .executableTarget(name: "catalog", dependencies: ["CatalogCLI"]),
        // `catalog-bench`: the benchmarks as a tool of their own, so that `catalog` links none of them.
        .executableTarget(
            name: "catalog-bench",
            dependencies: ["CatalogCLI", "CatalogBenchmarks", "CatalogStore", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Server"]))]
        ),

        .testTarget(name: "CatalogModelTests", dependencies: ["CatalogModel"]),
        // Random catalogues and operations shared by the property tests of several modules.
        // …and the databases the store's tests run on (SQLite, and PostgreSQL when a server is there).
        .target(name: "CatalogTestSupport",
                dependencies: ["CatalogModel", "CatalogStore", "CatalogPostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
                               .product(name: "GRDB", package: "GRDB.swift"),
                               .product(name: "Logging", package: "swift-log")],
                path: "Tests/CatalogTestSupport"),
        .testTarget(name: "CatalogDiffTests", dependencies: ["CatalogDiff", "CatalogModel", "CatalogTestSupport"]),
        .testTarget(name: "CatalogViewsTests", dependencies: ["CatalogViews", "CatalogModel", "CatalogDiff", "CatalogTestSupport"]),
        .testTarget(name: "CatalogSwiftUITests", dependencies: ["CatalogSwiftUI", "CatalogModel", "CatalogDiff"]),
        .testTarget(name: "CatalogLayoutTests", dependencies: ["CatalogLayout", "CatalogModel", "CatalogDiff"]),
        .testTarget(name: "CatalogImportTests", dependencies: ["CatalogImport", "CatalogTestSupport"], exclude: ["RealWorld"]),
        .testTarget(
            name: "CatalogStoreTests",
            dependencies: ["CatalogStore", "CatalogStoreCore", "CatalogDiff", "CatalogTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "CatalogClientTests",
            // `catalog sync`: the fault test's devices killed with SIGKILL.
            dependencies: ["catalog", "CatalogClient", "CatalogServer", "CatalogStore", "CatalogModel", "CatalogDiff", "CatalogViews", "CatalogTestSupport",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           // A certificate made for the TLS test.
                           .product(name: "X509", package: "swift-certificates"),
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "CatalogServerTests",
            dependencies: ["CatalogServer", "CatalogStore", "CatalogPostgres", "CatalogModel", "CatalogDiff", "CatalogImport", "CatalogViews", "CatalogTestSupport",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           // Signing the JWTs the server's tests present.
                           .product(name: "JWTKit", package: "jwt-kit")]
        ),
        // The store's contract on both backends (SQLite, and PostgreSQL when a server is there):
        // one suite, parameterised by backend.
        .testTarget(
            name: "CatalogDatabaseTests",
            dependencies: ["CatalogStore", "CatalogPostgres", "CatalogModel", "CatalogDiff", "CatalogViews", "CatalogTestSupport"]
        ),
        // README's Swift walk-through, compiled and run.
        .testTarget(name: "WalkthroughTests", dependencies: ["CatalogImport", "CatalogStore", "CatalogDiff", "CatalogLayout", "CatalogModel", "CatalogViews",
                                                           "CatalogClient", "CatalogServer",
                                                           .product(name: "Hummingbird", package: "hummingbird"),
                                                           .product(name: "HummingbirdTesting", package: "hummingbird")]),
        .testTarget(name: "CatalogCLITests", dependencies: ["catalog", "catalog-bench", "CatalogModel", "CatalogDiff", "CatalogTestSupport",
                                                           // One ServerProcess for the tests and the benchmarks.
                                                           "CatalogBenchmarks", "CatalogConcurrency",
                                                           // Commands parsed in process (CommandParsingTests).
                                                           "CatalogCLI", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                                           // The crash test holds the write lock of the database a command waits on.
                                                           .product(name: "GRDB", package: "GRDB.swift"),
                                                           "CatalogPostgres", .product(name: "PostgresNIO", package: "postgres-nio")]),
        .testTarget(
            name: "CatalogBenchmarksTests",
            dependencies: ["CatalogBenchmarks", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
