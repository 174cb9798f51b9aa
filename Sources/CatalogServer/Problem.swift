import CatalogImport
import CatalogLayout
import CatalogModel
import CatalogStore
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

    static let typeBase = "https://catalogkit.dev/problems/"

    var response: Response {
        var members: [(String, OrderedJSON)] = [
            ("type", .string(Self.typeBase + kind)), ("title", .string(status.reasonPhrase)),
            ("status", .integer(status.code)), ("detail", .string(detail)),
        ]
        if let path { members.append(("path", .string(path))) }
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: OrderedJSON.object(members).serialized(pretty: false))))
    }

    /// The problem for any error a handler throws.
    init(_ error: any Error) {
        switch error {
        case let problem as Problem:
            self = problem
        case let error as StoreError:
            self = Self.from(error)
        case let error as ImportError:
            let syntax: Bool = switch error.reason {
            case .empty, .invalidUTF8, .malformed, .unknownFormat, .unreadable: true
            default: false
            }
            self.init(status: syntax ? .badRequest : .unprocessableContent, kind: syntax ? "malformed-body" : "invalid-body",
                      detail: error.message, path: error.path.isEmpty ? nil : error.path)
        case let error as LayoutConfigurationError:
            self.init(status: .badRequest, kind: "invalid-layout", detail: error.description, path: error.key.isEmpty ? nil : error.key)
        case let error as HTTPError:
            self.init(status: error.status, kind: error.status == .contentTooLarge ? "body-too-large" : "http-\(error.status.code)",
                      detail: error.body ?? error.status.reasonPhrase)
        default:
            self.init(status: .internalServerError, kind: "internal", detail: "\(error)")
        }
    }

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
        case .revisionNotReached:
            return Problem(status: .badRequest, kind: "revision-not-reached", detail: error.description, path: "since")
        case .invalidCatalog, .catalogNamedTwice:
            return Problem(status: .unprocessableContent, kind: "invalid-catalog", detail: error.description)
        case .cannotOpen, .database, .positionsNotContiguous, .overCapacity:
            return Problem(status: .internalServerError, kind: "database", detail: error.description)
        }
    }
}

/// Turns every error thrown below it — including the router's own 404s and 413s — into a problem document.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Problem(error).response
        }
    }
}

/// Writes (and with `protectReads`, reads) need `Authorization: Bearer <token>`.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    let protectReads: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isRead = request.method == .get || request.method == .head
        if isRead && !protectReads { return try await next(request, context) }
        guard request.headers[.authorization] == "Bearer \(token)" else {
            var response = Problem(status: .unauthorized, kind: "unauthorized",
                                   detail: "this request needs the header Authorization: Bearer <token>").response
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        return try await next(request, context)
    }
}
