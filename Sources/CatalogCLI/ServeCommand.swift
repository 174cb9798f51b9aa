import ArgumentParser
import CatalogImport
import CatalogServer
import CatalogStore
import Foundation
import Logging
import struct NIOSSL.TLSConfiguration

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (docs/HTTP-API.md) for the database until SIGINT or SIGTERM.",
        discussion: """
            Endpoints: \(CatalogServer.routes.joined(separator: ", ")). Errors are application/problem+json; \
            GET /openapi.json describes every route. With --token (or CATALOG_TOKEN), --token-file or \
            --jwt-key, each route needs a credential of its scope (read, write, admin) as \
            Authorization: Bearer <token or JWT>; reads need one only with --protect-reads. Requests \
            for a Host other than a loopback name, an IP address or an --allowed-host get 421; \
            writes from a web page of another origin than the server's (or an --allowed-origin) get 403. \
            SIGHUP reads the token file again.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "A token that may do everything (scope admin), presented as Authorization: Bearer <token> (default: $CATALOG_TOKEN).")
    var token: String?

    @Option(help: ArgumentHelp("A file of named tokens, stored as SHA-256 hashes, each with its scope and catalogues (`catalog token` makes a line); read again on SIGHUP.", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("A PEM file of public keys (ES256, RS256 or EdDSA) whose signed JWTs are accepted, their scope claim among catalogs:read, catalogs:write, catalogs:admin (repeatable).", valueName: "file"))
    var jwtKey: [String] = []

    @Option(help: "With --jwt-key: the aud a JWT must name.")
    var jwtAudience: String?

    @Flag(help: "With credentials, require one (scope read) for reads too.")
    var protectReads = false

    @Option(help: ArgumentHelp("A PEM certificate chain: with --tls-key, the server speaks HTTPS only.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(help: ArgumentHelp("A host name answered besides loopback names and IP addresses, as the Host a proxy or a public name sends; * for any (repeatable).", valueName: "name"))
    var allowedHost: [String] = []

    @Option(help: ArgumentHelp("An origin (https://console.example.com) whose web pages may call this server and read its answers (CORS; repeatable).", valueName: "origin"))
    var allowedOrigin: [String] = []

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
        for name in allowedHost {
            if let problem = BrowserPolicy.problem(withHost: name) { throw CLIError("--allowed-host: \(problem)") }
        }
        for origin in allowedOrigin {
            if let problem = BrowserPolicy.problem(withOrigin: origin) { throw CLIError("--allowed-origin: \(problem)") }
        }
        if jwtAudience != nil && jwtKey.isEmpty { throw CLIError("--jwt-audience needs --jwt-key") }
        var tls: TLSConfiguration? = nil
        switch (tlsCert, tlsKey) {
        case (nil, nil): break
        case (let cert?, let key?):
            do { tls = try ServerConfiguration.tlsConfiguration(certificateFile: cert, keyFile: key) } catch {
                throw CLIError("--tls-cert/--tls-key: \(error)")
            }
        default: throw CLIError("--tls-cert and --tls-key go together")
        }
        let credentials = try self.credentials(token: token)
        let store = try global.openDatabase(.create, connections: databaseConnections)
        if let journalRevisions { try waitFor { try await store.setJournalRevisions(journalRevisions) } }
        try serve(store, credentials: credentials, tls: tls, maxEventStreams: maxEventStreams)
    }

    /// The credentials of --token, --token-file and --jwt-key, read now: a file that does not
    /// parse stops the server before it listens.
    private func credentials(token: String?) throws -> ServerCredentials {
        var pems: [(file: String, text: String)] = []
        for file in jwtKey {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw CLIError("--jwt-key \(file): \(FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file")")
            }
            pems.append((file, text))
        }
        let (audience, keys) = (jwtAudience, pems)
        let jwt: JWTVerifier?
        do {
            jwt = keys.isEmpty ? nil : try waitFor { try await JWTVerifier(pems: keys, audience: audience) }
        } catch let error as JWTKeyError {
            throw CLIError("--jwt-key \(error)")
        }
        do {
            return try ServerCredentials(token: token, tokenFile: tokenFile, jwt: jwt)
        } catch {
            throw CLIError("--token-file \(tokenFile ?? ""): \(error)")
        }
    }

    /// Runs the server on `store` until SIGINT or SIGTERM; SIGHUP reads the token file again.
    private func serve<Store: CatalogDatabase>(_ store: Store, credentials: ServerCredentials, tls: TLSConfiguration?, maxEventStreams: Int) throws {
        LoggingSystem.bootstrap(ServerLogHandler.standardError)
        var logger = Logger(label: "catalog.serve")
        logger.logLevel = logLevel
        let host = self.host
        let reloads = credentials.tokenFilePath.map { path in Self.reloadingOnHangUp(credentials, path: path, logger: logger) }
        defer { reloads?.cancel() }
        let app = CatalogServer.application(
            store: store,
            configuration: ServerConfiguration(host: host, port: port, bodyLimit: bodyLimit, credentials: credentials, protectReads: protectReads,
                                               browser: BrowserPolicy(allowedHosts: allowedHost, allowedOrigins: allowedOrigin), tls: tls,
                                               headTimeout: headTimeout, bodyTimeout: bodyTimeout, maxConnections: maxConnections,
                                               limits: DocumentLimits(maxItems: maxItems, maxSections: maxSections),
                                               maxLayoutElements: maxLayoutElements, keepAlive: keepAlive, stallTimeout: stallTimeout,
                                               maxEventStreams: maxEventStreams, maxEventStreamsPerClient: maxEventStreamsPerClient),
            logger: logger,
            onServerRunning: { port in
                // Straight to the file descriptor: scripts wait for this line, and stdout may be a pipe.
                let scheme = tls == nil ? "http" : "https"
                FileHandle.standardOutput.write(Data("catalog serve: listening on \(scheme)://\(host):\(port) (database \(store.location)); the console: \(scheme)://\(host):\(port)/\n".utf8))
            })
        // The server runs on its own event loops; this thread waits until it has shut down.
        do {
            try waitFor { try await app.runService() }
        } catch {
            throw CLIError("the server stopped: \(error)")
        }
    }
}

extension ServeCommand {
    /// A signal source that reads the token file again on each SIGHUP: the new tokens replace the
    /// old, or, when the file does not parse, the old stay in force and the log says why.
    static func reloadingOnHangUp(_ credentials: ServerCredentials, path: String, logger: Logger) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            do {
                let count = try credentials.reloadTokenFile()
                logger.notice("SIGHUP: \(path): \(count) token\(count == 1 ? "" : "s") in force")
            } catch {
                logger.error("SIGHUP: \(path): \(error); the tokens read before stay in force")
            }
        }
        source.resume()
        return source
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
