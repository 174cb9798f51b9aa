import CatalogModel
import CatalogStore
import Foundation
import Logging

/// Sends the outbox's pending writes in order, one request at a time (a write alone, or up to
/// ``writesPerRequest`` consecutive writes to one catalogue together), each numbered with the
/// database's client id, and records each answer: applied (acknowledged, with its server
/// revision) or refused for good (rejected, with the server's problem). What may pass later — the network,
/// a 5xx, a stale revision — is sent again after a backoff, so one failure never drops a write
/// and the queue never skips one.
struct OutboxSender: Sendable {
    let store: CatalogStore
    let server: ServerRequests
    let client: String
    let logger: Logger
    /// The replica of each followed catalogue, to settle after an answer.
    let replicas: [String: Replica]
    let changed: @Sendable () -> Void

    /// Sends until cancelled; `wake` yields when the outbox may have grown.
    func run(wake: AsyncStream<Void>, backoff initial: Backoff) async throws {
        var backoff = initial
        var wakes = wake.makeAsyncIterator()
        // Halved when a request is refused as a whole (a proxy's 413), down to one write; grows
        // back as requests pass.
        var limit = Self.writesPerRequest
        while !Task.isCancelled {
            let run: [OutboxEntry]
            do {
                run = try store.nextPending(in: Array(replicas.keys), limit: limit)
            } catch {
                throw CatalogClientError.store(error)
            }
            guard let head = run.first else {
                if await wakes.next() == nil { return }
                continue
            }
            do {
                try await send(run)
                backoff.reset()
                limit = min(Self.writesPerRequest, limit * 2)
            } catch let refused as ServerRequests.WholeRequestRefused where run.count > 1 {
                // Not an answer to any of its writes: sent again in smaller requests at once.
                limit = max(1, run.count / 2)
                logger.info("sending writes \(head.sequence)…\(head.sequence + run.count - 1): \(refused); sending \(limit) at a time")
            } catch let error as CatalogClientError {
                throw error
            } catch is CancellationError {
                return
            } catch {
                logger.info("sending write \(head.sequence): \(error); trying again")
                try await Task.sleep(for: backoff.next())
            }
        }
    }

    /// The most writes one request carries.
    static let writesPerRequest = 100

    /// Sends consecutive writes to one catalogue (one alone as `POST …/batches`, more as `POST
    /// …/writes`) and records each answer; throws what is worth trying again.
    func send(_ run: [OutboxEntry]) async throws {
        let answers = run.count == 1
            ? [try await server.send(batch: run[0].batch, to: run[0].catalog, client: client, sequence: run[0].sequence)]
            : try await server.send(batches: run.map(\.batch), to: run[0].catalog, client: client, first: run[0].sequence)
        // The answers up to the first that must be tried again are recorded together.
        var settled: [(entry: OutboxEntry, serverRevision: Int?, refusal: RecordedAnswer?)] = []
        var failure: (any Error)?
        for (entry, answer) in zip(run, answers) {
            do {
                let (serverRevision, refusal) = try outcome(of: answer, for: entry)
                settled.append((entry, serverRevision, refusal))
            } catch {
                failure = error
                break
            }
        }
        try await settle(settled)
        if let missing = failure as? NumbersMissing {
            try await fill(missing.numbers, catalog: run[0].catalog)
            return
        }
        if let failure { throw failure }
    }

    /// The server has no record of the client's numbers in `numbers`, below its next waiting
    /// write's: its database was copied without the devices' records, or restored from a backup.
    /// Each is taken with a write that changes nothing, so that the waiting writes keep their
    /// numbers and each is still applied once.
    struct NumbersMissing: Error, CustomStringConvertible {
        var numbers: Range<Int>
        var description: String { "the server has no record of writes \(numbers.lowerBound) to \(numbers.upperBound - 1)" }
    }

    /// Sends empty numbered writes for `numbers`, in order, as many to a request as a run.
    func fill(_ numbers: Range<Int>, catalog: String) async throws {
        logger.info("\(NumbersMissing(numbers: numbers)); taking their numbers with writes that change nothing")
        var next = numbers.lowerBound
        while next < numbers.upperBound {
            let count = min(Self.writesPerRequest, numbers.upperBound - next)
            let answers = try await server.send(batches: Array(repeating: Batch(operations: []).json, count: count), to: catalog, client: client, first: next)
            for answer in answers {
                guard answer.status == 200 || RecordedAnswer.refusesForGood(status: answer.status, kind: answer.kind) else {
                    throw ServerRequests.Retry(detail: "taking write number \(next): status \(answer.status)")
                }
                next += 1
            }
        }
    }

    /// What the server's answer to one write means for its entry: applied at a revision, or
    /// refused for good; throws what is worth trying again.
    func outcome(of answer: ServerRequests.Answer, for entry: OutboxEntry) throws -> (serverRevision: Int?, refusal: RecordedAnswer?) {
        switch answer.status {
        case 200:
            guard let revision = answer.revision else {
                throw CatalogClientError.unexpectedAnswer("a write's answer without a revision: \(answer.body.prefix(200))")
            }
            return (revision, nil)
        case 401, 403:
            throw CatalogClientError.unauthorized(answer.detail ?? "status \(answer.status)")
        case 409 where answer.kind == "out-of-sequence":
            // The server has this number already and no longer keeps its answer: it was applied
            // (or refused) long ago. A lower number expected means the server lost the record of
            // the ones between (see `NumbersMissing`).
            guard let expected = answer.expected, expected >= 1, expected != entry.sequence else {
                throw ServerRequests.Retry(detail: "the server expects another write number: \(answer.body.prefix(200))")
            }
            if expected < entry.sequence { throw NumbersMissing(numbers: expected..<entry.sequence) }
            return (0, nil)
        case _ where answer.isServersProblem && RecordedAnswer.refusesForGood(status: answer.status, kind: answer.kind):
            // Only the server's own problem document refuses a write: a proxy's 404 or 413 says
            // nothing of it.
            return (nil, RecordedAnswer(status: answer.status, body: answer.body))
        case 400..<500 where !answer.isServersProblem:
            throw ServerRequests.Retry(detail: "status \(answer.status) that is not the server's own answer: the server is unavailable")
        default:
            throw ServerRequests.Retry(detail: "status \(answer.status)")
        }
    }

    /// Records the answers (to writes of one catalogue: one run) in one local transaction, then
    /// brings the copy up to date once: writes it already took in are dropped from the outbox,
    /// rejected ones from the copy.
    private func settle(_ settled: [(entry: OutboxEntry, serverRevision: Int?, refusal: RecordedAnswer?)]) async throws {
        guard let first = settled.first else { return }
        do {
            try store.settle(settled.map { ($0.entry.sequence, $0.serverRevision, $0.refusal) })
        } catch {
            throw CatalogClientError.store(error)
        }
        if let replica = replicas[first.entry.catalog] {
            let applied = settled.compactMap { item in
                item.refusal == nil ? item.serverRevision.map { (sequence: item.entry.sequence, revision: $0) } : nil
            }
            try await replica.acknowledged(applied, refused: applied.count < settled.count)
        }
        changed()
    }
}
