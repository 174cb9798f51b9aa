import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogLayout
import CatalogModel
import CatalogStore
import CatalogViews
import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// `GET`, `PUT` and `DELETE /catalogs/{name}`, and its history: the catalogue as a resource.
extension CatalogRoutes {
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
        if let view = try ViewParameters.definition(of: request) {
            // A view: the catalogue's document of the view, with `total`, kept per revision.
            let (current, body) = try await cache.body(for: "view \(name)\u{0}\(ViewParameters.key(view))", revision: revision) {
                let catalog = try await store.catalog(named: name)
                return (catalog.revision, ByteBuffer(string: ViewParameters.document(try ViewParameters.evaluate(view, on: catalog))))
            }
            var response = buffer(body, type: "application/json")
            response.headers[.eTag] = "\"\(current)\""
            return response
        }
        let (current, body) = try await cache.body(for: "snapshot \(name)", revision: revision) {
            // A write may land between the two reads: the snapshot says which revision it is.
            let catalog = try await store.catalog(named: name)
            return (catalog.revision, ByteBuffer(bytes: CatalogExporter.json(catalog, includeRevision: true, pretty: false)))
        }
        var response = buffer(body, type: "application/json")
        response.headers[.eTag] = "\"\(current)\""
        return response
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

    /// Deletes the catalogue (``CatalogStore/delete(_:ifRevision:)``); `If-Match: "REV"` makes it
    /// conditional. Answers `{"catalog", "revision", "sections", "items"}`: what was deleted.
    func deleteCatalog(_ request: Request, name: String) async throws -> Response {
        let expected = try await ifMatch(request, name: name)
        let deleted = try await metrics.write("delete") { try await store.delete([(name, expected)])[0] }
        return json(.object([("catalog", .string(deleted.name)), ("revision", .integer(deleted.revision)),
                             ("sections", .integer(deleted.sections)), ("items", .integer(deleted.items))]))
    }
}
