import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// What the routes of every server of a process share, whichever store it serves.
enum RouteLimits {
    /// Imports and batches: reading, parsing and writing a body of up to the body limit one at a
    /// time (their writes take turns anyway), so that memory stays within one body's worth
    /// however many arrive at once.
    static let bodyWork = WorkLimiter(permits: 1)
    /// Layouts and pictures: on all but one core, leaving one for everything else.
    static let layoutWork = WorkLimiter(permits: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
    /// The most revisions one `GET …/history` answers.
    static let maxHistory = 200
    /// The most numbered writes one `POST …/writes` may carry.
    static let maxWritesPerRequest = 1_000
    /// A move's body is a handful of keys: a larger one is refused before it is read.
    static let moveBodyLimit = 64 << 10
    /// `POST /events` names at most ``EventStream/maxCatalogs`` catalogues, each in a few hundred bytes.
    static let followBodyLimit = 1 << 20
    /// The OpenAPI 3.1 document kept beside the server's sources (`Sources/CatalogServer/openapi.json`),
    /// compiled into the binary.
    static let openAPI = ByteBuffer(string: EmbeddedDocuments.all.first { $0.name == "openapi" }?.text ?? "")
}

/// The parameters of the routes' paths.
enum PathParameters {
    /// The catalogue name in the path, percent-decoded once (`my%20shelf` is `my shelf`), so that
    /// a path names the catalogue the command line calls by the same name.
    static func catalogName<Context: RequestContext>(_ context: Context) throws -> String {
        let raw = try context.parameters.require("name")
        guard let name = raw.removingPercentEncoding else {
            throw Problem(status: .badRequest, kind: "invalid-parameter",
                          detail: "the catalogue name in the path is not valid percent-encoded UTF-8: \(raw)", path: "name")
        }
        return name
    }
}

/// The headers of a client's numbered write (docs/Following-a-server.md).
enum ClientHeaders {
    static let client = HTTPField.Name("Catalog-Client-ID")!
    static let sequence = HTTPField.Name("Catalog-Client-Sequence")!
    /// On the answer to a resend: the recorded answer, the write not applied again.
    static let replayed = HTTPField.Name("Catalog-Replayed")!
    /// On an event stream: the seconds it stays silent at most before a keep-alive comment.
    static let keepAlive = HTTPField.Name("Catalog-Keep-Alive")!
    /// On an event stream's answer: the database's identity (``CatalogDatabase/identity()``).
    static let server = HTTPField.Name("Catalog-Server-ID")!
    /// On an event stream's request that resumes: the fingerprint of the catalogue the client
    /// holds at the revision it names (`CatalogExporter.fingerprint`); another history gets a snapshot.
    static let fingerprint = HTTPField.Name("Catalog-Fingerprint")!
}

/// The endpoints of docs/HTTP-API.md. Reads go through the store's reading connections (WAL: they never
/// wait for a write); every write is one store transaction.
///
/// This file holds what every route shares (registration, bodies, answers); the routes are in a
/// file per resource: `+Catalogues` (a catalogue, its import and delete, its history),
/// `+Changes`, `+Layouts`, `+Items` (batches and moves), `+Writes` (numbered writes); the event
/// streams in `EventStream`.
struct CatalogRoutes<Store: CatalogDatabase>: Sendable {
    let store: Store
    let bodyLimit: Int
    /// What a body may hold (items, sections, nesting).
    let limits: DocumentLimits
    /// Layouts larger than this many elements are answered for the visible rect only.
    let maxLayoutElements: Int
    /// `GET /catalogs/{name}/events`.
    let events: EventStream<Store>
    /// `GET /metrics`, and the writes' counts and durations.
    let metrics: ServerMetrics
    /// Serialized snapshots and change feeds by revision: a revision never changes, so a GET
    /// of an unchanged catalogue costs one revision lookup.
    let cache = ResponseCache()
    /// Layout answers by revision and request: a client scrolling back, or many clients asking
    /// for one picture, cost one layout.
    let layouts = ResponseCache(limit: 64, byteBudget: 64 << 20)
    /// Prepared layouts by catalogue, configuration and viewport, at the revision laid out: a
    /// page that scrolls asks for the elements of one rect after another (and, with pinned
    /// headers or a carousel, at one offset after another), and each costs a rect query, not a
    /// layout. Bounded by the items they lay out.
    let preparedLayouts = RevisionCache<PreparedLayout>(limit: 8, budget: 2_000_000, cost: { $0.layout.numberOfItems })
    var bodyWork: WorkLimiter { RouteLimits.bodyWork }
    /// Bodies of imports, large batches and numbered writes being received: four bodies' worth
    /// at most, each received before it waits for ``bodyWork``.
    let receiving: ByteBudget
    var layoutWork = RouteLimits.layoutWork

    func register(on router: Router<CatalogRequestContext>, authorizer: Authorizer) {
        let routes = AuthorizedRoutes(router: router, authorizer: authorizer)
        routes.on(.get, "/catalogs") { _, _, grant in
            let summaries = try await store.summaries()
            return try json(Documents.summaries(grant.map { grant in summaries.filter { grant.reaches($0.name) } } ?? summaries))
        }
        routes.on(.get, "/catalogs/:name") { request, context, _ in try await snapshot(request, name: try catalogName(context)) }
        routes.on(.put, "/catalogs/:name") { request, context, _ in try await importCatalog(request, name: try catalogName(context)) }
        routes.on(.delete, "/catalogs/:name") { request, context, _ in try await deleteCatalog(request, name: try catalogName(context)) }
        routes.on(.post, "/catalogs/:name/batches") { request, context, _ in try await batch(request, name: try catalogName(context)) }
        routes.on(.post, "/catalogs/:name/moves") { request, context, _ in try await move(request, name: try catalogName(context)) }
        routes.on(.post, "/catalogs/:name/writes") { request, context, _ in
            try await writes(request, name: try catalogName(context), logger: context.logger)
        }
        routes.on(.get, "/catalogs/:name/events") { request, context, _ in
            try await events.response(request, name: try catalogName(context), client: context.remoteAddress?.ipAddress ?? "")
        }
        routes.on(.post, "/events") { request, context, grant in
            try await events.response(following: try await body(request, limit: RouteLimits.followBodyLimit), grant: grant,
                                      client: context.remoteAddress?.ipAddress ?? "")
        }
        // Work done for one answer stops when its client hangs up (shared work goes on for the
        // other clients waiting for it).
        routes.on(.get, "/catalogs/:name/changes") { request, context, _ in
            let name = try catalogName(context)
            return try await context.whileClientStays { try await changes(request, name: name) }
        }
        routes.on(.get, "/catalogs/:name/history") { request, context, _ in
            let name = try catalogName(context)
            return try await context.whileClientStays { try await history(request, name: name) }
        }
        routes.on(.get, "/catalogs/:name/layout") { request, context, _ in
            let name = try catalogName(context)
            return try await context.whileClientStays { try await layout(request, name: name) }
        }
        routes.on(.get, "/openapi.json") { _, _, _ in openAPIDocument() }
        routes.on(.get, "/access") { request, _, _ in json(try await authorizer.describe(request)) }
        ConsoleRoutes.register(on: routes)
        routes.on(.get, "/health") { _, _, _ in json(.object([("status", .string("alive"))])) }
        routes.on(.get, "/metrics") { _, _, _ in
            buffer(metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        routes.on(.get, "/ready") { _, _, _ in
            if let problem = await store.readinessProblem() {
                throw Problem(status: .serviceUnavailable, kind: "not-ready", detail: problem)
            }
            return json(.object([("status", .string("ready"))]))
        }
    }

    func catalogName<Context: RequestContext>(_ context: Context) throws -> String { try PathParameters.catalogName(context) }

    /// `read` given the body's bytes as `Data`, without copying them.
    static func reading<T>(_ body: ByteBuffer, _ read: (Data) throws -> T) throws -> T {
        try body.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return try read(Data()) }
            return try read(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
        }
    }

    // MARK: Helpers

    /// `use` of the request's whole body, received under a reservation of its declared length
    /// (or the limit) from ``receiving`` and before any permit is taken: a client that trickles
    /// its body waits alone.
    func received<T: Sendable>(_ request: Request, _ use: (ByteBuffer) async throws -> T) async throws -> T {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        return try await receiving.withReservation(of: min(declared ?? bodyLimit, bodyLimit)) {
            try await use(try await body(request, limit: bodyLimit))
        }
    }

    /// The request's body, refused with 413 past `limit` bytes (before it is read, when the
    /// request says its length).
    func body(_ request: Request, limit: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw Problem(status: .contentTooLarge, kind: "body-too-large", detail: "the body is over the limit of \(limit) bytes")
        } catch is NIOTooManyBytesError {
            throw Problem(status: .contentTooLarge, kind: "body-too-large", detail: "the body is over the limit of \(limit) bytes")
        }
    }

    /// The revision an `If-Match` header names (`"12"`, `W/"12"` or `12`), if any — after checking
    /// that it is the catalogue's current revision (412 otherwise). The write then carries it as
    /// its base revision, so a write landing in between still makes it fail (409).
    func ifMatch(_ request: Request, name: String) async throws -> Int? {
        guard let value = request.headers[.ifMatch] else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard let expected = Int(trimmed) else {
            throw Problem(status: .badRequest, kind: "invalid-header", detail: "If-Match must name a revision such as \"12\", found \(value)", path: "If-Match")
        }
        let current = try await store.revision(of: name)
        guard expected == current else {
            throw Problem(status: .preconditionFailed, kind: "precondition-failed",
                          detail: "If-Match names revision \(expected) but the catalogue is at revision \(current)")
        }
        return expected
    }

    func mediaType(_ request: Request) -> String {
        (request.headers[.contentType] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    func json(_ value: OrderedJSON) -> Response {
        buffer(ByteBuffer(string: value.serialized(pretty: false)), type: "application/json")
    }

    /// The answer to a write (import, batch, move): `Documents.write(result)`, written straight
    /// into bytes.
    func written(_ result: WriteResult, status: HTTPResponse.Status = .ok) -> Response {
        var response = buffer(ByteBuffer(bytes: Documents.compactWrite(result)), type: "application/json")
        response.status = status
        return response
    }

    func data(_ data: Data, type: String) -> Response {
        buffer(ByteBuffer(bytes: data), type: type)
    }

    /// A response with `body` as it is: a cached buffer is shared, not copied.
    func buffer(_ body: ByteBuffer, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
