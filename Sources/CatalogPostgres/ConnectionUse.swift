import CatalogStoreCore
import Foundation

/// The store's own count of its pooled connections (operations holding one, operations waiting
/// for one) and of the notifications its listener heard: what `GET /metrics` shows of the pool.
/// Counted where the store leases, so the figures are exact for the store's operations.
final class ConnectionUse: @unchecked Sendable {
    private let lock = NSLock()
    private var inUse = 0
    private var waiting = 0
    private var notifications = 0

    /// An operation starts waiting for a connection.
    func wait() { lock.withLock { waiting += 1 } }
    /// The waiting operation got its connection.
    func lease() { lock.withLock { waiting -= 1; inUse += 1 } }
    /// The operation ended, holding a connection (`leased`) or still waiting for one.
    func end(leased: Bool) { lock.withLock { if leased { inUse -= 1 } else { waiting -= 1 } } }
    /// The listener heard a notification.
    func heard() { lock.withLock { notifications += 1 } }

    var statistics: DatabaseStatistics {
        lock.withLock { DatabaseStatistics(connectionsInUse: inUse, connectionsWaiting: waiting, notificationsReceived: notifications) }
    }
}
