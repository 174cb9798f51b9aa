import Hummingbird
import HTTPTypes

/// What a route needs of a request's credential — the one table the server decides by, on the
/// route the router matched (so `/metrics/` and `//metrics` are `GET /metrics`, and need what it
/// needs), never on the raw path.
public enum RouteAccess: Sendable, Equatable, CustomStringConvertible {
    /// Answered to everyone: health checks, the console's files, the OpenAPI document.
    case open
    /// A credential with at least this scope, reaching the catalogue the path names. Reads
    /// (`.scope(.read)`) need one only with `--protect-reads`.
    case scope(AccessScope)

    public var description: String {
        switch self {
        case .open: "open"
        case .scope(let scope): scope.claim
        }
    }

    /// Every route of the server (as ``CatalogServer/routes`` lists them) and what it needs. A
    /// route missing here needs `admin` (and a test fails for it).
    public static let table: [String: RouteAccess] = [
        "GET /": .open,
        "GET /index.html": .open,
        "GET /console/{file}": .open,
        "GET /health": .open,
        "GET /ready": .open,
        "GET /openapi.json": .open,
        // What the presented credential may do (the console asks); 401 for one not accepted.
        "GET /access": .open,
        "GET /metrics": .scope(.admin),
        "GET /catalogs": .scope(.read),
        "GET /catalogs/{name}": .scope(.read),
        "GET /catalogs/{name}/events": .scope(.read),
        // Many catalogues' streams: the grant must reach each (the handler checks them).
        "POST /events": .scope(.read),
        "GET /catalogs/{name}/changes": .scope(.read),
        "GET /catalogs/{name}/history": .scope(.read),
        "GET /catalogs/{name}/layout": .scope(.read),
        "POST /catalogs/{name}/moves": .scope(.write),
        "POST /catalogs/{name}/batches": .scope(.write),
        "POST /catalogs/{name}/writes": .scope(.write),
        "PUT /catalogs/{name}": .scope(.admin),
        "DELETE /catalogs/{name}": .scope(.admin),
    ]

    /// What `METHOD /pattern` needs: its row, else `admin`.
    public static func of(_ route: String) -> RouteAccess { table[route] ?? .scope(.admin) }
}

/// A router whose every route is decided by ``RouteAccess/table`` before its handler runs; the
/// handler receives the request's grant (nil when the route needs none, or the server has no
/// credentials), so that a list can show only the catalogues it reaches.
struct AuthorizedRoutes<Context: RequestContext> {
    let router: Router<Context>
    let authorizer: Authorizer

    func on(_ method: HTTPRequest.Method, _ path: String,
            _ handle: @escaping @Sendable (Request, Context, AccessGrant?) async throws -> Response) {
        let access = RouteAccess.of("\(method.rawValue) \(CatalogServer.pattern(path))")
        let namesCatalog = path.split(separator: "/").contains(":name")
        let authorizer = self.authorizer
        router.on(RouterPath(path), method: method) { request, context in
            // A route about catalogues its handler names (the list, the streams of many) gets
            // a grant that reaches some: the handler decides by each.
            let target: Authorizer.Target = namesCatalog ? .catalog(try PathParameters.catalogName(context))
                : path == "/catalogs" || path == "/events" ? .list : .server
            let grant = try await authorizer.authorize(request, access: access, target: target)
            return try await handle(request, context, grant)
        }
    }
}
