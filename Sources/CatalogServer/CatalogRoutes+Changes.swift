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

/// `GET /catalogs/{name}/changes`: one staged changeset from a revision the client has.
extension CatalogRoutes {
    func changes(_ request: Request, name: String) async throws -> Response {
        guard let text = request.uri.queryParameters["since"] else {
            throw Problem(status: .badRequest, kind: "missing-parameter", detail: "add ?since=REVISION", path: "since")
        }
        guard let since = Int(String(text)), since >= 0 else {
            throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "since must be a revision (an integer ≥ 0), found \"\(text)\"", path: "since")
        }
        let revision = try await store.revision(of: name)
        let store = self.store
        if let view = try ViewParameters.definition(of: request) {
            // A view's changeset: the view at `since` to the view now.
            let (_, body) = try await cache.body(for: "view changes \(name) \(since)\u{0}\(ViewParameters.key(view))", revision: revision) {
                let changeset = try await store.changes(in: name, since: since, view: view)
                return (changeset.toRevision ?? revision, ByteBuffer(bytes: Documents.compactChangeset(changeset)))
            }
            return buffer(body, type: "application/json")
        }
        let (_, body) = try await cache.body(for: "changes \(name) \(since)", revision: revision) {
            let changeset = try await store.changes(in: name, since: since)
            return (changeset.toRevision ?? revision, ByteBuffer(bytes: Documents.compactChangeset(changeset)))
        }
        return buffer(body, type: "application/json")
    }
}
