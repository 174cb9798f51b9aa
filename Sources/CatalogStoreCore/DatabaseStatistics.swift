/// What an operator's metrics (`GET /metrics`) show of a database's connections at one moment.
/// A figure a backend does not have is nil and left out of the metrics: SQLite's store has no
/// connection pool to wait for and hears of other processes' writes without notifications.
public struct DatabaseStatistics: Sendable, Equatable {
    /// Pooled connections running an operation now.
    public var connectionsInUse: Int?
    /// Operations waiting for a pooled connection now.
    public var connectionsWaiting: Int?
    /// Notifications of other instances' writes heard since the store opened.
    public var notificationsReceived: Int?

    public init(connectionsInUse: Int? = nil, connectionsWaiting: Int? = nil, notificationsReceived: Int? = nil) {
        self.connectionsInUse = connectionsInUse
        self.connectionsWaiting = connectionsWaiting
        self.notificationsReceived = notificationsReceived
    }
}
