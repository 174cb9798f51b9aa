import ArgumentParser
import CatalogServer
import CatalogStore
import Foundation
import Logging

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (SPEC §8) for the database until SIGINT or SIGTERM.",
        discussion: """
            Endpoints: GET /catalogs, GET|PUT /catalogs/{name}, POST /catalogs/{name}/batches, \
            POST /catalogs/{name}/moves, GET /catalogs/{name}/changes?since=REV, \
            GET /catalogs/{name}/layout?config=…&width=…&height=…. Errors are application/problem+json. \
            With --token (or CATALOG_TOKEN) writes need Authorization: Bearer <token>.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "A token that writes must present as Authorization: Bearer <token> (default: $CATALOG_TOKEN).")
    var token: String?

    @Flag(help: "With a token, require it for reads too.")
    var protectReads = false

    @Option(help: "The largest request body accepted, in bytes.")
    var bodyLimit = 16 << 20

    @Option(help: "The least severe log messages printed: trace, debug, info (one line per request), notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openStore()
        let token = self.token ?? ProcessInfo.processInfo.environment["CATALOG_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        LoggingSystem.bootstrap(ServerLogHandler.standardError)
        var logger = Logger(label: "catalog.serve")
        logger.logLevel = logLevel
        let host = self.host
        let app = CatalogServer.application(
            store: store,
            configuration: ServerConfiguration(host: host, port: port, bodyLimit: bodyLimit, token: token, protectReads: protectReads),
            logger: logger,
            onServerRunning: { port in
                // Straight to the file descriptor: scripts wait for this line, and stdout may be a pipe.
                FileHandle.standardOutput.write(Data("catalog serve: listening on http://\(host):\(port) (database \(store.path))\n".utf8))
            })
        // The server runs on its own event loops; this thread waits until it has shut down.
        let finished = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Task {
            do {
                try await app.runService()
            } catch {
                failure.error = error
            }
            finished.signal()
        }
        finished.wait()
        if let error = failure.error { throw CLIError("the server stopped: \(error)") }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Carries the server's error from its task to the waiting thread.
private final class FailureBox: @unchecked Sendable {
    var error: (any Error)?
}
