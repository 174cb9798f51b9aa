import Foundation
import Logging

/// Log lines on standard error, in swift-log's `StreamLogHandler` format
/// (`2026-11-22T14:11:00+0000 info catalog.serve: hb.request.id=7 [Hummingbird] Request`).
///
/// Unlike `StreamLogHandler`, metadata is formatted when a line is written, not each time it is
/// set: the server sets a request id on every request's logger, and formatting it there cost a
/// few percent of a move's CPU time even when requests were not logged.
package struct ServerLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String

    /// A handler for `LoggingSystem.bootstrap`.
    package static func standardError(label: String) -> ServerLogHandler {
        ServerLogHandler(label: label)
    }

    init(label: String) {
        self.label = label
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        FileHandle.standardError.write(Data(line(for: event, at: Self.timestamp()).utf8))
    }

    /// The line written for `event`, stamped `timestamp`: metadata sorted by key (the handler's,
    /// the provider's, the event's, then an attached error as `error.message` and `error.type`,
    /// as `StreamLogHandler` shows it).
    func line(for event: LogEvent, at timestamp: String) -> String {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var text = "\(timestamp) \(event.level) \(label):"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            text += " \(key)=\(value)"
        }
        return text + " [\(event.source)] \(event.message)\n"
    }

    /// Local time to the second with its UTC offset, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
