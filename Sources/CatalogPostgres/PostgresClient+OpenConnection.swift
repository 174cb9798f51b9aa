import Foundation
import PostgresNIO

extension PostgresClient {
    /// Runs `body` on a pooled connection that is still open. A statement sent on a connection
    /// the server has closed is never answered (postgres-nio drops it without failing it), so:
    /// the pool, which learns of a close only after the connection does and may lease it in
    /// between, is asked again for such a connection; and `body`, if it is still waiting a
    /// second after its connection closed, is left waiting and ``ConnectionClosed`` thrown.
    func withOpenConnection<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        var closedLeases = 0
        while true {
            do {
                return try await withConnection { connection in
                    guard !connection.isClosed else { throw ClosedLease() }
                    return try await abandonedOnceClosed(connection, body)
                }
            } catch is ClosedLease {
                closedLeases += 1
                // The pool hears of the close on the connection's event loop: a moment later.
                try await Task.sleep(for: .milliseconds(min(closedLeases, 50)))
            }
        }
    }

    private struct ClosedLease: Error {}
}

/// `body` on `connection`, or ``ConnectionClosed`` once the connection has been closed for a
/// second, whichever comes first.
func abandonedOnceClosed<Result: Sendable>(_ connection: PostgresConnection,
                                           _ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
    var watch = 0
    defer { ClosingConnections.shared.end(watch, on: connection) }
    return try await abandonable({ try await body(connection) }) { abandon in
        watch = ClosingConnections.shared.watch(connection) { abandon(ConnectionClosed()) }
    }
}

/// The server closed the connection an operation was waiting on.
struct ConnectionClosed: Error {}

/// The operations running on each pooled connection, abandoned a second after it closes: one
/// close callback a connection, however many operations it runs.
///
/// An entry holds its connection until it is removed, so that no other connection can be
/// allocated at its address meanwhile: keyed by the address alone, a connection opened during
/// the second after another closed could take over that one's entry, and its operations would
/// be abandoned by the other's close.
final class ClosingConnections: @unchecked Sendable {
    static let shared = ClosingConnections()

    private struct Watched {
        let connection: PostgresConnection
        var abandons: [Int: @Sendable () -> Void] = [:]
    }

    private let lock = NSLock()
    private var watched: [ObjectIdentifier: Watched] = [:]
    private var next = 0

    /// Calls `abandon` a second after `connection` closes, unless ``end(_:on:)`` came first.
    func watch(_ connection: PostgresConnection, abandon: @escaping @Sendable () -> Void) -> Int {
        let key = ObjectIdentifier(connection)
        let (id, first) = lock.withLock { () -> (Int, Bool) in
            next += 1
            let first = watched[key] == nil
            if first { watched[key] = Watched(connection: connection) }
            watched[key]!.abandons[next] = abandon
            return (next, first)
        }
        if first {
            connection.closeFuture.whenComplete { _ in
                connection.eventLoop.scheduleTask(in: .seconds(1)) {
                    let abandoned = self.lock.withLock { self.watched.removeValue(forKey: key)?.abandons } ?? [:]
                    for abandon in abandoned.values { abandon() }
                }
            }
        }
        return id
    }

    func end(_ id: Int, on connection: PostgresConnection) {
        lock.withLock { _ = watched[ObjectIdentifier(connection)]?.abandons.removeValue(forKey: id) }
    }
}
