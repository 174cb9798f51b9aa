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

/// `POST /catalogs/{name}/batches` and `/moves`: edits of a catalogue's items and sections,
/// numbered or not.
extension CatalogRoutes {
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
}
