import CatalogDiff
import CatalogModel
import CatalogStoreCore
import GRDB

extension CatalogStore {
    /// Applies a client's numbered write (``/CatalogStoreCore/ClientWrite``) in one transaction with the record of
    /// its number and `answer(result)`: both land, or neither does.
    ///
    /// - Returns: ``/CatalogStoreCore/ClientWriteOutcome/applied(_:answer:)``, or for a resend of a write of the
    ///   client's last request, ``/CatalogStoreCore/ClientWriteOutcome/answeredBefore(_:)`` with its recorded
    ///   answer (nothing is applied again).
    /// - Throws: ``/CatalogStoreCore/StoreError/outOfSequence(client:sequence:expected:)`` for any other number
    ///   but the next; ``/CatalogStoreCore/StoreError/numberTaken(client:sequence:)`` for a resend whose write is
    ///   not the one recorded under its number; the errors of `apply(_:to:)`, with nothing recorded.
    public func apply(_ batch: Batch, to catalog: String, as write: ClientWrite,
                      answer: @escaping @Sendable (WriteResult) -> RecordedAnswer) async throws(StoreError) -> ClientWriteOutcome {
        let batch = batch.canonicalized()
        let fingerprint = ClientWrite.fingerprint(of: batch)
        do throws(StoreError) {
            let edit = try await combinedWrite { db in
                try write.check(last: try ClientWriteRows.last(of: write.client, in: db))
                let result = try Self.write(batch, to: catalog, in: db)
                var given = answer(result)
                given.fingerprint = fingerprint
                try ClientWriteRows.record(write, answer: given, landing: result, in: db)
                return CombinedEdit(result, answer: given)
            }
            guard let given = edit.answer else { throw StoreError.database("a numbered write committed without its answer") }
            return .applied(edit.result, answer: given)
        } catch {
            guard write.isResend(refusedWith: error) else { throw error }
            if let recorded = try read({ db in try ClientWriteRows.answer(to: write, in: db) }) { return try write.replay(recorded, fingerprint: fingerprint) }
            throw error
        }
    }

    /// Records `answer` as the answer to a client's numbered write that was refused for good (a
    /// full shelf, an unknown id, a malformed body), so that the client's next number follows it
    /// and a resend gets the same refusal. Does nothing when the number is not the next one.
    public func recordRefusal(_ answer: RecordedAnswer, to write: ClientWrite) throws(StoreError) {
        try writeWithoutRevision { db in
            guard write.follows(try ClientWriteRows.last(of: write.client, in: db)) else { return }
            try ClientWriteRows.record(write, answer: answer, landing: nil, in: db)
        }
    }

    /// What the database knows of `client`'s numbered writes now; nil when it has no record.
    public func clientPosition(of client: String) throws(StoreError) -> ClientPosition? {
        try read { db in try ClientWriteRows.position(of: client, in: db) }
    }
}

/// The `client_write` rows (each client's last number) and the `client_answer` rows (the
/// answers to its last request), migrations 0008 and 0010.
enum ClientWriteRows {
    /// The client's last recorded number; 0 when none is.
    static func last(of client: String, in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT sequence FROM client_write WHERE client = ?"), arguments: [client]) ?? 0
    }

    /// Records `write` as the client's last, only over the number before it, with its answer;
    /// the first write of a request drops the answers before the client's last
    /// ``/CatalogStoreCore/ClientWrite/answersKept`` numbers.
    /// `landing`: the applied write's result, whose catalogue and revision the row keeps (a
    /// refusal keeps those of the write before; a first record that is a refusal has revision 0).
    static func record(_ write: ClientWrite, answer: RecordedAnswer, landing: WriteResult?, in db: Database) throws {
        if let landing {
            try db.cachedStatement(sql: """
                INSERT INTO client_write (client, sequence, catalog, revision) VALUES (?, ?, ?, ?)
                ON CONFLICT (client) DO UPDATE SET sequence = excluded.sequence, catalog = excluded.catalog, revision = excluded.revision
                WHERE client_write.sequence = excluded.sequence - 1
                """).execute(arguments: [write.client, write.sequence, landing.catalog, landing.revision])
        } else {
            try db.cachedStatement(sql: """
                INSERT INTO client_write (client, sequence, revision) VALUES (?, ?, 0)
                ON CONFLICT (client) DO UPDATE SET sequence = excluded.sequence
                WHERE client_write.sequence = excluded.sequence - 1
                """).execute(arguments: [write.client, write.sequence])
        }
        guard db.changesCount == 1 else {
            throw StoreError.outOfSequence(client: write.client, sequence: write.sequence, expected: try last(of: write.client, in: db) + 1)
        }
        if write.sequence == write.requestStart {
            try db.cachedStatement(sql: "DELETE FROM client_answer WHERE client = ? AND sequence < ?")
                .execute(arguments: [write.client, write.sequence - ClientWrite.answersKept])
        }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO client_answer (client, sequence, status, answer, fingerprint) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [write.client, write.sequence, answer.status, answer.body, answer.fingerprint])
    }

    /// Every client's record, by client id.
    static func records(in db: Database) throws -> [ClientRecord] {
        var records: [String: ClientRecord] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT client, sequence, catalog, revision FROM client_write") {
            records[row[0]] = ClientRecord(client: row[0], lastSequence: row[1], answers: [:], catalog: row[2], revision: row[3])
        }
        for row in try Row.fetchAll(db, sql: "SELECT client, sequence, status, answer, fingerprint FROM client_answer") {
            records[row[0]]?.answers[row[1]] = RecordedAnswer(status: row[2], body: row[3], fingerprint: row[4])
        }
        return records.values.sorted { $0.client < $1.client }
    }

    /// Takes `record` (``/CatalogStoreCore/ClientRecord/validated()``) as the client's, unless the database has a
    /// number as new or newer.
    static func restore(_ record: ClientRecord, in db: Database) throws {
        guard try last(of: record.client, in: db) < record.lastSequence else { return }
        try db.execute(sql: """
            INSERT INTO client_write (client, sequence, catalog, revision) VALUES (?, ?, ?, ?)
            ON CONFLICT (client) DO UPDATE SET sequence = excluded.sequence, catalog = excluded.catalog, revision = excluded.revision
            """, arguments: [record.client, record.lastSequence, record.catalog, record.revision])
        try db.execute(sql: "DELETE FROM client_answer WHERE client = ?", arguments: [record.client])
        for (sequence, answer) in record.answers.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "INSERT INTO client_answer (client, sequence, status, answer, fingerprint) VALUES (?, ?, ?, ?, ?)",
                           arguments: [record.client, sequence, answer.status, answer.body, answer.fingerprint])
        }
    }

    /// The client's number and last landing; nil when it has no record.
    static func position(of client: String, in db: Database) throws -> ClientPosition? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT sequence, catalog, revision FROM client_write WHERE client = ?"),
                                         arguments: [client]) else { return nil }
        return ClientPosition(lastSequence: row[0], catalog: row[1], revision: row[2])
    }

    /// The answer recorded for `write`, while it is kept (a write of the client's last request).
    static func answer(to write: ClientWrite, in db: Database) throws -> RecordedAnswer? {
        guard let row = try Row.fetchOne(db, sql: "SELECT status, answer, fingerprint FROM client_answer WHERE client = ? AND sequence = ?",
                                         arguments: [write.client, write.sequence]) else { return nil }
        return RecordedAnswer(status: row[0], body: row[1], fingerprint: row[2])
    }
}
