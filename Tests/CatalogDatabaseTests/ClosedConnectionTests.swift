@testable import CatalogPostgres
import CatalogTestSupport
import PostgresNIO
import Testing

/// A statement sent on a connection already closed is never answered by postgres-nio (it drops
/// the statement without failing it); the store's operations run behind a guard that answers
/// such a wait with ``ConnectionClosed`` (a 503 over HTTP) instead.
@Suite struct ClosedConnectionTests {
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"), .timeLimit(.minutes(1)))
    func aStatementOnAClosedConnectionFailsInsteadOfWaiting() async throws {
        let location = try PostgresLocation(url: TestPostgres.url!)
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(),
                                                              id: 1, logger: TestPostgres.logger)
        try await connection.close()
        await #expect(throws: ConnectionClosed.self) {
            try await abandonedOnceClosed(connection) { connection in
                for try await _ in try await connection.query("SELECT 1", logger: TestPostgres.logger) {}
            }
        }
    }

    /// On an open connection the guard is not in the way: the answer, and then the close of the
    /// connection abandons nothing that already ended.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"), .timeLimit(.minutes(1)))
    func anOpenConnectionAnswersThroughTheGuard() async throws {
        let location = try PostgresLocation(url: TestPostgres.url!)
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(),
                                                              id: 1, logger: TestPostgres.logger)
        let answer = try await abandonedOnceClosed(connection) { connection in
            var answer = 0
            for try await value in try await connection.query("SELECT 41 + 1", logger: TestPostgres.logger).decode(Int.self) { answer = value }
            return answer
        }
        #expect(answer == 42)
        try await connection.close()
    }

    /// A connection that closes abandons its own operations, not those of a connection opened
    /// after it at the same address: the memory of a connection freed is soon another's.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"), .timeLimit(.minutes(2)))
    func aConnectionAtAClosedOnesAddressIsNotAbandonedByThatClose() async throws {
        let location = try PostgresLocation(url: TestPostgres.url!)
        func connect() async throws -> PostgresConnection {
            try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 1, logger: TestPostgres.logger)
        }
        var reused = 0
        for _ in 0..<20 where reused < 3 {
            let address: UInt
            do {
                let closing = try await connect()
                try await abandonedOnceClosed(closing) { connection in
                    for try await _ in try await connection.query("SELECT 1", logger: TestPostgres.logger) {}
                }
                address = UInt(bitPattern: ObjectIdentifier(closing))
                try await closing.close()
            }
            // Within the second before the close abandons what its connection runs: connections
            // opened until one is where the closed one was, which then runs past that second.
            for _ in 0..<8 {
                let opened = try await connect()
                if UInt(bitPattern: ObjectIdentifier(opened)) == address {
                    reused += 1
                    let answer = try await abandonedOnceClosed(opened) { connection in
                        var answer = 0
                        for try await value in try await connection.query("SELECT 1 FROM pg_sleep(1.5)", logger: TestPostgres.logger)
                            .decode(Int.self) { answer = value }
                        return answer
                    }
                    #expect(answer == 1)
                }
                try await opened.close()
            }
        }
    }
}
