import ArgumentParser
import CatalogImport
import CatalogServer
import CatalogStore
import Foundation
import Logging

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (docs/HTTP-API.md) for the database until SIGINT or SIGTERM.",
        discussion: """
            Endpoints: \(CatalogServer.routes.joined(separator: ", ")). Errors are application/problem+json; \
            GET /openapi.json describes every route. With --token (or CATALOG_TOKEN) writes need \
            Authorization: Bearer <token>.
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

    @Option(help: "Seconds a client has to send a request's head (from connecting, or from its last answer); slower connections are closed.")
    var headTimeout = 10.0

    @Option(help: "Seconds a client has to send a request's body once its head has arrived.")
    var bodyTimeout = 60.0

    @Option(help: "Seconds a client may leave the server's writes unread (an event stream it stopped reading) before it is disconnected.")
    var stallTimeout = 30.0

    @Option(help: "Seconds an event stream may stay silent before a keep-alive comment.")
    var keepAlive = 15.0

    @Option(help: "Connections served at once; more wait until one closes.")
    var maxConnections = 4_096

    @Option(help: "Event streams open at once, below --max-connections so that streams never take every connection (default: three quarters of --max-connections); past it a stream is refused with 503 and Retry-After.")
    var maxEventStreams: Int?

    @Option(help: "Event streams open at once from one client address; past it that address's streams are refused with 503.")
    var maxEventStreamsPerClient = 1_024

    @Option(help: "The most items an imported catalogue holds, or a batch inserts (with its operations).")
    var maxItems = DocumentLimits.requests.maxItems

    @Option(help: "The most sections an imported catalogue holds, or a batch inserts.")
    var maxSections = DocumentLimits.requests.maxSections

    @Option(help: "The most elements a layout answer holds; larger layouts are answered with visible=true only.")
    var maxLayoutElements = 20_000

    @Option(help: "How many revisions of each catalogue the journal keeps at least (stored in the database, so every process that writes it keeps as many; default \(CatalogStore.defaultJournalRevisions), or what the database was set to). Clients further behind get a reset.")
    var journalRevisions: Int?

    @Option(help: "With a postgres:// --db: the most connections to PostgreSQL at once (several instances share one server: keep their sum below its max_connections).")
    var databaseConnections = 20

    @Option(help: "The least severe log messages printed: trace, debug, info (one line per request), notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @OptionGroup var global: GlobalOptions

    func run() throws {
        // An empty token, from either place, is refused rather than read as "no token": a
        // deployment script whose secret came out empty must not start a server anyone can write to.
        let token = self.token ?? ProcessInfo.processInfo.environment["CATALOG_TOKEN"]
        if token?.isEmpty == true {
            throw CLIError("\(self.token != nil ? "--token" : "CATALOG_TOKEN") is empty: pass a token, or leave it out for a server without one")
        }
        for (name, value) in [("--head-timeout", headTimeout), ("--body-timeout", bodyTimeout),
                              ("--stall-timeout", stallTimeout), ("--keep-alive", keepAlive)] where !(value > 0 && value <= 86_400) {
            throw CLIError("\(name): expected a number of seconds from 0 (exclusive) to 86400, found \(value)")
        }
        guard maxConnections >= 2 && maxConnections <= 1_000_000 else {
            throw CLIError("--max-connections: expected a number from 2 to 1000000, found \(maxConnections)")
        }
        let maxEventStreams = self.maxEventStreams ?? ServerConfiguration.defaultMaxEventStreams(maxConnections: maxConnections)
        guard maxEventStreams >= 1 && maxEventStreams < maxConnections else {
            throw CLIError("--max-event-streams: expected a number from 1 to \(maxConnections - 1) (below --max-connections), found \(maxEventStreams)")
        }
        guard maxEventStreamsPerClient >= 1 && maxEventStreamsPerClient <= 1_000_000 else {
            throw CLIError("--max-event-streams-per-client: expected a number from 1 to 1000000, found \(maxEventStreamsPerClient)")
        }
        for (name, value) in [("--max-items", maxItems), ("--max-sections", maxSections), ("--max-layout-elements", maxLayoutElements)]
        where !(1...100_000_000).contains(value) {
            throw CLIError("\(name): expected a number from 1 to 100000000, found \(value)")
        }
        guard (1...10_000).contains(databaseConnections) else {
            throw CLIError("--database-connections: expected a number from 1 to 10000, found \(databaseConnections)")
        }
        guard bodyLimit >= 1 else { throw CLIError("--body-limit: expected a positive number of bytes, found \(bodyLimit)") }
        if let journalRevisions, !CatalogStore.journalRevisionsRange.contains(journalRevisions) {
            throw CLIError("--journal-revisions: expected a number from \(CatalogStore.journalRevisionsRange.lowerBound) to \(CatalogStore.journalRevisionsRange.upperBound), found \(journalRevisions)")
        }
        let store = try global.openDatabase(.create, connections: databaseConnections)
        if let journalRevisions { try waitFor { try await store.setJournalRevisions(journalRevisions) } }
        try serve(store, token: token, maxEventStreams: maxEventStreams)
    }

    /// Runs the server on `store` until SIGINT or SIGTERM.
    private func serve<Store: CatalogDatabase>(_ store: Store, token: String?, maxEventStreams: Int) throws {
        LoggingSystem.bootstrap(ServerLogHandler.standardError)
        var logger = Logger(label: "catalog.serve")
        logger.logLevel = logLevel
        let host = self.host
        let app = CatalogServer.application(
            store: store,
            configuration: ServerConfiguration(host: host, port: port, bodyLimit: bodyLimit, token: token, protectReads: protectReads,
                                               headTimeout: headTimeout, bodyTimeout: bodyTimeout, maxConnections: maxConnections,
                                               limits: DocumentLimits(maxItems: maxItems, maxSections: maxSections),
                                               maxLayoutElements: maxLayoutElements, keepAlive: keepAlive, stallTimeout: stallTimeout,
                                               maxEventStreams: maxEventStreams, maxEventStreamsPerClient: maxEventStreamsPerClient),
            logger: logger,
            onServerRunning: { port in
                // Straight to the file descriptor: scripts wait for this line, and stdout may be a pipe.
                FileHandle.standardOutput.write(Data("catalog serve: listening on http://\(host):\(port) (database \(store.location)); the console: http://\(host):\(port)/\n".utf8))
            })
        // The server runs on its own event loops; this thread waits until it has shut down.
        do {
            try waitFor { try await app.runService() }
        } catch {
            throw CLIError("the server stopped: \(error)")
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
