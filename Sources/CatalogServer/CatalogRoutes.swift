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

    // MARK: Reads

    /// The snapshot as `catalog show --json`, with the revision as its ETag.
    func snapshot(_ request: Request, name: String) async throws -> Response {
        let revision = try await store.revision(of: name)
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
            let catalog = try await store.catalog(named: name)
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
        let revision = try await store.revision(of: name)
        let store = self.store
        let (_, body) = try await cache.body(for: "changes \(name) \(since)", revision: revision) {
            let changeset = try await store.changes(in: name, since: since)
            return (changeset.toRevision ?? revision, ByteBuffer(bytes: Documents.compactChangeset(changeset)))
        }
        return buffer(body, type: "application/json")
    }

    /// The last `count` writes (default 20, at most ``RouteLimits/maxHistory``), newest first:
    /// `{"catalog", "revision", "revisions": [{"fromRevision", "toRevision", "summary", "stages"}]}`,
    /// as far back as the journal reaches.
    func history(_ request: Request, name: String) async throws -> Response {
        var asked = 20
        if let text = request.uri.queryParameters["count"] {
            guard let value = Int(String(text)), (1...RouteLimits.maxHistory).contains(value) else {
                throw Problem(status: .badRequest, kind: "invalid-parameter",
                              detail: "count must be a number of revisions from 1 to \(RouteLimits.maxHistory), found \"\(text)\"", path: "count")
            }
            asked = value
        }
        let revision = try await store.revision(of: name)
        let (store, count) = (self.store, asked)
        let (_, body) = try await cache.body(for: "history \(name) \(count)", revision: revision) {
            let writes = try await store.history(of: name, count: count)
            let current = writes.first?.toRevision ?? revision
            return (current, ByteBuffer(string: OrderedJSON.object([
                ("catalog", .string(name)), ("revision", .integer(current)),
                ("revisions", .array(writes.map { changeset in
                    .object([("fromRevision", .integer(changeset.fromRevision ?? 0)), ("toRevision", .integer(changeset.toRevision ?? 0)),
                             ("summary", .string(changeset.summary)), ("stages", .array(changeset.stages.map(\.jsonValue)))])
                })),
            ]).serialized(pretty: false)))
        }
        return buffer(body, type: "application/json")
    }

    /// Layout attributes for `config`, `width`, `height` (and `offset=x,y`, `visible=true` or
    /// `rect=x,y,w,h` for the elements in a rect, `include=items` for what each one shows); an
    /// SVG picture when the client accepts `image/svg+xml`. Laid out on the layout threads once
    /// per revision, configuration and viewport (``preparedLayouts``), each answer kept per
    /// revision and request; a layout of more than ``maxLayoutElements`` elements is answered
    /// only for what the viewport shows (`visible=true`), and refused otherwise.
    func layout(_ request: Request, name: String) async throws -> Response {
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
        /// A list of `count` finite numbers such as `0,120` that `valid` accepts, if the parameter is there.
        func numbers(_ key: String, _ count: Int, _ what: String, valid: ([Double]) -> Bool = { _ in true }) throws -> [Double]? {
            guard let text = query[Substring(key)] else { return nil }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double(String($0)) }
            guard parts.count == count, parts.allSatisfy(\.isFinite), valid(parts) else {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "\(key) must be \(what)", path: key)
            }
            return parts
        }
        let offset = try numbers("offset", 2, "x,y such as 0,120").map { Point(x: $0[0], y: $0[1]) } ?? .zero
        let viewport = Size(width: try number("width"), height: try number("height"))
        let rect = try numbers("rect", 4, "x,y,width,height such as 0,0,390,2532, the size not negative", valid: { $0[2] >= 0 && $0[3] >= 0 })
            .map { Rect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
        // A rect names the elements wanted; `visible` is then beside the point.
        let visible = rect == nil && (query["visible"].map { $0 == "true" || $0 == "1" } ?? false)
        let describe = query["include"].map { $0.split(separator: ",").contains("items") } ?? false
        let picture = request.headers[.accept]?.contains("image/svg+xml") == true
        let revision = try await store.revision(of: name)
        let (store, limit, layoutWork, preparedLayouts) = (self.store, maxLayoutElements, self.layoutWork, self.preparedLayouts)
        let preparedKey = "\(name)\u{0}\(configuration)\u{0}\(viewport)"
        let key = "\(preparedKey)\u{0}\(offset)\u{0}\(visible)\u{0}\(picture)\u{0}\(String(describing: rect))\u{0}\(describe)"
        let (_, body) = try await layouts.body(for: key, revision: revision) {
            let prepared = try await preparedLayouts.value(for: preparedKey, revision: revision) {
                let catalog = try await store.catalog(named: name)
                return try await layoutWork.run {
                    let input = LayoutInput(catalog)
                    return PreparedLayout(catalog: catalog, input: input,
                                          layout: try Layout(input, configuration: configuration, viewportSize: viewport))
                }
            }
            return try await layoutWork.run {
                var layout = prepared.layout
                layout.contentOffset = offset
                let elements = rect.map { layout.elements(in: $0) } ?? (visible ? layout.elements(in: layout.visibleRect) : layout.allElements)
                guard elements.count <= limit else {
                    throw Problem(status: .unprocessableContent, kind: "layout-too-large",
                                  detail: "the layout has \(elements.count) elements, more than the \(limit) this server answers at once; "
                                      + "add visible=true (and offset=x,y) for what a viewport shows, or rect=x,y,width,height")
                }
                let text = picture ? LayoutPicture(layout: layout, input: prepared.input, elements: elements).svg
                    : Documents.layout(layout, elements, describing: describe ? prepared.catalog : nil).serialized(pretty: false)
                return (prepared.catalog.revision, ByteBuffer(string: text))
            }
        }
        return buffer(body, type: picture ? "image/svg+xml" : "application/json")
    }

    func openAPIDocument() -> Response {
        buffer(RouteLimits.openAPI, type: "application/json")
    }

    // MARK: Writes

    /// Imports a catalogue file sent as the body: JSON or a property list, by Content-Type.
    /// Read, parsed and written under a body permit (``bodyWork``), on its threads: SQLite
    /// blocks while it writes a whole catalogue.
    func importCatalog(_ request: Request, name: String) async throws -> Response {
        let format: CatalogFileFormat
        switch mediaType(request) {
        case "application/json": format = .json
        case "application/x-plist", "application/xml", "text/xml", "application/octet-stream": format = .plist
        case let other:
            throw Problem(status: .unsupportedMediaType, kind: "unsupported-media-type",
                          detail: "send the catalogue as application/json or application/x-plist, not \(other.isEmpty ? "no Content-Type" : other)")
        }
        let (store, options, bodyWork) = (self.store, try importOptions(request, name: name, format: format), self.bodyWork)
        let result = try await received(request) { body in try await bodyWork.withPermit {
            let (catalog, record) = try await bodyWork.offload {
                let imported = try Self.reading(body) { data in try CatalogImporter.decode(data, fileName: "request body", options: options) }
                var catalog = imported.catalog
                catalog.name = name
                return (catalog, ImportRecord(imported.report))
            }
            return try await metrics.write("import") { try await store.replace([(catalog, record)], progress: nil)[0] }
        } }
        return written(result, status: result.previousRevision == 0 ? .created : .ok)
    }

    /// The import options a `PUT` gives as query parameters (docs/Catalogue-files.md): `kind`, `format`,
    /// `capacity`, `root` and `map` (repeated), as the command line's options of the same names.
    func importOptions(_ request: Request, name: String, format: CatalogFileFormat) throws -> ImportOptions {
        let query = request.uri.queryParameters
        func invalid(_ key: String, _ expected: String, _ found: Substring) -> Problem {
            Problem(status: .badRequest, kind: "invalid-parameter", detail: "\(key) must be \(expected), found \"\(found)\"", path: key)
        }
        var options = ImportOptions(catalogName: name, format: format, limits: limits)
        if let text = query["format"] {
            guard let chosen = CatalogFileFormat(rawValue: String(text)) else { throw invalid("format", "json or plist", text) }
            options.format = chosen
        }
        if let text = query["kind"] {
            guard let shape = CatalogShape(rawValue: String(text)) else {
                throw invalid("kind", "one of native, videos, bookshelf, icons", text)
            }
            options.shape = shape
        }
        if let text = query["capacity"] {
            guard let capacity = Int(text) else { throw invalid("capacity", "an integer", text) }
            options.shelfCapacity = capacity
        }
        if let text = query["root"] { options.root = String(text) }
        do {
            options.fieldMap = try ImportOptions.fieldMap(query[values: "map"].map(String.init))
            try options.validate()
        } catch {
            throw Problem(status: .badRequest, kind: "invalid-parameter", detail: error.message, path: error.option)
        }
        return options
    }

    /// Applies a batch; `If-Match: "REV"` (or the body's `baseRevision`) makes it conditional.
    /// A large body is read, parsed and written under a body permit; a small one (a declared
    /// length up to a move's limit, such as a few moves) is parsed at once and its write waits
    /// for the store's next group commit like a move's, so small batches share commits.
    func batch(_ request: Request, name: String) async throws -> Response {
        let (limits, bodyWork) = (self.limits, self.bodyWork)
        let client = try clientWrite(request)
        return try await recordingRefusals(of: client) {
            let expected = try await ifMatch(request, name: name)
            @Sendable func apply(_ body: ByteBuffer, offloading: Bool) async throws -> Response {
                let parse: @Sendable () throws -> Batch = {
                    try Self.reading(body) { data in try BatchReader.decode(data, fileName: "request body", limits: limits) }
                }
                var batch = offloading ? try await bodyWork.offload(parse) : try parse()
                if let expected { batch.baseRevision = batch.baseRevision ?? expected }
                return try await write(batch, to: name, kind: "batch", as: client)
            }
            let declared = request.headers[.contentLength].flatMap { Int($0) }
            if let declared, declared <= min(bodyLimit, RouteLimits.moveBodyLimit) {
                return try await apply(try await body(request, limit: declared), offloading: false)
            }
            return try await received(request) { body in
                try await bodyWork.withPermit { try await apply(body, offloading: true) }
            }
        }
    }

    /// Deletes the catalogue (``CatalogStore/delete(_:ifRevision:)``); `If-Match: "REV"` makes it
    /// conditional. Answers `{"catalog", "revision", "sections", "items"}`: what was deleted.
    func deleteCatalog(_ request: Request, name: String) async throws -> Response {
        let expected = try await ifMatch(request, name: name)
        let deleted = try await metrics.write("delete") { try await store.delete([(name, expected)])[0] }
        return json(.object([("catalog", .string(deleted.name)), ("revision", .integer(deleted.revision)),
                             ("sections", .integer(deleted.sections)), ("items", .integer(deleted.items))]))
    }

    /// A move: `{"item", "toSection", "index"?, "policy"?, "baseRevision"?}`; without an index, to the end.
    func move(_ request: Request, name: String) async throws -> Response {
        let client = try clientWrite(request)
        return try await recordingRefusals(of: client) {
            let body = try await self.body(request, limit: min(bodyLimit, RouteLimits.moveBodyLimit))
            var move = try Self.reading(body) { data in try BatchReader.decodeMove(data, fileName: "request body") }
            if let expected = try await ifMatch(request, name: name) {
                move.baseRevision = move.baseRevision ?? expected
            }
            return try await write(move, to: name, kind: "move", as: client)
        }
    }

    /// Applies a batch or a move, as the client's numbered write when the request carries one: its
    /// answer is recorded with its number in the write's transaction, and a resend of it gets
    /// that answer again (`Catalog-Replayed: true`) without being applied twice.
    func write(_ batch: Batch, to name: String, kind: String, as client: ClientWrite?) async throws -> Response {
        guard let client else {
            return written(try await metrics.write(kind) { try await store.apply(batch, to: name) })
        }
        switch try await numbered(batch, to: name, kind: kind, as: client) {
        case .applied(_, let answer):
            return buffer(ByteBuffer(string: answer.body), type: "application/json")
        case .answeredBefore(let answer):
            var response = buffer(ByteBuffer(string: answer.body), type: answer.status < 300 ? "application/json" : "application/problem+json")
            response.status = HTTPResponse.Status(code: answer.status)
            response.headers[ClientHeaders.replayed] = "true"
            return response
        }
    }

    /// A client's numbered write, its answer (what ``written(_:status:)`` sends) recorded with its
    /// number in the write's transaction.
    func numbered(_ batch: Batch, to name: String, kind: String, as client: ClientWrite) async throws -> ClientWriteOutcome {
        do {
            return try await metrics.write(kind) {
                try await store.apply(batch, to: name, as: client) { result in
                    RecordedAnswer(status: 200, body: String(decoding: Documents.compactWrite(result), as: UTF8.self))
                }
            }
        } catch {
            // Recorded with the write's fingerprint: a resend must be this write.
            throw await refusal(error, of: client, fingerprint: ClientWrite.fingerprint(of: batch.canonicalized()))
        }
    }

    /// Several numbered writes of one client, the first numbered by `Catalog-Client-Sequence`
    /// and each next one more: a JSON array of batches. Each is applied (or refused) on its own,
    /// in order, exactly as if sent alone; the answer lists each one's status and body, up to and
    /// including the first that may pass later (a stale revision, a failure of the server), after
    /// which none is tried, so the client's writes are applied in the order it made them.
    func writes(_ request: Request, name: String, logger: Logger) async throws -> Response {
        guard let first = try clientWrite(request) else {
            throw Problem(status: .badRequest, kind: "invalid-header", detail: "numbered writes need Catalog-Client-ID and Catalog-Client-Sequence",
                          path: "Catalog-Client-ID")
        }
        let (limits, bodyWork, maxWrites) = (self.limits, self.bodyWork, RouteLimits.maxWritesPerRequest)
        let batches = try await received(request) { body in try await bodyWork.withPermit {
            try await bodyWork.offload {
                try Self.reading(body) { data in try BatchReader.decodeList(data, fileName: "request body", limits: limits, maxBatches: maxWrites) }
            }
        } }
        var answers: [String] = []
        for (index, batch) in batches.enumerated() {
            let client = ClientWrite(client: first.client, sequence: first.sequence + index, requestStart: first.sequence)
            let (answer, replayed, goOn): (RecordedAnswer, Bool, Bool)
            do {
                switch try await numbered(batch, to: name, kind: "batch", as: client) {
                case .applied(_, let given): (answer, replayed, goOn) = (given, false, true)
                case .answeredBefore(let recorded): (answer, replayed, goOn) = (recorded, true, true)
                }
            } catch {
                let problem = await refusal(error, of: client)
                if problem.isInternal { logger.error("numbered write \(client.sequence) of \(client.client) failed: \(error)") }
                (answer, replayed, goOn) = (RecordedAnswer(status: problem.status.code, body: problem.document), false, problem.isRefusedForGood)
            }
            answers.append("{\"sequence\":\(client.sequence),\"status\":\(answer.status)" + (replayed ? ",\"replayed\":true" : "")
                           + ",\"body\":\(answer.body)}")
            if !goOn { break }
        }
        return buffer(ByteBuffer(string: "{\"answers\":[" + answers.joined(separator: ",") + "]}"), type: "application/json")
    }

    /// Runs a write's handler; a failure of a client's numbered write goes through
    /// ``refusal(_:of:)``.
    func recordingRefusals(of client: ClientWrite?, _ handle: () async throws -> Response) async throws -> Response {
        do {
            return try await handle()
        } catch {
            guard let client else { throw error }
            throw await refusal(error, of: client)
        }
    }

    /// The problem for the failure of a client's numbered write; when it refuses the write for
    /// good (``Problem/isRefusedForGood``), recorded as that number's answer, so that the
    /// client's next number follows it. A record that fails is not an error: the client sends
    /// the write again, and it is judged again.
    func refusal(_ error: any Error, of client: ClientWrite, fingerprint: String? = nil) async -> Problem {
        var problem = Problem(error)
        if problem.isRefusedForGood && !problem.isRecorded {
            try? await store.recordRefusal(RecordedAnswer(status: problem.status.code, body: problem.document, fingerprint: fingerprint), to: client)
            problem.isRecorded = true
        }
        return problem
    }

    /// The numbered write a request carries (`Catalog-Client-ID` and `Catalog-Client-Sequence`,
    /// both or neither), if any.
    func clientWrite(_ request: Request) throws -> ClientWrite? {
        let (client, sequence) = (request.headers[ClientHeaders.client], request.headers[ClientHeaders.sequence])
        if client == nil && sequence == nil { return nil }
        guard let client else {
            throw Problem(status: .badRequest, kind: "invalid-header", detail: "Catalog-Client-Sequence needs Catalog-Client-ID", path: "Catalog-Client-ID")
        }
        if let problem = ClientWrite.problem(withClient: client) {
            throw Problem(status: .badRequest, kind: "invalid-header", detail: problem, path: "Catalog-Client-ID")
        }
        guard let text = sequence else {
            throw Problem(status: .badRequest, kind: "invalid-header", detail: "Catalog-Client-ID needs Catalog-Client-Sequence", path: "Catalog-Client-Sequence")
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), number >= 1, number <= Int(Int64.max) else {
            throw Problem(status: .badRequest, kind: "invalid-header",
                          detail: "Catalog-Client-Sequence must be a write number (an integer from 1), found \"\(text)\"", path: "Catalog-Client-Sequence")
        }
        return ClientWrite(client: client, sequence: number)
    }

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
