import CatalogImport
import CatalogLayout
import CatalogModel
import CatalogStore
import CatalogViews
import Foundation
import Hummingbird

/// An error answered as an RFC 9457 problem document (`application/problem+json`):
/// `{"type", "title", "status", "detail", "path"?}`, `path` naming the offending input.
struct Problem: Error {
    var status: HTTPResponse.Status
    /// The problem's kind, also the last part of its `type` URI (`shelf-full`).
    var kind: String
    var detail: String
    var path: String?
    /// Headers the answer carries besides its content type (`Retry-After`, say).
    var headers: HTTPFields = [:]
    /// Members the document carries after the standard ones (`expected`, say).
    var extensions: [(String, OrderedJSON)] = []
    /// Already recorded as the answer to a client's numbered write (``CatalogRoutes/refusal(_:of:fingerprint:)``).
    var isRecorded = false

    static let typeBase = "https://catalogkit.dev/problems/"

    var response: Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
    }

    /// The problem document, serialized.
    var document: String {
        var members: [(String, OrderedJSON)] = [
            ("type", .string(Self.typeBase + kind)), ("title", .string(status.reasonPhrase)),
            ("status", .integer(status.code)), ("detail", .string(detail)),
        ]
        if let path { members.append(("path", .string(path))) }
        members += extensions
        return OrderedJSON.object(members).serialized(pretty: false)
    }

    /// Whether the request itself is refused, so that sending it again gets the same answer
    /// (``RecordedAnswer/refusesForGood(status:kind:)``).
    var isRefusedForGood: Bool { RecordedAnswer.refusesForGood(status: status.code, kind: kind) }

    /// The problem for any error a handler throws.
    init(_ error: any Error) {
        switch error {
        case let problem as Problem:
            self = problem
        case let error as StoreError:
            self = Self.from(error)
        case let error as ImportError:
            if case .tooLarge = error.reason {
                self.init(status: .contentTooLarge, kind: "too-large", detail: error.message, path: error.path.isEmpty ? nil : error.path)
                return
            }
            let syntax: Bool = switch error.reason {
            case .empty, .invalidUTF8, .malformed, .unknownFormat, .unreadable: true
            default: false
            }
            self.init(status: syntax ? .badRequest : .unprocessableContent, kind: syntax ? "malformed-body" : "invalid-body",
                      detail: error.message, path: error.path.isEmpty ? nil : error.path)
        case let error as ViewError:
            self = .view(error)
        case let error as LayoutConfigurationError:
            self.init(status: .badRequest, kind: "invalid-layout", detail: error.description, path: error.key.isEmpty ? nil : error.key)
        case let error as HTTPError:
            self.init(status: error.status, kind: error.status == .contentTooLarge ? "body-too-large" : "http-\(error.status.code)",
                      detail: error.body ?? error.status.reasonPhrase)
        default:
            self.init(status: .internalServerError, kind: "internal", detail: Self.internalDetail)
        }
    }

    /// What a client reads of a failure inside the server: never the database's own words (which
    /// describe its schema); the server's log has them.
    static let internalDetail = "the server could not complete the request; its log says why"

    /// Whether this answer is the server's fault, so that the error behind it is logged.
    var isInternal: Bool { status.code >= 500 }

    init(status: HTTPResponse.Status, kind: String, detail: String, path: String? = nil) {
        self.status = status
        self.kind = kind
        self.detail = detail
        self.path = path
    }

    private static func from(_ error: StoreError) -> Problem {
        switch error {
        case .unknownCatalog:
            return Problem(status: .notFound, kind: "unknown-catalog", detail: error.description)
        case .rejected(_, let batchError):
            let path = batchError.operation.map { "operations[\($0)]" }
            switch batchError.reason {
            case .staleRevision:
                return Problem(status: .conflict, kind: "stale-revision", detail: error.description, path: "baseRevision")
            case .sectionFull, .noRoomToDisplace, .nothingToSwap:
                return Problem(status: .conflict, kind: "shelf-full", detail: error.description, path: path)
            default:
                return Problem(status: .unprocessableContent, kind: "rejected-operation", detail: error.description, path: path)
            }
        case .revisionTooOld:
            return Problem(status: .gone, kind: "revision-too-old", detail: error.description, path: "since")
        case .revisionNotReached(_, _, let current):
            // With the revision the catalogue has: a follower whose copy stands further on knows
            // the server's history went back (a restored backup).
            var problem = Problem(status: .badRequest, kind: "revision-not-reached", detail: error.description, path: "since")
            problem.extensions = [("revision", .integer(current))]
            return problem
        case .invalidCatalog, .catalogNamedTwice:
            return Problem(status: .unprocessableContent, kind: "invalid-catalog", detail: error.description)
        case .catalogExists:
            return Problem(status: .conflict, kind: "catalog-exists", detail: error.description)
        case .invalidSetting:
            return Problem(status: .unprocessableContent, kind: "invalid-setting", detail: error.description)
        case .unavailable:
            // A database server gone for a moment: the client may retry; a balancer's readiness
            // check sends it elsewhere meanwhile.
            return Problem(status: .serviceUnavailable, kind: "database-unavailable", detail: internalDetail)
        case .outOfSequence(_, _, let expected):
            var problem = Problem(status: .conflict, kind: "out-of-sequence", detail: error.description, path: "Catalog-Client-Sequence")
            problem.extensions = [("expected", .integer(expected))]
            return problem
        case .numberTaken:
            return Problem(status: .conflict, kind: "number-taken", detail: error.description, path: "Catalog-Client-ID")
        case .cannotOpen, .database, .positionsOutOfOrder, .overCapacity, .nonCanonicalID, .cannotWatch:
            return Problem(status: .internalServerError, kind: "database", detail: internalDetail)
        }
    }
}

/// Turns every error thrown below it — including the router's own 404s and 413s — into a problem document.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem(error)
            if problem.isInternal {
                context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            }
            return problem.response
        }
    }
}
