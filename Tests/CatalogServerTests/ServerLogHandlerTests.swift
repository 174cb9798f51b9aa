@testable import CatalogServer
import Logging
import Testing

/// The server's log lines: `StreamLogHandler`'s format, metadata formatted only when written.
@Suite("Server log lines")
struct ServerLogHandlerTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "shelf is full" }
    }

    @Test("a line holds the level, label, metadata by key (handler, provider, event, error), source and message")
    func lineFormat() {
        var handler = ServerLogHandler(label: "catalog.serve")
        handler[metadataKey: "hb.request.id"] = "7"
        handler[metadataKey: "shared"] = "handler"
        handler.metadataProvider = Logger.MetadataProvider { ["provided": "yes", "shared": "provider"] }
        let event = LogEvent(level: .warning, message: "Request", error: Refused(),
                             metadata: ["shared": "event"], source: "Hummingbird",
                             file: #fileID, function: #function, line: #line)
        #expect(handler.line(for: event, at: "2026-11-22T14:11:00+0000") == """
            2026-11-22T14:11:00+0000 warning catalog.serve: error.message=shelf is full \
            error.type=CatalogServerTests.ServerLogHandlerTests.Refused hb.request.id=7 provided=yes \
            shared=event [Hummingbird] Request

            """)
        // Without an error or metadata of its own, only the handler's.
        let plain = LogEvent(level: .info, message: "Started", metadata: nil, source: "catalog",
                             file: #fileID, function: #function, line: #line)
        handler.metadataProvider = nil
        #expect(handler.line(for: plain, at: "T") == "T info catalog.serve: hb.request.id=7 shared=handler [catalog] Started\n")
    }
}
