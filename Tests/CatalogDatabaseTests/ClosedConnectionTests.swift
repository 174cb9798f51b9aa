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
}
