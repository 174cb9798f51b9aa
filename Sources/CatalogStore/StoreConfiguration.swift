import CatalogStoreCore
import GRDB

/// How ``CatalogStore/init(path:configuration:)`` opens a database file: what an app on a phone
/// sets beside the server's defaults.
///
/// Every connection the store opens — its pool, its revision reader, the watch of other
/// processes' commits, the log checkpointer — is opened with the same hook and suspension setting,
/// so that an encrypted database is readable by each and a suspended app holds no lock on any.
///
/// ```swift
/// var configuration = StoreConfiguration()
/// configuration.pageCacheSize = 2 << 20                 // 2 MiB per connection
/// configuration.observesSuspensionNotifications = true  // a database in an App Group container
/// configuration.prepareDatabase = { db in try db.usePassphrase(key) }   // with SQLCipher
/// let store = try CatalogStore(path: url.path, configuration: configuration)
/// ```
public struct StoreConfiguration: Sendable {
    /// Open an existing database for reading only: the file is never written (no migration, no
    /// checkpoint), and every write throws ``/CatalogStoreCore/StoreError``. A database whose schema is not the
    /// current one is refused (``/CatalogStoreCore/StoreError/cannotOpen(path:reason:)``): open it for writing once.
    public var readOnly = false

    /// The page cache of each connection, in bytes (SQLite's `cache_size`). The default, 64 MiB,
    /// keeps the indexes of a 100k-item import in memory; SQLite's own default is 2 MiB, which
    /// suits a phone.
    public var pageCacheSize = 64 << 20

    /// Run first on every connection the store opens, before anything reads the file: where an
    /// encrypted database is given its key (with a SQLCipher build of SQLite,
    /// `try db.usePassphrase(key)`). A hook that throws fails the open with
    /// ``/CatalogStoreCore/StoreError/cannotOpen(path:reason:)``.
    public var prepareDatabase: (@Sendable (Database) throws -> Void)?

    /// Whether the store's connections obey GRDB's `Database.suspendNotification` and
    /// `Database.resumeNotification`: while suspended, a statement that would take a lock fails
    /// (a write throws ``/CatalogStoreCore/StoreError`` and changes nothing), so that an app that shares its database
    /// through an App Group container is not killed (`0xdead10cc`) for holding a lock as it is
    /// suspended. Post the notifications as the app goes to and comes back from the background.
    public var observesSuspensionNotifications = false

    public init() {}

    /// The hook and the suspension setting, for a connection of the store's own.
    func apply(to configuration: inout Configuration) {
        configuration.observesSuspensionNotifications = observesSuspensionNotifications
        if let prepareDatabase {
            configuration.prepareDatabase { db in try prepareDatabase(db) }
        }
    }
}
