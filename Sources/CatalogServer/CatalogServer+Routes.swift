import CatalogImport
import CatalogStore
import Hummingbird

extension CatalogServer {
    /// Every route the server answers, as `METHOD /path` with `{name}` for a parameter, in path
    /// order — read off a router built as the server builds its own (HEAD, which each GET
    /// answers too, left out). `catalog serve --help` lists these, and a test holds the OpenAPI
    /// document to them, so neither keeps a list of its own.
    package static let routes: [String] = {
        guard let store = try? CatalogStore.inMemory() else { return [] }
        let router = Router(context: CatalogRequestContext.self)
        CatalogRoutes(store: store, bodyLimit: 0, limits: .requests, maxLayoutElements: 0,
                      events: EventStream(store: store, keepAlive: .seconds(1), resetThreshold: 0,
                                          slots: EventStreamSlots(limit: 1, perClient: 1)),
                      metrics: ServerMetrics(database: { DatabaseStatistics() }, eventStreams: { 0 }),
                      receiving: ByteBudget(bytes: 1)).register(on: router, authorizer: .everyone)
        return router.routes
            .map { route in (pattern(route.path.description), route.method.rawValue) }
            .sorted { $0 < $1 }
            .map { "\($1) \($0)" }
    }()

    /// A route's path as Hummingbird writes it (`/catalogs/:name`) in the form of the docs and
    /// the OpenAPI document (`/catalogs/{name}`).
    static func pattern(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }
}
