import CatalogModel
import CatalogStore
import Foundation

/// Sends the outbox's pending writes in order, one request at a time (a write alone, or up to
/// ``writesPerRequest`` consecutive writes to one catalogue together), each numbered with the
/// database's client id, and records each answer: applied (acknowledged, with its server
/// revision) or refused for good (rejected, with the server's problem). What may pass later — the network,
/// a 5xx, a stale revision — is sent again after a backoff, so one failure never drops a write
/// and the queue never skips one.
struct OutboxSender: Sendable {
    let store: CatalogStore
    let server: ServerRequests
    let log: CatalogClientLog
    /// The replica of each followed catalogue, to settle after an answer.
    let replicas: [String: Replica]
    let changed: @Sendable () -> Void
    /// Tells the app of what it may show (a new client id).
    let report: @Sendable (CatalogClientEvent) -> Void

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
                log.info("sending writes \(head.sequence)…\(head.sequence + run.count - 1): \(refused); sending \(limit) at a time")
            } catch let error as CatalogClientError {
                throw error
            } catch is CancellationError {
                return
            } catch {
                log.info("sending write \(head.sequence): \(error); trying again")
                try await Task.sleep(for: backoff.next())
            }
        }
    }

    /// The most writes one request carries.
    static let writesPerRequest = 100

    /// Sends consecutive writes to one catalogue (one alone as `POST …/batches`, more as `POST
    /// …/writes`) and records each answer; throws what is worth trying again.
    func send(_ run: [OutboxEntry]) async throws {
        guard let head = run.first, let client = head.client, let first = head.number else { return }
        let answers = run.count == 1
            ? [try await server.send(batch: head.batch, to: head.catalog, client: client, sequence: first)]
            : try await server.send(batches: run.map(\.batch), to: head.catalog, client: client, first: first)
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
        if let strange = failure as? StrangeNumbers {
            // The writes still waiting are sent again, numbered afresh under a new id.
            let renamed: String
            do {
                renamed = try store.renumber(head.catalog, because: strange.record(of: head.client ?? ""))
            } catch {
                throw CatalogClientError.store(error)
            }
            if renamed == head.client {
                log.warning("writes to \(head.catalog): \(strange); they are sent again under their numbers")
            } else {
                log.warning("writes to \(head.catalog): \(strange); they are sent again under the new client id \(renamed)")
                report(.newClientID(catalog: head.catalog))
            }
            // After the wait, like any failure: a server that never agrees is asked less and less often.
            throw ServerRequests.Retry(detail: "renumbered under \(renamed)")
        }
        if let failure { throw failure }
    }

    /// The server's record of the client id of a catalogue's writes does not fit the device's:
    /// another device uses the id (its database a copy of this one: the number is taken by
    /// another write, or the server is further on than this device ever sent), or the server
    /// lost its record (its database restored from a backup, or copied without the devices'
    /// records). A new client id has no record anywhere: the waiting writes are numbered afresh
    /// under it, and each is applied once.
    struct StrangeNumbers: Error, CustomStringConvertible {
        var detail: String
        /// What the answer says of the server's record: its last number, when it is below the
        /// write's (the server lost writes of this id); nil when another device uses the id.
        var serversLast: Int?
        var description: String { detail }

        func record(of client: String) -> CatalogStore.ForeignRecord {
            serversLast.map { .lostAfter(client: client, number: $0) } ?? .sharedWithAnotherDevice(client: client)
        }
    }

    /// What the server's answer to one write means for its entry: applied at a revision, or
    /// refused for good; throws what is worth trying again.
    func outcome(of answer: ServerRequests.Answer, for entry: OutboxEntry) throws -> (serverRevision: Int?, refusal: RecordedAnswer?) {
        let number = entry.number ?? 0
        switch answer.status {
        case 200:
            // Unreadable (cut short on the way, a proxy's page): the answer is lost, not refused —
            // the resend gets the server's record of it.
            guard let revision = answer.revision else {
                throw ServerRequests.Retry(detail: "a write's answer without a revision: \(answer.body.prefix(200))")
            }
            return (revision, nil)
        case 401, 403:
            throw CatalogClientError.unauthorized(answer.detail ?? "status \(answer.status)")
        case 409 where answer.isServersProblem && answer.kind == "number-taken":
            throw StrangeNumbers(detail: "the server has another write under number \(number) (a copy of this database on another device?)")
        case 409 where answer.isServersProblem && answer.kind == "out-of-sequence":
            // A device sends its next request only once it has the answer to the one before,
            // and a resend of that request is answered from the server's record: so the server
            // expecting another number than this one means its record is not this device's.
            guard let expected = answer.expected, expected >= 1, expected != number else {
                throw ServerRequests.Retry(detail: "the server expects another write number: \(answer.body.prefix(200))")
            }
            throw StrangeNumbers(detail: expected > number
                ? "the server expects write \(expected), past write \(number), which this device never had answered (a copy of this database on another device?)"
                : "the server expects write \(expected), before write \(number): it lost its record of this device's writes",
                                 serversLast: expected > number ? nil : expected - 1)
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
