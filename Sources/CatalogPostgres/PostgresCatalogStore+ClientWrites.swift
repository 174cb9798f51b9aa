import CatalogModel
import CatalogStoreCore
import PostgresNIO

extension PostgresCatalogStore {
    /// Applies a client's numbered write in one transaction with the record of its number and
    /// `answer(result)` (see ``CatalogStore/apply(_:to:as:answer:)``). The client's row is locked
    /// first, so two instances given the same write at once apply it once: the second waits for
    /// the first's commit and then finds the number taken.
    public func apply(_ batch: Batch, to catalog: String, as write: ClientWrite,
                      answer: @escaping @Sendable (WriteResult) -> RecordedAnswer) async throws(StoreError) -> ClientWriteOutcome {
        let (batch, name, logger) = (batch.canonicalized(), Identifier.canonical(catalog), self.logger)
        let fingerprint = ClientWrite.fingerprint(of: batch)
        do {
            let (result, given) = try await transaction { connection in
                try write.check(last: try await Self.lastSequence(of: write.client, on: connection, logger: logger, locking: true))
                let result = try await Self.write(batch, to: name, on: connection, logger: logger)
                var given = answer(result)
                given.fingerprint = fingerprint
                try await Self.record(write, answer: given, landing: result, on: connection, logger: logger)
                return (result, given)
            }
            didWrite(result)
            return .applied(result, answer: given)
        } catch {
            guard write.isResend(refusedWith: error) else { throw error }
            let recorded = try await withConnection { connection in
                try await Self.answer(to: write, on: connection, logger: logger)
            }
            if let recorded { return try write.replay(recorded, fingerprint: fingerprint) }
            throw error
        }
    }

    /// Records the answer to a client's numbered write refused for good, when its number is the
    /// next one (see ``CatalogStore/recordRefusal(_:to:)``).
    public func recordRefusal(_ answer: RecordedAnswer, to write: ClientWrite) async throws(StoreError) {
        let logger = self.logger
        try await transaction { connection in
            guard write.follows(try await Self.lastSequence(of: write.client, on: connection, logger: logger, locking: true)) else { return }
            try await Self.record(write, answer: answer, landing: nil, on: connection, logger: logger)
        }
    }

    /// What the database knows of `client`'s numbered writes now; nil when it has no record.
    public func clientPosition(of client: String) async throws(StoreError) -> ClientPosition? {
        let logger = self.logger
        return try await withConnection { connection in
            let rows = try await connection.query("SELECT sequence, catalog, revision FROM client_write WHERE client = \(client)", logger: logger)
            for try await (sequence, catalog, revision) in rows.decode((Int64, String?, Int64?).self) {
                return ClientPosition(lastSequence: Int(sequence), catalog: catalog, revision: revision.map(Int.init))
            }
            return nil
        }
    }

    /// The client's last recorded number (0: none), its row locked with `locking` until the
    /// transaction ends.
    static func lastSequence(of client: String, on connection: PostgresConnection, logger: Logger, locking: Bool) async throws -> Int {
        let rows = locking
            ? try await connection.query("SELECT sequence FROM client_write WHERE client = \(client) FOR UPDATE", logger: logger)
            : try await connection.query("SELECT sequence FROM client_write WHERE client = \(client)", logger: logger)
        for try await sequence in rows.decode(Int64.self) { return Int(sequence) }
        return 0
    }

    /// Records `write` as the client's last, only over the number before it, with its answer (the
    /// first write of a request drops the answers to the request before): a client's first write
    /// inserted by two transactions at once is recorded by one, and the other fails.
    /// `landing`: the applied write's result, whose catalogue and revision the row keeps (see
    /// ``ClientPosition``; a refusal keeps those of the write before).
    static func record(_ write: ClientWrite, answer: RecordedAnswer, landing: WriteResult?, on connection: PostgresConnection,
                       logger: Logger) async throws {
        let sequence = Int64(write.sequence), status = Int32(answer.status)
        let rows = if let landing {
            try await connection.query("""
                INSERT INTO client_write (client, sequence, catalog, revision)
                VALUES (\(write.client), \(sequence), \(landing.catalog), \(Int64(landing.revision)))
                ON CONFLICT (client) DO UPDATE SET sequence = excluded.sequence, catalog = excluded.catalog, revision = excluded.revision
                WHERE client_write.sequence = excluded.sequence - 1
                RETURNING 1
                """, logger: logger)
        } else {
            try await connection.query("""
                INSERT INTO client_write (client, sequence, revision) VALUES (\(write.client), \(sequence), 0)
                ON CONFLICT (client) DO UPDATE SET sequence = excluded.sequence
                WHERE client_write.sequence = excluded.sequence - 1
                RETURNING 1
                """, logger: logger)
        }
        var count = 0
        for try await _ in rows { count += 1 }
        guard count == 1 else {
            throw StoreError.outOfSequence(client: write.client, sequence: write.sequence,
                                           expected: try await lastSequence(of: write.client, on: connection, logger: logger, locking: false) + 1)
        }
        if write.sequence == write.requestStart {
            try await connection.query("DELETE FROM client_answer WHERE client = \(write.client) AND sequence < \(sequence - Int64(ClientWrite.answersKept))",
                                       logger: logger)
        }
        try await connection.query("""
            INSERT INTO client_answer (client, sequence, status, answer, fingerprint)
            VALUES (\(write.client), \(sequence), \(status), \(answer.body), \(answer.fingerprint))
            ON CONFLICT (client, sequence) DO UPDATE SET status = excluded.status, answer = excluded.answer, fingerprint = excluded.fingerprint
            """, logger: logger)
    }

    /// The answer recorded for `write`, while it is kept (a write of the client's last request).
    static func answer(to write: ClientWrite, on connection: PostgresConnection, logger: Logger) async throws -> RecordedAnswer? {
        let rows = try await connection.query("""
            SELECT status, answer, fingerprint FROM client_answer WHERE client = \(write.client) AND sequence = \(Int64(write.sequence))
            """, logger: logger)
        for try await (status, body, fingerprint) in rows.decode((Int32, String, String?).self) {
            return RecordedAnswer(status: Int(status), body: body, fingerprint: fingerprint)
        }
        return nil
    }
}
