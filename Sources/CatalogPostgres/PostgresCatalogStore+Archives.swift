import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// The catalogue named `name` with its journal, read from one snapshot of the database.
    public func archive(of name: String) async throws(StoreError) -> CatalogArchive {
        let (name, logger) = (Identifier.canonical(name), self.logger)
        return try await snapshotRead { connection in
            guard let (pk, catalog) = try await Self.loadCatalog(named: name, on: connection, logger: logger) else {
                throw StoreError.unknownCatalog(name)
            }
            var journal: [CatalogArchive.JournalEntry] = []
            for try await (revision, patch) in try await connection.query(
                "SELECT revision, patch FROM journal WHERE catalog_pk = \(pk) ORDER BY revision", logger: logger).decode((Int64, String).self) {
                journal.append(CatalogArchive.JournalEntry(revision: Int(revision), patch: patch))
            }
            return CatalogArchive(catalog: catalog, journal: StoreRules.contiguousTail(journal, endingAt: catalog.revision))
        }
    }

    /// The deleted catalogues' last revisions, by name.
    public func retiredCatalogs() async throws(StoreError) -> [String: Int] {
        let logger = self.logger
        return try await withConnection { connection in
            var retired: [String: Int] = [:]
            for try await (name, revision) in try await connection.query("SELECT name, revision FROM retired_catalog", logger: logger)
                .decode((String, Int64).self) { retired[name] = Int(revision) }
            return retired
        }
    }

    /// The database's identity (see ``CatalogDatabase/identity()``).
    public func identity() async throws(StoreError) -> String {
        let logger = self.logger
        return try await withConnection { connection in
            for try await id in try await connection.query("SELECT id FROM database_identity LIMIT 1", logger: logger).decode(String.self) {
                return id
            }
            return ""
        }
    }

    /// Takes `identity` as the database's own (see ``CatalogDatabase/adoptIdentity(_:)``).
    public func adoptIdentity(_ identity: String) async throws(StoreError) {
        let logger = self.logger
        try await transaction { connection in
            try await connection.query("DELETE FROM database_identity", logger: logger)
            try await connection.query("INSERT INTO database_identity (id) VALUES (\(identity))", logger: logger)
        }
    }

    /// Every client's record of numbered writes (see ``CatalogDatabase/clientRecords()``).
    public func clientRecords() async throws(StoreError) -> [ClientRecord] {
        let logger = self.logger
        return try await withConnection { connection in
            var records: [String: ClientRecord] = [:]
            for try await (client, sequence, catalog, revision) in try await connection.query(
                "SELECT client, sequence, catalog, revision FROM client_write", logger: logger).decode((String, Int64, String?, Int64?).self) {
                records[client] = ClientRecord(client: client, lastSequence: Int(sequence), answers: [:], catalog: catalog, revision: revision.map(Int.init))
            }
            for try await (client, sequence, status, body, fingerprint) in try await connection.query(
                "SELECT client, sequence, status, answer, fingerprint FROM client_answer", logger: logger)
                .decode((String, Int64, Int32, String, String?).self) {
                records[client]?.answers[Int(sequence)] = RecordedAnswer(status: Int(status), body: body, fingerprint: fingerprint)
            }
            return records.values.sorted { $0.client < $1.client }
        }
    }

    /// Writes `archives` as they are (see ``CatalogDatabase/restore(_:retired:clients:replacing:)``).
    public func restore(_ archives: [CatalogArchive], retired: [String: Int], clients: [ClientRecord],
                        replacing: Bool) async throws(StoreError) {
        var checked: [CatalogArchive] = []
        for archive in archives { checked.append(try archive.validated()) }
        let records = try clients.map { record throws(StoreError) in try record.validated() }
        try StoreRules.checkDistinctNames(checked.map { ($0.catalog, nil) })
        let ordered = checked.sorted { Array($0.catalog.name.utf8).lexicographicallyPrecedes($1.catalog.name.utf8) }
        let logger = self.logger
        try await transaction { connection in
            for archive in ordered {
                let name = archive.catalog.name
                if let (pk, _) = try await Self.catalogRow(named: name, on: connection, logger: logger, locking: true) {
                    guard replacing else { throw StoreError.catalogExists(name) }
                    try await connection.query("DELETE FROM catalog WHERE pk = \(pk)", logger: logger)
                }
                var pk: Int64?
                for try await value in try await connection.query("""
                    INSERT INTO catalog (name, revision) VALUES (\(name), \(Int64(archive.catalog.revision))) RETURNING pk
                    """, logger: logger).decode(Int64.self) { pk = value }
                guard let pk else { throw StoreError.database("the catalogue \(name) was not inserted") }
                try await Self.insertContent(of: archive.catalog, catalogPK: pk, on: connection, logger: logger) { _ in }
                if !archive.journal.isEmpty {
                    var rows = JSONRecords()
                    for entry in archive.journal {
                        rows.append { row in
                            row.integer("revision", entry.revision)
                            row.text("patch", entry.patch)
                        }
                    }
                    try await connection.query("""
                        INSERT INTO journal (catalog_pk, revision, patch)
                        SELECT \(pk), r.revision, r.patch FROM json_to_recordset(\(rows.document)::json) AS r(revision BIGINT, patch TEXT)
                        """, logger: logger)
                }
                try await Self.verify(sections: nil, catalog: name, catalogPK: pk, checkOrder: true, on: connection, logger: logger)
                try await connection.query("""
                    SELECT pg_notify(\(Self.channel), \(Self.payload(name: name, revision: archive.catalog.revision)))
                    """, logger: logger)
            }
            for (name, revision) in retired.sorted(by: { $0.key < $1.key }) {
                let name = Identifier.canonical(name)
                try await connection.query("""
                    INSERT INTO retired_catalog (name, revision)
                    SELECT \(name), \(Int64(revision)) WHERE NOT EXISTS (SELECT 1 FROM catalog WHERE name = \(name))
                    ON CONFLICT (name) DO UPDATE SET revision = greatest(retired_catalog.revision, excluded.revision)
                    """, logger: logger)
            }
            for record in records.sorted(by: { $0.client < $1.client }) {
                // Taken unless the database has a number as new or newer.
                let sequence = Int64(record.lastSequence)
                let taken = try await connection.query("""
                    INSERT INTO client_write (client, sequence, catalog, revision)
                    VALUES (\(record.client), \(sequence), \(record.catalog), \(record.revision.map(Int64.init)))
                    ON CONFLICT (client) DO UPDATE SET sequence = excluded.sequence, catalog = excluded.catalog, revision = excluded.revision
                    WHERE client_write.sequence < excluded.sequence
                    RETURNING 1
                    """, logger: logger)
                var count = 0
                for try await _ in taken { count += 1 }
                guard count == 1 else { continue }
                try await connection.query("DELETE FROM client_answer WHERE client = \(record.client)", logger: logger)
                for (number, answer) in record.answers.sorted(by: { $0.key < $1.key }) {
                    try await connection.query("""
                        INSERT INTO client_answer (client, sequence, status, answer, fingerprint)
                        VALUES (\(record.client), \(Int64(number)), \(Int32(answer.status)), \(answer.body), \(answer.fingerprint))
                        """, logger: logger)
                }
            }
        }
        notifier.didCommit(checked.map { ($0.catalog.name, $0.catalog.revision) })
        await refreshStatistics(afterWriting: checked.reduce(0) { $0 + $1.catalog.itemCount + $1.catalog.sections.count })
    }
}
