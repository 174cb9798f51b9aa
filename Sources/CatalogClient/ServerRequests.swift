import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The requests a client makes of a `catalog serve` (docs/HTTP-API.md): the event streams of the
/// followed catalogues, with their sections, and numbered writes.
struct ServerRequests: Sendable {
    let base: String
    let credential: ClientCredential
    let transport: any CatalogTransport
    /// The most bytes one line or one event of the stream may take (``ServerSentEventParser``).
    let maxEventBytes: Int

    /// `server` checked: an http or https URL with a host.
    init(server: URL, token: String?, transport: any CatalogTransport, maxEventBytes: Int = ServerSentEventParser.defaultLimit) throws(CatalogClientError) {
        try self.init(server: server, credential: ClientCredential(token: token), transport: transport, maxEventBytes: maxEventBytes)
    }

    init(server: URL, credential: ClientCredential, transport: any CatalogTransport, maxEventBytes: Int = ServerSentEventParser.defaultLimit) throws(CatalogClientError) {
        guard let scheme = server.scheme?.lowercased(), scheme == "http" || scheme == "https", server.host?.isEmpty == false else {
            throw .invalidServer(server.absoluteString)
        }
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.credential = credential
        self.transport = transport
        self.maxEventBytes = maxEventBytes
    }

    func path(of catalog: String) -> String {
        base + "/catalogs/" + (catalog.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? catalog)
    }

    /// Where one followed catalogue's stream starts (a member of `POST /events`): from `since`
    /// when given — with the `fingerprint` of the catalogue the client holds there, so that the
    /// server resumes only on that history — as `client` (its acknowledgements).
    struct StreamStart: Encodable, Sendable {
        var name: String
        var since: Int?
        var fingerprint: String?
        var client: String?
    }

    /// `POST /events`: the event streams of `catalogs` on one connection; the response once its
    /// head arrives (a non-200 is read whole and turned into an error).
    func events(of catalogs: [StreamStart]) async throws -> CatalogResponse {
        struct Body: Encodable { var catalogs: [StreamStart] }
        let request = CatalogRequest(method: "POST", url: try url(base + "/events"),
                                     headers: [("Accept", "text/event-stream"), ("Content-Type", "application/json")],
                                     body: try JSONEncoder().encode(Body(catalogs: catalogs)), timeout: .seconds(365 * 86_400))
        let response = try await execute(request)
        guard response.status == 200 else {
            let body = try await response.collect(upTo: 1 << 20)
            throw Self.failure(response.status, body: String(decoding: body, as: UTF8.self), catalog: nil)
        }
        // A 200 that is not an event stream (a proxy's page, another program) is not read.
        let type = response.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "text/event-stream" else {
            throw Retry(detail: "the server answered the event stream with \(type.map { "a body of \($0)" } ?? "no Content-Type"), not text/event-stream")
        }
        return response
    }

    /// The catalogue's current revision (`HEAD /catalogs/{name}`, its ETag).
    func revision(of catalog: String) async throws -> Int {
        let response = try await execute(CatalogRequest(method: "HEAD", url: try url(path(of: catalog)), timeout: .seconds(60)))
        guard response.status == 200 else { throw Self.failure(response.status, body: "", catalog: catalog) }
        guard let tag = response.header("ETag"), let revision = Int(tag.trimmingCharacters(in: CharacterSet(charactersIn: "\"W/"))) else {
            throw CatalogClientError.unexpectedAnswer("a snapshot without a revision as its ETag")
        }
        return revision
    }

    /// Sends a queued write as `POST /catalogs/{name}/batches`, numbered.
    func send(batch: String, to catalog: String, client: String, sequence: Int) async throws -> Answer {
        let request = try numbered(path(of: catalog) + "/batches", body: batch, client: client, sequence: sequence, timeout: .seconds(60))
        let response = try await execute(request)
        let body = try await response.collect(upTo: 16 << 20)
        return Answer(status: response.status, body: String(decoding: body, as: UTF8.self))
    }

    /// Sends consecutive queued writes as one `POST /catalogs/{name}/writes`: the answer of
    /// each, in order, as far as the server went.
    func send(batches: [String], to catalog: String, client: String, first: Int) async throws -> [Answer] {
        let request = try numbered(path(of: catalog) + "/writes", body: "[" + batches.joined(separator: ",") + "]", client: client, sequence: first,
                                   timeout: .seconds(120))
        let response = try await execute(request)
        let body = try await response.collect(upTo: 64 << 20)
        // The server answers each write in a 200; any other status refused the request as a
        // whole (the server's 413 or 400 before any write was read, a proxy's page): no write's
        // answer.
        guard response.status == 200 else {
            let answer = Answer(status: response.status, body: String(decoding: body, as: UTF8.self))
            if response.status == 401 || response.status == 403 { return [answer] }
            throw WholeRequestRefused(status: answer.status, detail: answer.detail ?? String(answer.body.prefix(120)))
        }
        // Unreadable (cut short on the way, a proxy's page): the answers are lost, and the
        // request is sent again — the server answers it from its record.
        guard let document = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
              let answers = document["answers"] as? [[String: Any]] else {
            throw Retry(detail: "the answer to numbered writes is not {\"answers\": […]}")
        }
        return try answers.map { answer in
            guard let status = answer["status"] as? Int, let content = answer["body"] as? [String: Any] else {
                throw Retry(detail: "an answer without a status and a body")
            }
            return Answer(status: status, document: content)
        }
    }

    /// A `POST` of a JSON body with the client's id and the (first) write's number.
    private func numbered(_ address: String, body: String, client: String, sequence: Int, timeout: Duration) throws -> CatalogRequest {
        CatalogRequest(method: "POST", url: try url(address),
                       headers: [("Content-Type", "application/json"), ("Catalog-Client-ID", client), ("Catalog-Client-Sequence", String(sequence))],
                       body: Data(body.utf8), timeout: timeout)
    }

    private func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw CatalogClientError.invalidServer(text) }
        return url
    }

    /// A write's answer: its status, what the client reads of its document, and the document
    /// itself (kept with a refusal).
    struct Answer: Sendable {
        /// Where the types of CatalogKit's problem documents live.
        static let problemTypes = "https://catalogkit.dev/problems/"
        var status: Int
        var body: String
        /// An applied write's revision.
        var revision: Int?
        /// Whether the body is a problem document of CatalogKit's (its `type` under
        /// `https://catalogkit.dev/problems/`): the server's own answer, not a proxy's.
        var isServersProblem: Bool
        /// A problem's kind, the last part of its `type` (`shelf-full`), and its members.
        var kind: String?
        var detail: String?
        var expected: Int?

        /// An answer read from its body (not JSON: none of the members).
        init(status: Int, body: String) {
            let document = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
            self.init(status: status, document: document, body: body)
        }

        /// An answer already parsed; its body is written out again only for a refusal, the one
        /// answer the outbox keeps.
        init(status: Int, document: [String: Any], body: String? = nil) {
            self.status = status
            revision = document["revision"] as? Int
            let type = document["type"] as? String
            isServersProblem = type?.hasPrefix(Self.problemTypes) ?? false
            kind = type?.split(separator: "/").last.map(String.init)
            detail = document["detail"] as? String
            expected = document["expected"] as? Int
            self.body = body ?? (status == 200 ? "" : (try? JSONSerialization.data(withJSONObject: document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
        }
    }

    /// A request of several writes refused as a whole: none of its writes was answered.
    struct WholeRequestRefused: Error, CustomStringConvertible {
        var status: Int
        var detail: String
        var description: String { "the request was refused as a whole (\(status): \(detail))" }
    }

    /// `request` with the credential's token; on a 401, once more with the token the credential
    /// replaces it by (the app's provider asked again), when there is one.
    private func execute(_ request: CatalogRequest) async throws -> CatalogResponse {
        let token = try await credential.current()
        let response = try await transport.send(authorized(request, token))
        guard response.status == 401, let replacement = (try? await credential.replacing(token)) ?? nil else { return response }
        _ = try? await response.collect(upTo: 1 << 20)
        return try await transport.send(authorized(request, replacement))
    }

    private func authorized(_ request: CatalogRequest, _ token: String?) -> CatalogRequest {
        var request = request
        request.headers.removeAll { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }
        if let token { request.headers.append(("Authorization", "Bearer \(token)")) }
        return request
    }

    /// What a refused request means: a catalogue the server lacks — in its own words, a problem
    /// document of type `unknown-catalog` about `catalog` — and a refused token stop the client;
    /// anything else (another 404, a proxy's page, a 5xx) is the server being unavailable, and
    /// retried.
    static func failure(_ status: Int, body: String, catalog: String?) -> any Error {
        let answer = Answer(status: status, body: body)
        let detail = answer.detail ?? HTTPURLResponse.localizedString(forStatusCode: status)
        switch status {
        case 404 where answer.isServersProblem && answer.kind == "unknown-catalog":
            if let catalog { return CatalogClientError.unknownCatalog(catalog) }
            return Retry(detail: "404 unknown-catalog for a request of many catalogues: \(detail)")
        case 404: return Retry(detail: "404 that is not the server's own answer (\(String(body.prefix(80)).debugDescription)): the server is unavailable")
        case 401, 403: return CatalogClientError.unauthorized(detail)
        default: return Retry(detail: "\(status) \(detail)")
        }
    }

    /// A failure worth trying again after a wait.
    struct Retry: Error, CustomStringConvertible {
        var detail: String
        var description: String { detail }
    }
}
