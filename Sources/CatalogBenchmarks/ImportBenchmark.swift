import CatalogImport
import CatalogModel
import CatalogStore
import Foundation
import GRDB

/// `catalog-bench import`: reading, storing and loading a large native catalogue, each against
/// what a hand-written program would do on the same data, measured in the same run.
package struct ImportBenchmark {
    package var items: Int
    package var sections: Int
    package var runs: Int

    package init(items: Int = 100_000, sections: Int = 100, runs: Int = 7) {
        self.items = items
        self.sections = sections
        self.runs = runs
    }

    package func run(log: (String) -> Void = { _ in }) throws -> [BenchmarkResult] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let catalog = Catalog.generated(name: "bench", items: items, sections: sections, kind: .videos)
        let file = folder.appendingPathComponent("bench.json")
        try CatalogExporter.write(catalog, to: file)
        log("generated \(items) video items in \(sections) sections: \(try Data(contentsOf: file).count / 1024) KiB of JSON")

        var counter = 0
        /// A new, migrated, empty database file for each timed run, so every run writes from scratch.
        func freshDatabase() throws -> String {
            counter += 1
            let path = folder.appendingPathComponent("run\(counter).sqlite").path
            _ = try CatalogStore(path: path)
            return path
        }
        let plainGRDB = "GRDB prepared statements"
        var results: [BenchmarkResult] = []

        log("import: file → model → SQLite, against the same rows inserted by a plain GRDB loop")
        let imported = try Clock.compare(
            runs: runs,
            case: { try CatalogStore(path: freshDatabase()) }, { store in
                try store.replace(CatalogImporter.read(contentsOf: file).catalog)
            },
            baseline: { try DatabasePool(path: freshDatabase()) }, { pool in
                try Self.insertWithPreparedStatements(catalog, into: pool)
            })
        results.append(BenchmarkResult(suite: "import", name: "import \(items.abbreviated) items (JSON file → SQLite)",
                                       medianMS: imported.median, baseline: plainGRDB,
                                       baselineMedianMS: imported.baselineMedian, items: items))

        log("store: model → SQLite")
        let stored = try Clock.compare(
            runs: runs,
            case: { try CatalogStore(path: freshDatabase()) }, { store in try store.replace(catalog) },
            baseline: { try DatabasePool(path: freshDatabase()) }, { pool in
                try Self.insertWithPreparedStatements(catalog, into: pool)
            })
        results.append(BenchmarkResult(suite: "import", name: "store \(items.abbreviated) items (model → SQLite)",
                                       medianMS: stored.median, baseline: plainGRDB,
                                       baselineMedianMS: stored.baselineMedian, items: items))

        log("read: JSON file → model, against Foundation's JSONSerialization parsing the same file")
        let read = try Clock.compare(
            runs: runs,
            case: {}, { _ = try CatalogImporter.read(contentsOf: file) },
            baseline: {}, { _ = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) })
        results.append(BenchmarkResult(suite: "import", name: "read \(items.abbreviated) items (JSON file → model)",
                                       medianMS: read.median, baseline: "JSONSerialization (parse only)",
                                       baselineMedianMS: read.baselineMedian, items: items))

        log("read: XML property list → model, against Foundation's PropertyListSerialization parsing the same file")
        let plist = folder.appendingPathComponent("bench.plist")
        try CatalogExporter.propertyList(catalog, format: .xml).write(to: plist)
        let readPlist = try Clock.compare(
            runs: runs,
            case: {}, { _ = try CatalogImporter.read(contentsOf: plist) },
            baseline: {}, { _ = try PropertyListSerialization.propertyList(from: Data(contentsOf: plist), format: nil) })
        results.append(BenchmarkResult(suite: "import", name: "read \(items.abbreviated) items (XML plist → model)",
                                       medianMS: readPlist.median, baseline: "PropertyListSerialization (parse only)",
                                       baselineMedianMS: readPlist.baselineMedian, items: items))

        log("load: SQLite → snapshot, against scanning the same rows without building a model")
        let loadedPath = try freshDatabase()
        try CatalogStore(path: loadedPath).replace(catalog)
        var readOnly = Configuration()
        readOnly.readonly = true
        let pool = try DatabasePool(path: loadedPath, configuration: readOnly)
        /// A load of the catalogue from the store `store` makes (not timed), against the raw scan.
        func load(_ label: String, from store: @escaping () throws -> CatalogStore) throws {
            let loaded = try Clock.compare(
                runs: runs,
                case: store, { store in
                    let snapshot = try store.catalog(named: "bench")
                    precondition(snapshot.itemCount == items)
                },
                baseline: {}, { try Self.scanRows(in: pool) })
            results.append(BenchmarkResult(suite: "import", name: "load snapshot of \(items.abbreviated) items\(label)",
                                           medianMS: loaded.median, baseline: "raw row scan (GRDB cursor)",
                                           baselineMedianMS: loaded.baselineMedian, items: items))
        }
        // Cold: a store opened for the run has kept nothing, so the snapshot is read from rows.
        try load(" from SQLite (cold)") { try CatalogStore.openForReading(path: loadedPath) }
        // Kept: the catalogue is unchanged since the store last read it (``SnapshotCache``).
        let kept = try CatalogStore.openForReading(path: loadedPath)
        _ = try kept.catalog(named: "bench")
        try load(", kept since the last read") { kept }
        return results
    }

    /// What a hand-written importer does: one transaction, one cached statement per table,
    /// arguments as `StatementArguments`, the same schema.
    static func insertWithPreparedStatements(_ catalog: Catalog, into pool: DatabasePool) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT INTO catalog (name, revision) VALUES (?, 1)", arguments: [catalog.name])
            let catalogPK = db.lastInsertedRowID
            let insertSection = try db.cachedStatement(sql: """
                INSERT INTO section (catalog_pk, id, position, kind, title, capacity) VALUES (?, ?, ?, ?, ?, ?)
                """)
            let insertItem = try db.cachedStatement(sql: """
                INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover, play_count, like_count,
                                  status, status_text, author, name, icon, width, height)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (s, section) in catalog.sections.enumerated() {
                try insertSection.execute(arguments: [catalogPK, section.id, s, section.kind.rawValue, section.title, section.capacity])
                let sectionPK = db.lastInsertedRowID
                for (i, item) in section.items.enumerated() {
                    guard case .video(let v) = item.content else { continue }
                    try insertItem.execute(arguments: [catalogPK, sectionPK, item.id, i, "video", v.title, v.cover,
                                                       v.playCount, v.likeCount, v.status.rawValue, v.statusText,
                                                       nil, nil, nil, item.size?.width, item.size?.height])
                }
            }
        }
    }

    /// The floor for loading: read the same columns in display order, build nothing.
    static func scanRows(in pool: DatabasePool) throws {
        try pool.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT i.section_pk, i.id, i.kind, i.title, i.cover, i.play_count, i.like_count, i.status,
                       i.status_text, i.author, i.name, i.icon, i.width, i.height
                FROM section s JOIN item i ON i.section_pk = s.pk ORDER BY s.position, i.position
                """)
            var checksum = 0
            while let row = try rows.next() {
                let id: String = row[1]
                let title: String? = row[3]
                let plays: Int? = row[5]
                checksum &+= id.utf8.count &+ (title?.utf8.count ?? 0) &+ (plays ?? 0)
            }
            precondition(checksum != 0)
        }
    }
}

extension Int {
    /// `100k`, `1M`, or the number itself.
    var abbreviated: String {
        if self >= 1_000_000 && self % 1_000_000 == 0 { return "\(self / 1_000_000)M" }
        if self >= 1_000 && self % 1_000 == 0 { return "\(self / 1_000)k" }
        return "\(self)"
    }
}
