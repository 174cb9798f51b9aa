import CatalogStore
import Hummingbird
import Logging

/// How `catalog serve` listens and whom it lets write.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Request bodies larger than this are refused with 413.
    public var bodyLimit: Int
    /// When set, writes need `Authorization: Bearer <token>` (401 otherwise).
    public var token: String?
    /// With a token, reads need it too.
    public var protectReads: Bool

    public init(host: String = "127.0.0.1", port: Int = 8080, bodyLimit: Int = 16 << 20,
                token: String? = nil, protectReads: Bool = false) {
        self.host = host
        self.port = port
        self.bodyLimit = bodyLimit
        self.token = token
        self.protectReads = protectReads
    }
}

/// The HTTP API of SPEC §8 over a ``CatalogStore``: catalogues, snapshots with ETags, imports,
/// batches, moves, change feeds and layouts, with RFC 9457 problem documents for every error.
public enum CatalogServer {
    /// The application, ready to run (`try await app.runService()` stops on SIGINT or SIGTERM
    /// after the requests in flight, so no accepted write is lost).
    ///
    /// Each request is logged on one line at `info` through `logger`, whose level is read here: a
    /// logger above `info` logs no requests (and the server skips that step).
    /// `onServerRunning` receives the port the server listens on (useful with port 0);
    /// `extraRoutes` may add routes (benchmarks add a baseline).
    public static func application(store: CatalogStore, configuration: ServerConfiguration,
                                   logger: Logger = Logger(label: "catalog.serve"),
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                                   extraRoutes: (Router<BasicRequestContext>) -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router()
        // Middleware that would do nothing is left out: each one is an async call on every request.
        // Requests are logged at `info`; a logger above that level would drop every line.
        if logger.logLevel <= .info { router.add(middleware: LogRequestsMiddleware(.info)) }
        router.add(middleware: ProblemMiddleware())
        if let token = configuration.token {
            router.add(middleware: BearerTokenMiddleware(token: token, protectReads: configuration.protectReads))
        }
        CatalogRoutes(store: store, bodyLimit: configuration.bodyLimit).register(on: router)
        extraRoutes(router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: "catalog"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }
}
