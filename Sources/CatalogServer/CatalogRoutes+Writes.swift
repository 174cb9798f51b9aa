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

/// `POST /catalogs/{name}/writes`: a device's numbered writes, several in one request, and the
/// records of numbered writes refused.
extension CatalogRoutes {
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
}
