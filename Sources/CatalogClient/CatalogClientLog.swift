import Foundation

/// Where a ``CatalogClient`` says what it does on its own: a connection tried again, a snapshot
/// taken instead of a resumed stream, writes sent again under a new client id. Nothing here needs
/// an answer (what an app must act on comes as a ``CatalogClientEvent`` or a thrown error); an app
/// forwards the entries to its own logging (`os.Logger`, swift-log) or drops them.
///
/// ```swift
/// let client = try CatalogClient(store: store, server: server, log: CatalogClientLog { entry in
///     logger.log(level: entry.level == .warning ? .error : .info, "\(entry.message)")
/// })
/// ```
public struct CatalogClientLog: Sendable {
    /// One thing the client did.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        public enum Level: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
            /// Expected on a network: a connection failed and is tried again.
            case info
            /// The server's state surprised the client, which mended it (a snapshot taken again,
            /// writes sent again): worth a look when it repeats.
            case warning

            public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
            public var description: String { self == .info ? "info" : "warning" }
        }

        public var level: Level
        public var message: String

        public init(level: Level, message: String) {
            self.level = level
            self.message = message
        }

        public var description: String { "CatalogClient \(level): \(message)" }
    }

    private let write: @Sendable (Entry) -> Void

    /// A log that hands each entry to `write`, on whichever task the client is running.
    public init(_ write: @escaping @Sendable (Entry) -> Void) {
        self.write = write
    }

    /// Each entry as one line on standard error: the default.
    public static let standardError = CatalogClientLog { entry in
        FileHandle.standardError.write(Data((entry.description + "\n").utf8))
    }

    /// No entry kept.
    public static let discarding = CatalogClientLog { _ in }

    func info(_ message: String) { write(Entry(level: .info, message: message)) }
    func warning(_ message: String) { write(Entry(level: .warning, message: message)) }
}
