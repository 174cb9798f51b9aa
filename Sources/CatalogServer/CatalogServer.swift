import CatalogImport
import CatalogStore
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore

/// How `catalog serve` listens and whom it lets write.
package struct ServerConfiguration: Sendable {
    package var host: String
    package var port: Int
    /// Request bodies larger than this are refused with 413.
    package var bodyLimit: Int
    /// The credentials requests present (``ServerCredentials``): with any, each route needs the
    /// scope ``RouteAccess/table`` gives it (401 without a credential, 403 with too little).
    package var credentials: ServerCredentials
    /// With credentials, reads need `read` too.
    package var protectReads: Bool
    /// The `Host` names and browser origins answered (421 and 403 for others).
    package var browser: BrowserPolicy
    /// When set, the server speaks TLS only (``tlsConfiguration(certificateFile:keyFile:)``).
    package var tls: TLSConfiguration?
    /// Seconds a client has to send a whole request head, from connecting or from its last
    /// answer; a connection that takes longer (trickling headers, or idle) is closed.
    package var headTimeout: Double
    /// Seconds a client has to send the rest of a request once its head has arrived.
    package var bodyTimeout: Double
    /// Connections served at once; further ones wait in the listen queue until one closes.
    package var maxConnections: Int
    /// What an imported catalogue or a batch may hold (items, sections, nesting), checked while
    /// its body is parsed.
    package var limits: DocumentLimits
    /// The most elements a layout answer (attributes or picture) holds; a larger layout is
    /// answered only with `visible=true`.
    package var maxLayoutElements: Int
    /// Seconds an event stream may stay silent before a keep-alive comment.
    package var keepAlive: Double
    /// Seconds a client may leave the server's writes to it unread (an event stream it no longer
    /// reads) before it is disconnected; it catches up with `Last-Event-ID` when it returns.
    package var stallTimeout: Double
    /// Event streams open at once, in all (below ``maxConnections``, so that streams never take
    /// every connection) and from one client address; past either, a stream is refused with 503
    /// and `Retry-After`.
    package var maxEventStreams: Int
    package var maxEventStreamsPerClient: Int
    /// The threads layouts are drawn on (tests give a server its own, to hold them).
    var layoutWork = RouteLimits.layoutWork

    package init(host: String = "127.0.0.1", port: Int = 8080, bodyLimit: Int = 16 << 20,
                token: String? = nil, credentials: ServerCredentials? = nil, protectReads: Bool = false,
                browser: BrowserPolicy = BrowserPolicy(), tls: TLSConfiguration? = nil,
                headTimeout: Double = 10, bodyTimeout: Double = 60, maxConnections: Int = 4_096,
                limits: DocumentLimits = .requests, maxLayoutElements: Int = 20_000,
                keepAlive: Double = 15, stallTimeout: Double = 30,
                maxEventStreams: Int? = nil, maxEventStreamsPerClient: Int = 1_024) {
        self.host = host
        self.port = port
        self.bodyLimit = bodyLimit
        self.credentials = credentials ?? token.map { ServerCredentials(adminToken: $0) } ?? .none
        self.protectReads = protectReads
        self.browser = browser
        self.tls = tls
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = maxConnections
        self.limits = limits
        self.maxLayoutElements = maxLayoutElements
        self.keepAlive = keepAlive
        self.stallTimeout = stallTimeout
        self.maxEventStreams = maxEventStreams ?? Self.defaultMaxEventStreams(maxConnections: maxConnections)
        self.maxEventStreamsPerClient = maxEventStreamsPerClient
    }

    /// A server's TLS from a PEM certificate chain and its PEM private key; the error says which
    /// file and why.
    package static func tlsConfiguration(certificateFile: String, keyFile: String) throws(TLSFileError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificateFile) } catch {
            throw TLSFileError(file: certificateFile, reason: "is not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw TLSFileError(file: certificateFile, reason: "holds no certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyFile, format: .pem) } catch {
            throw TLSFileError(file: keyFile, reason: "is not a PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }

    /// Three quarters of the connections: a quarter stays for every other request.
    package static func defaultMaxEventStreams(maxConnections: Int) -> Int {
        max(1, maxConnections * 3 / 4)
    }
}

/// The HTTP API of docs/HTTP-API.md over a ``CatalogDatabase`` (SQLite's store, or PostgreSQL's
/// for several instances on one database): catalogues, snapshots with ETags, imports,
/// batches, moves, change feeds and layouts, with RFC 9457 problem documents for every error.
package enum CatalogServer {
    /// The application, ready to run (`try await app.runService()` stops on SIGINT or SIGTERM
    /// after the requests in flight, so no accepted write is lost).
    ///
    /// Each request is logged on one line at `info` through `logger`, whose level is read here: a
    /// logger above `info` logs no requests (and the server skips that step).
    /// `onServerRunning` receives the port the server listens on (useful with port 0);
    /// `extraRoutes` may add routes (benchmarks add a baseline).
    package static func application<Store: CatalogDatabase>(store: Store, configuration: ServerConfiguration,
                                   logger: Logger = Logger(label: "catalog.serve"),
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                                   extraRoutes: (Router<CatalogRequestContext>) -> Void = { _ in }) -> some ApplicationProtocol {
        // HEAD answers as GET does, with its status and headers and no body.
        let router = Router(context: CatalogRequestContext.self, options: .autoGenerateHeadEndpoints)
        let slots = EventStreamSlots(limit: configuration.maxEventStreams, perClient: configuration.maxEventStreamsPerClient)
        let metrics = ServerMetrics(database: { store.statistics() }, eventStreams: { slots.count })
        // Outermost, so that every answer is counted (a 401 too).
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        // Middleware that would do nothing is left out: each one is an async call on every request.
        // Requests are logged at `info`; a logger above that level would drop every line.
        if logger.logLevel <= .info { router.add(middleware: LogRequestsMiddleware(.info)) }
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: BrowserPolicyMiddleware(policy: configuration.browser))
        let events = EventStream(store: store, keepAlive: .milliseconds(Int64(configuration.keepAlive * 1000)), resetThreshold: 10_000,
                                 slots: slots)
        CatalogRoutes(store: store, bodyLimit: configuration.bodyLimit, limits: configuration.limits,
                      maxLayoutElements: configuration.maxLayoutElements, events: events, metrics: metrics,
                      receiving: ByteBudget(bytes: min(configuration.bodyLimit, Int.max / 4) * 4), layoutWork: configuration.layoutWork)
            .register(on: router, authorizer: Authorizer(credentials: configuration.credentials, protectReads: configuration.protectReads))
        extraRoutes(router)
        let (head, body, stall) = (TimeAmount.milliseconds(Int64(configuration.headTimeout * 1000)),
                                   TimeAmount.milliseconds(Int64(configuration.bodyTimeout * 1000)),
                                   TimeAmount.milliseconds(Int64(configuration.stallTimeout * 1000)))
        let http1 = HTTPServerBuilder.http1(configuration: HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestDeadlineHandler(headTimeout: head, bodyTimeout: body, stallTimeout: stall), ClientPresenceHandler()]))
        let server: HTTPServerBuilder
        if let tls = configuration.tls {
            // `.tls` builds its channel when the server starts; should it refuse now, the server
            // refuses to start, never falls back to plain HTTP.
            do { server = try .tls(http1, tlsConfiguration: tls) } catch {
                server = HTTPServerBuilder { _ in throw TLSFileError(file: "", reason: "TLS could not be set up: \(error)") }
            }
        } else {
            server = http1
        }
        return Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: "catalog",
                                                    availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }
}

/// A certificate or key file `--tls-cert`/`--tls-key` cannot use.
package struct TLSFileError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var reason: String
    package var description: String { file.isEmpty ? reason : "\(file): \(reason)" }
}
