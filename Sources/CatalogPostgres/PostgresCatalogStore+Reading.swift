import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// Every catalogue, by name (in the bytes' order, as SQLite's store lists them).
    public func summaries() async throws(StoreError) -> [CatalogSummary] {
        let logger = self.logger
        return try await withConnection { connection in
            var result: [CatalogSummary] = []
            let rows = try await connection.query("""
                SELECT name, revision,
                       (SELECT count(*) FROM section WHERE catalog_pk = catalog.pk),
                       (SELECT count(*) FROM item WHERE catalog_pk = catalog.pk)
                FROM catalog ORDER BY name COLLATE "C"
                """, logger: logger)
            for try await (name, revision, sections, items) in rows.decode((String, Int64, Int64, Int64).self) {
                result.append(CatalogSummary(name: name, revision: Int(revision), sections: Int(sections), items: Int(items)))
            }
            return result
        }
    }

    /// The catalogue's current revision: one statement.
    public func revision(of name: String) async throws(StoreError) -> Int {
        let (name, logger) = (Identifier.canonical(name), self.logger)
        let revision = try await withConnection { connection in
            try await Self.catalogRow(named: name, on: connection, logger: logger)?.revision
        }
        guard let revision else { throw .unknownCatalog(name) }
        return revision
    }

    /// The catalogue's current snapshot: kept from an earlier read of the same revision, brought
    /// forward from a kept earlier revision by reading the journal and the sections the writes
    /// in between changed, or read whole in one statement. Rows and revision always come from
    /// one snapshot of the database, so they agree.
    public func catalog(named name: String) async throws(StoreError) -> Catalog {
        try await catalog(named: Identifier.canonical(name), atLeast: nil)
    }

    /// The catalogue named `name` (canonical) at its current revision or, with `atLeast`, at any
    /// revision from `atLeast` on: the kept snapshot when it is one (after a one-statement read
    /// of the catalogue's row), else read in one snapshot of the database — the kept snapshot
    /// brought forward through the journal, or the whole catalogue.
    func catalog(named name: String, atLeast: Int?) async throws(StoreError) -> Catalog {
        let (logger, snapshots) = (self.logger, self.snapshots)
        let row = try await withConnection { connection in try await Self.catalogRow(named: name, on: connection, logger: logger) }
        guard let row else { throw .unknownCatalog(name) }
        if let kept = Self.kept(named: name, pk: row.pk, revision: row.revision, atLeast: atLeast, snapshots: snapshots) { return kept }
        if let (pk, kept) = snapshots.latest(named: name), pk == row.pk, Self.bringsForward(kept, to: row.revision) {
            return try await snapshotRead { connection in
                guard let (pk, revision) = try await Self.catalogRow(named: name, on: connection, logger: logger) else {
                    throw StoreError.unknownCatalog(name)
                }
                return try await Self.present(named: name, pk: pk, revision: revision, atLeast: atLeast, snapshots: snapshots,
                                              on: connection, logger: logger).0
            }
        }
        // Nothing kept to bring forward: one statement reads it whole.
        return try await withConnection { connection in
            try await Self.loadWhole(named: name, snapshots: snapshots, on: connection, logger: logger)
        }
    }

    /// The row key and revision of the catalogue named `name` (canonical), or nil.
    static func catalogRow(named name: String, on connection: PostgresConnection, logger: Logger,
                           locking: Bool = false) async throws -> (pk: Int64, revision: Int)? {
        let rows = try await connection.query(locking
            ? "SELECT pk, revision FROM catalog WHERE name = \(name) FOR UPDATE"
            : "SELECT pk, revision FROM catalog WHERE name = \(name)", logger: logger)
        for try await (pk, revision) in rows.decode((Int64, Int64).self) { return (pk, Int(revision)) }
        return nil
    }

    /// The whole catalogue as the statement's snapshot sees it, with its row key; nil when there
    /// is no catalogue of this name.
    static func loadCatalog(named name: String, on connection: PostgresConnection, logger: Logger) async throws -> (Int64, Catalog)? {
        let rows = try await connection.query("""
            SELECT c.pk, c.revision, s.pk, s.id, s.kind, s.title, s.capacity, \(unescaped: ItemRows.columns("i"))
            FROM catalog c
            LEFT JOIN section s ON s.catalog_pk = c.pk
            LEFT JOIN item i ON i.section_pk = s.pk
            WHERE c.name = \(name)
            ORDER BY s.position, i.position
            """, logger: logger)
        var catalogPK: Int64?
        var catalog = Catalog(name: name)
        var currentSection: Int64?
        for try await row in rows {
            let row = row.makeRandomAccess()
            if catalogPK == nil {
                catalogPK = try row[0].decode(Int64.self)
                catalog.revision = Int(try row[1].decode(Int64.self))
            }
            guard let sectionPK = try row[2].decode(Int64?.self) else { continue }
            if sectionPK != currentSection {
                currentSection = sectionPK
                catalog.sections.append(try section(row, at: 3))
            }
            if try row[7].decode(String?.self) != nil {
                catalog.sections[catalog.sections.count - 1].items.append(try ItemRows.item(row, at: 7))
            }
        }
        guard let catalogPK else { return nil }
        return (catalogPK, catalog)
    }

    /// A section without its items from the columns id, kind, title, capacity at `offset`.
    static func section(_ row: PostgresRandomAccessRow, at offset: Int) throws -> Section {
        let id = try row[offset].decode(String.self)
        let kindName = try row[offset + 1].decode(String.self)
        guard let kind = SectionKind(rawValue: kindName) else {
            throw StoreError.database("section \(id) has an unknown kind \(kindName)")
        }
        return Section(id: id, kind: kind, title: try row[offset + 2].decode(String?.self),
                       capacity: try row[offset + 3].decode(Int32?.self).map(Int.init))
    }
}
