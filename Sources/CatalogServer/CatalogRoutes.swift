import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogLayout
import CatalogModel
import CatalogStore
import Foundation
import Hummingbird
import NIOCore

/// The endpoints of SPEC §8. Reads go through the store's reading connections (WAL: they never
/// wait for a write); every write is one store transaction.
struct CatalogRoutes: Sendable {
    let store: CatalogStore
    let bodyLimit: Int
    /// Serialized snapshots and change feeds by revision: a revision never changes, so a GET
    /// of an unchanged catalogue costs one revision lookup.
    let cache = ResponseCache()

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/catalogs") { _, _ in try json(Documents.summaries(store.summaries())) }
        router.get("/catalogs/:name") { request, context in try await snapshot(request, name: try catalogName(context)) }
        router.put("/catalogs/:name") { request, context in try await importCatalog(request, name: try catalogName(context)) }
        router.post("/catalogs/:name/batches") { request, context in try await batch(request, name: try catalogName(context)) }
        router.post("/catalogs/:name/moves") { request, context in try await move(request, name: try catalogName(context)) }
        router.get("/catalogs/:name/changes") { request, context in try await changes(request, name: try catalogName(context)) }
        router.get("/catalogs/:name/layout") { request, context in try layout(request, name: try catalogName(context)) }
        router.get("/openapi.json") { _, _ in openAPIDocument() }
    }

    /// The catalogue name in the path, percent-decoded once (`my%20shelf` is `my shelf`), so that
    /// a path names the catalogue the command line calls by the same name.
    func catalogName<Context: RequestContext>(_ context: Context) throws -> String {
        let raw = try context.parameters.require("name")
        guard let name = raw.removingPercentEncoding else {
            throw Problem(status: .badRequest, kind: "invalid-parameter",
                          detail: "the catalogue name in the path is not valid percent-encoded UTF-8: \(raw)", path: "name")
        }
        return name
    }

    // MARK: Reads

    /// The snapshot as `catalog show --json`, with the revision as its ETag.
    func snapshot(_ request: Request, name: String) async throws -> Response {
        let revision = try store.revision(of: name)
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == "\"\(revision)\"" || tag == "*"
        }) {
            var headers = HTTPFields()
            headers[.eTag] = "\"\(revision)\""
            return Response(status: .notModified, headers: headers)
        }
        let store = self.store
        let (current, body) = try await cache.body(for: "snapshot \(name)", revision: revision) {
            // A write may land between the two reads: the snapshot says which revision it is.
            let catalog = try store.catalog(named: name)
            return (catalog.revision, ByteBuffer(bytes: CatalogExporter.json(catalog, includeRevision: true, pretty: false)))
        }
        var response = buffer(body, type: "application/json")
        response.headers[.eTag] = "\"\(current)\""
        return response
    }

    func changes(_ request: Request, name: String) async throws -> Response {
        guard let text = request.uri.queryParameters["since"] else {
            throw Problem(status: .badRequest, kind: "missing-parameter", detail: "add ?since=REVISION", path: "since")
        }
        guard let since = Int(String(text)), since >= 0 else {
            throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "since must be a revision (an integer ≥ 0), found \"\(text)\"", path: "since")
        }
        let revision = try store.revision(of: name)
        let store = self.store
        let (_, body) = try await cache.body(for: "changes \(name) \(since)", revision: revision) {
            let changeset = try store.changes(in: name, since: since)
            return (changeset.toRevision ?? revision, ByteBuffer(bytes: Documents.compactChangeset(changeset)))
        }
        return buffer(body, type: "application/json")
    }

    /// Layout attributes for `config`, `width`, `height` (and `offset=x,y`, `visible=true`); an
    /// SVG picture when the client accepts `image/svg+xml`.
    func layout(_ request: Request, name: String) throws -> Response {
        let query = request.uri.queryParameters
        guard let configText = query["config"] else {
            throw Problem(status: .badRequest, kind: "missing-parameter", detail: "add config=<LAYOUT.json>", path: "config")
        }
        let configuration = try Documents.layoutConfiguration(Data(String(configText).utf8))
        func number(_ key: String) throws -> Double {
            guard let text = query[Substring(key)], let value = Double(String(text)), value.isFinite, value > 0 else {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "\(key) must be a positive number of points", path: key)
            }
            return value
        }
        var offset = Point.zero
        if let text = query["offset"] {
            let parts = text.split(separator: ",").compactMap { Double(String($0)) }
            guard parts.count == 2, parts.allSatisfy(\.isFinite) else {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "offset must be x,y such as 0,120", path: "offset")
            }
            offset = Point(x: parts[0], y: parts[1])
        }
        let catalog = try store.catalog(named: name)
        let input = LayoutInput(catalog)
        let layout = try Layout(input, configuration: configuration, viewportSize: Size(width: try number("width"), height: try number("height")),
                                contentOffset: offset)
        if request.headers[.accept]?.contains("image/svg+xml") == true {
            return data(Data(LayoutPicture(layout: layout, input: input).svg.utf8), type: "image/svg+xml")
        }
        let visible = query["visible"].map { $0 == "true" || $0 == "1" } ?? false
        return json(Documents.layout(layout, visible ? layout.elements(in: layout.visibleRect) : layout.allElements))
    }

    /// The OpenAPI 3.1 document kept beside the server's sources (`Sources/CatalogServer/openapi.json`),
    /// compiled into the binary.
    static let openAPI = ByteBuffer(string: EmbeddedDocuments.all.first { $0.name == "openapi" }?.text ?? "")

    func openAPIDocument() -> Response {
        buffer(Self.openAPI, type: "application/json")
    }

    // MARK: Writes

    /// Imports a catalogue file sent as the body: JSON or a property list, by Content-Type.
    func importCatalog(_ request: Request, name: String) async throws -> Response {
        let format: CatalogFileFormat
        switch mediaType(request) {
        case "application/json": format = .json
        case "application/x-plist", "application/xml", "text/xml", "application/octet-stream": format = .plist
        case let other:
            throw Problem(status: .unsupportedMediaType, kind: "unsupported-media-type",
                          detail: "send the catalogue as application/json or application/x-plist, not \(other.isEmpty ? "no Content-Type" : other)")
        }
        let body = try await self.body(request)
        let imported = try CatalogImporter.decode(body, fileName: "request body", options: ImportOptions(catalogName: name, format: format))
        var catalog = imported.catalog
        catalog.name = name
        let (store, record, finished) = (self.store, ImportRecord(imported.report), catalog)
        let result = try await Self.offload { try store.replace(finished, record: record) }
        return written(result, status: result.previousRevision == 0 ? .created : .ok)
    }

    /// Applies a batch; `If-Match: "REV"` (or the body's `baseRevision`) makes it conditional.
    func batch(_ request: Request, name: String) async throws -> Response {
        let body = try await self.body(request)
        var batch = try BatchReader.decode(body, fileName: "request body")
        if let expected = try ifMatch(request, name: name) {
            batch.baseRevision = batch.baseRevision ?? expected
        }
        return written(try await store.apply(batch, to: name))
    }

    /// A move: `{"item", "toSection", "index"?, "policy"?, "baseRevision"?}`; without an index, to the end.
    func move(_ request: Request, name: String) async throws -> Response {
        var move = try BatchReader.decodeMove(try await body(request), fileName: "request body")
        if let expected = try ifMatch(request, name: name) {
            move.baseRevision = move.baseRevision ?? expected
        }
        return written(try await store.apply(move, to: name))
    }

    /// Threads for imports, which block while SQLite writes a whole catalogue: off the server's
    /// own threads, so those keep answering requests meanwhile. (Moves and batches do not need
    /// this: they wait for the store's next group commit without holding a thread.)
    private static let writeQueue = DispatchQueue(label: "CatalogKit.imports", attributes: .concurrent)

    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writeQueue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    // MARK: Helpers

    func body(_ request: Request) async throws -> Data {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: bodyLimit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw Problem(status: .contentTooLarge, kind: "body-too-large", detail: "the body is over the limit of \(bodyLimit) bytes")
        } catch is NIOTooManyBytesError {
            throw Problem(status: .contentTooLarge, kind: "body-too-large", detail: "the body is over the limit of \(bodyLimit) bytes")
        }
        return Data(buffer.readableBytesView)
    }

    /// The revision an `If-Match` header names (`"12"`, `W/"12"` or `12`), if any — after checking
    /// that it is the catalogue's current revision (412 otherwise). The write then carries it as
    /// its base revision, so a write landing in between still makes it fail (409).
    func ifMatch(_ request: Request, name: String) throws -> Int? {
        guard let value = request.headers[.ifMatch] else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard let expected = Int(trimmed) else {
            throw Problem(status: .badRequest, kind: "invalid-header", detail: "If-Match must name a revision such as \"12\", found \(value)", path: "If-Match")
        }
        let current = try store.revision(of: name)
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

/// Response bodies by key and revision, for reads of catalogues that have not changed.
///
/// Requests that miss the same entry at the same time share one computation: after a write, or
/// when a server starts, 64 clients asking for the same change feed make one body, not 64.
final class ResponseCache: @unchecked Sendable {
    typealias Body = (revision: Int, body: ByteBuffer)
    private let lock = NSLock()
    private var entries: [String: (revision: Int, body: Task<Body, any Error>)] = [:]
    /// Bounded: a server answering many catalogues and `since` values keeps the latest ones.
    private let limit = 256

    /// The cached body for `key` at `revision`, or `make()`'s (which says its own revision).
    /// A failed `make()` is not kept: the next request tries again.
    func body(for key: String, revision: Int, make: @escaping @Sendable () throws -> Body) async throws -> Body {
        let task: Task<Body, any Error> = lock.withLock {
            if let entry = entries[key], entry.revision == revision { return entry.body }
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            let task = Task { try make() }
            entries[key] = (revision, task)
            return task
        }
        do {
            return try await task.value
        } catch {
            lock.withLock {
                if let entry = entries[key], entry.revision == revision { entries[key] = nil }
            }
            throw error
        }
    }
}
