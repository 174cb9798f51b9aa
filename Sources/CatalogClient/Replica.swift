import CatalogDiff
import CatalogImport
import CatalogModel
import CatalogStore
import Foundation

/// One followed catalogue: the server's catalogue as last heard (`confirmed`), and the local
/// copy kept equal to it with the outbox's writes replayed on top.
///
/// The events of one read of the stream are taken in with one local transaction
/// (`CatalogStore.takeIn`) that writes only the sections that differ and records the server
/// revision, so local observers see one ordinary update for them and a restart resumes where the
/// copy stands.
actor Replica {
    let name: String
    let store: CatalogStore
    let server: ServerRequests
    let log: CatalogClientLog
    let changed: @Sendable () -> Void
    let report: @Sendable (CatalogClientEvent) -> Void
    /// The server's catalogue at the revision the copy has taken in; nil until known.
    private(set) var confirmed: Catalog? {
        didSet { fingerprint = nil }
    }
    /// `confirmed`'s fingerprint, sent when the stream resumes from its revision; made when needed.
    private var fingerprint: (revision: Int, value: String)?
    /// The stream's last `acknowledged` event: what the whole catalogue that follows it, at
    /// `revision`, holds of the writes under `client`.
    private var acknowledgement: (client: String, number: Int, revision: Int)?
    /// The server's history was found to differ from the copy's (restored, or another
    /// database): told to the app once the copy has taken the new history's snapshot in, with
    /// the writes sent again.
    private var historyChange: Int?
    /// The server is another database than the one the copy followed (its identity differs):
    /// its records of the device's writes say nothing of what its catalogues hold — a copy of
    /// chosen catalogues has their content without the records — so nothing acknowledged is
    /// sent again to it.
    private var anotherDatabase = false
    /// Waiting writes that `confirmed` already holds: their server change came before their
    /// answer (see ``takeIn(_:)``).
    private var absorbed = Set<Int>()
    /// The outbox's batches, decoded once.
    private var batches: [Int: Batch] = [:]
    /// The copy as this replica last wrote it, at its local revision: while no other write lands,
    /// it is what the store holds, and a change is compared with it (sections it shares with
    /// `confirmed` compare at once) instead of with the copy read back whole.
    private var shown: Catalog?

    init(name: String, store: CatalogStore, server: ServerRequests, log: CatalogClientLog, changed: @escaping @Sendable () -> Void,
         report: @escaping @Sendable (CatalogClientEvent) -> Void = { _ in }) {
        self.name = name
        self.store = store
        self.server = server
        self.log = log
        self.changed = changed
        self.report = report
    }

    /// Whether the device took a copy of the catalogue from the server: then the server's not
    /// having it means it was deleted there, not that its name is wrong.
    private func hadCopy() throws -> Bool {
        (try store.followedCatalogs().first { $0.name == name }?.serverRevision ?? 0) > 0
    }

    /// The server deleted the catalogue: the copy goes too, and the writes still waiting for it
    /// are rejected with the server's reason.
    private func mirrorDeletion(of name: String, at revision: Int? = nil, unknown: Bool = false) throws {
        let detail = unknown ? "the server does not have the catalogue \"\(name)\" the copy came from"
            : "the server deleted the catalogue \"\(name)\"" + (revision.map { " at revision \($0)" } ?? "")
        var body = "{\"type\":\"https://catalogkit.dev/problems/unknown-catalog\",\"title\":\"Not Found\",\"status\":404,\"detail\":"
        appendJSONString(detail, to: &body)
        try store.unfollowDeleted(name, answer: RecordedAnswer(status: 404, body: body + "}"))
        (confirmed, shown) = (nil, nil)
        log.info("\(detail); its copy is deleted too")
        changed()
    }

    /// The server catalogue the copy stands on, when it can be known without asking the server:
    /// the copy itself, when no write of the device is waiting.
    func start() throws(CatalogClientError) {
        do {
            guard let followed = try store.followedCatalogs().first(where: { $0.name == name }), followed.serverRevision > 0,
                  !followed.isUnrepaired,
                  try store.outbox(of: name).allSatisfy({ $0.state == .rejected }),
                  var copy = try Self.copy(named: name, in: store) else { return }
            copy.revision = followed.serverRevision
            confirmed = copy
        } catch {
            throw .store(error)
        }
    }

    /// The local copy; nil before the first snapshot.
    static func copy(named name: String, in store: CatalogStore) throws(StoreError) -> Catalog? {
        try absentIfUnknown { () throws(StoreError) in try store.catalog(named: name) }
    }

    /// The local copy's revision; nil before the first snapshot.
    static func revision(of name: String, in store: CatalogStore) throws(StoreError) -> Int? {
        try absentIfUnknown { () throws(StoreError) in try store.revision(of: name) }
    }

    private static func absentIfUnknown<T>(_ read: () throws(StoreError) -> T) throws(StoreError) -> T? {
        do {
            return try read()
        } catch {
            if case .unknownCatalog = error { return nil }
            throw error
        }
    }

    /// Where this catalogue's stream starts on a new connection: the revision the copy has, with
    /// its fingerprint (or a snapshot first), as the device's client id.
    func streamStart() throws -> ServerRequests.StreamStart {
        let following = try store.following(name)
        knownIdentity = following?.serverIdentity
        acknowledgement = nil
        resumedFrom = confirmed?.revision
        // Known before the request: a write answered after it may come before the stream's
        // state of the moment, which is then no sign of a server gone back.
        reached = following?.reached
        return ServerRequests.StreamStart(name: name, since: resumedFrom, fingerprint: confirmedFingerprint(), client: following?.client)
    }

    /// The server database that answered the connection (its `Catalog-Server-ID`, recorded
    /// already): false when it is another than the one the copy followed — whatever its
    /// revisions say, the copy does not stand on its history, and takes its snapshot on the
    /// next connection.
    func opened(by identity: String) -> Bool {
        guard let knownIdentity, knownIdentity != identity else { return true }
        log.warning("event stream of \(name): the server is another database (\(identity.prefix(40)), was \(knownIdentity.prefix(40))); taking its snapshot")
        (confirmed, shown) = (nil, nil)
        absorbed.removeAll()
        historyChange = historyChange ?? 0
        anotherDatabase = true
        self.knownIdentity = identity
        return false
    }

    /// What the events of one read did to the copy.
    enum Taken {
        case nothing, tookIn
        /// The catalogue was deleted on the server: so is the copy, and it is no longer followed.
        case deleted
    }

    /// Takes in the events of this catalogue that arrived together, with one local transaction
    /// for all of them, so that a copy that falls behind (an outbox draining, a burst of writes)
    /// catches up in fewer, larger steps instead of one per revision. Throws what drops the
    /// connection: an event that cannot be trusted, or that could not be taken in.
    func take(_ events: [ServerSentEventParser.Event]) throws -> Taken {
        var followUp = FollowUp.nothing
        var current: ServerSentEventParser.Event?
        do {
            for event in events {
                current = event
                if event.event == "deleted" || event.event == "unknown" {
                    // The server's own word: deleted (while followed, or while away) at its last
                    // revision; or a name it does not have — the app's mistake, unless the copy
                    // came from it (a server that lost the catalogue).
                    try finish(followUp)
                    let deletedAt = event.event == "deleted" ? Self.deletedRevision(in: Data(event.data.utf8)) : nil
                    guard try event.event == "deleted" || hadCopy() else { throw CatalogClientError.unknownCatalog(name) }
                    try mirrorDeletion(of: name, at: deletedAt, unknown: event.event == "unknown")
                    return .deleted
                }
                followUp = max(followUp, try takeIn(event))
            }
            failedEvent = nil
        } catch {
            // What came before the bad event is taken in; then, for an event that cannot be
            // trusted — or that could not be taken in twice in a row — the copy starts again
            // from a snapshot, instead of asking for the same event again and again.
            try? finish(followUp)
            if let untrusted = error as? UntrustedEvent {
                confirmed = nil
                log.warning("event stream of \(name): \(untrusted); taking a fresh snapshot")
            } else if let current, !(error is ServerRequests.Retry), !(error is CatalogClientError) {
                if failedEvent == current.id {
                    confirmed = nil
                    failedEvent = nil
                    log.warning("event stream of \(name): event \((current.id ?? "").prefix(40)) could not be taken in twice (\(error)); taking a fresh snapshot")
                } else {
                    failedEvent = current.id
                }
            }
            throw error
        }
        try finish(followUp)
        return followUp == .nothing ? .nothing : .tookIn
    }

    /// The server database the copy followed when the connection opened.
    private var knownIdentity: String?
    /// The latest revision the server was known to have reached when the connection opened,
    /// until its first whole catalogue: one at an earlier revision says it went back.
    private var reached: Int?

    /// The id of the last event that could not be taken in, while the next one has not been.
    private var failedEvent: String?
    /// The revision the stream was asked to resume from, while it has sent nothing whole yet: a
    /// `snapshot` now says the server does not have the history the copy stands on.
    private var resumedFrom: Int?

    /// The fingerprint of `confirmed`, made once per revision.
    private func confirmedFingerprint() -> String? {
        guard let confirmed else { return nil }
        if let fingerprint, fingerprint.revision == confirmed.revision { return fingerprint.value }
        let value = CatalogExporter.fingerprint(confirmed)
        fingerprint = (confirmed.revision, value)
        return value
    }

    /// What the local store needs after events were taken in; a later need covers an earlier
    /// one (``settle()`` records the server revision as ``confirm()`` does).
    enum FollowUp: Int, Comparable {
        case nothing, confirm, settle

        static func < (a: FollowUp, b: FollowUp) -> Bool { a.rawValue < b.rawValue }
    }

    func finish(_ followUp: FollowUp) throws {
        switch followUp {
        case .nothing: return
        case .confirm: try confirm()
        case .settle: try settle()
        }
    }

    /// Takes one event in: `confirmed` follows it, and the answer says what the local store
    /// needs for it.
    func takeIn(_ event: ServerSentEventParser.Event) throws -> FollowUp {
        if event.event == "acknowledged" {
            acknowledgement = try? Self.acknowledgement(in: Data(event.data.utf8))
            return .nothing
        }
        // A server's numbers are not trusted: an id that is not a revision, or a change that does
        // not go forward, drops the stream, and the copy starts again from a snapshot.
        let revision: Int
        do {
            guard let given = try event.revision() else { return .nothing }
            revision = given
        } catch {
            throw UntrustedEvent(detail: "the event id \"\(error.id.prefix(40))\", which is not a revision")
        }
        let data = Data(event.data.utf8)
        switch event.event {
        case "changes":
            let (from, patch) = try Self.change(in: data)
            guard from >= 0, revision > from else {
                throw UntrustedEvent(detail: "a change from revision \(from) to revision \(revision)")
            }
            resumedFrom = nil
            guard let base = confirmed, from == base.revision else {
                // Not from where the copy stands: start again from a snapshot.
                let had = confirmed?.revision
                confirmed = nil
                throw ServerRequests.Retry(detail: "a change from revision \(from), the copy has \(had.map(String.init) ?? "none")")
            }
            if acknowledgement != nil { try reconcile(at: revision) }
            var next = try base.applying(patch)
            next.revision = revision
            // The usual case while the outbox drains: the change is the next writes waiting on
            // the previous catalogue, one per revision it spans. The copy already shows them on
            // top of that, so it stays as it is.
            let span = revision - base.revision
            let mine = span <= Self.longestSpanOfOwnWrites
                ? try store.waiting(in: name, after: base.revision, excluding: absorbed, limit: span) : []
            confirmed = next
            if mine.count == span, let theirs = replaying(mine, on: base, strictly: true), theirs.sections == next.sections {
                absorbed.formUnion(mine.map(\.sequence))
                return .confirm
            }
        case "snapshot", "reset":
            var catalog = try Self.catalog(in: data)
            catalog.name = name
            catalog.revision = revision
            // (Another database's revisions say nothing of this one's history.)
            let wentBack = !anotherDatabase && revision < (reached ?? 0)
            if resumedFrom != nil && event.event == "snapshot" || wentBack {
                // Asked to resume, the server starts over — or it is at an earlier revision than
                // it once was: it lacks the copy's history.
                log.warning("event stream of \(name): the server does not have the history the copy stands on; taking its snapshot")
                historyChange = historyChange ?? 0
                absorbed.removeAll()
                if wentBack {
                    // It went back (a restored backup; `reached` is at least the copy's
                    // revision): what it acknowledged at revisions it no longer has waits again,
                    // under its numbers.
                    let lost = try store.resend(acknowledgedAfter: revision, in: name)
                    historyChange = (historyChange ?? 0) + lost
                    if lost > 0 { log.warning("writes to \(name): the server is back at revision \(revision); the \(lost) writes it acknowledged later are sent again") }
                }
            }
            reached = nil
            resumedFrom = nil
            try reconcile(at: revision)
            confirmed = catalog
        default:
            return .nothing
        }
        return .settle
    }

    /// Before a whole catalogue at `revision` is taken in: what the stream's acknowledgement says
    /// of the device's writes (``CatalogStore/reconcile(_:client:number:revision:)``), and the
    /// app told of a history that changed.
    private func reconcile(at revision: Int) throws {
        defer { acknowledgement = nil }
        var resent = 0
        defer { anotherDatabase = false }
        if let acknowledgement, acknowledgement.revision == revision, !anotherDatabase {
            let outcome = try store.reconcile(name, client: acknowledgement.client, number: acknowledgement.number, revision: revision,
                                              historyChanged: historyChange != nil)
            resent = outcome.resent
            if let renamed = outcome.newClient {
                log.warning("writes to \(name): the server has writes under number \(acknowledgement.number) of this device's client id, which gave only fewer (a copy of this database on another device?); they are sent again under the new client id \(renamed)")
                report(.newClientID(catalog: name))
            }
        }
        guard resent > 0 || historyChange != nil else { return }
        let total = (historyChange ?? 0) + resent
        historyChange = nil
        if resent > 0 { log.warning("writes to \(name): \(resent) acknowledged writes are not on the server's history; they are sent again") }
        report(.historyChanged(catalog: name, resent: total))
        changed()
    }

    /// The last revision a `deleted` event names, if any.
    static func deletedRevision(in data: Data) -> Int? {
        ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["revision"] as? Int
    }

    /// The members of an `acknowledged` event.
    static func acknowledgement(in data: Data) throws -> (client: String, number: Int, revision: Int) {
        struct Members: Decodable {
            var client: String
            var number: Int
            var revision: Int
        }
        let members = try JSONDecoder().decode(Members.self, from: data)
        return (members.client, members.number, members.revision)
    }

    /// Brings the copy to the confirmed catalogue with the outbox's waiting writes on top, in one
    /// local transaction; again when a write of the app lands in between.
    func settle() throws {
        guard let confirmed else { return }
        while true {
            let local = if let shown, try Self.revision(of: name, in: store) == shown.revision { shown } else { try Self.copy(named: name, in: store) }
            let waiting = try waiting()
            var target = replaying(waiting, on: confirmed) ?? confirmed
            target.name = name
            let patch = SectionPatch(from: local ?? Catalog(name: name), to: target)
            do {
                shown = target
                shown?.revision = try store.takeIn(name, patch: patch, expecting: local?.revision, serverRevision: confirmed.revision).revision
                changed()
                return
            } catch {
                // A write of the app landed since the copy was read: read it again.
                guard case .rejected(_, let refusal) = error, case .staleRevision = refusal.reason else { throw error }
            }
        }
    }

    /// Records that the copy, left as it is, stands on `confirmed` (a change the copy already
    /// showed): the server revision, and the acknowledged writes it holds leave the outbox.
    func confirm() throws {
        guard let confirmed else { return }
        try store.stand(name, on: confirmed.revision)
        changed()
    }

    /// Writes acknowledged at their revisions (the answers of one request), and whether any was
    /// refused: the copy already shows the applied ones, and once the confirmed catalogue holds
    /// them too they leave the outbox; a refused one leaves the copy. One local transaction for
    /// them all.
    func acknowledged(_ writes: [(sequence: Int, revision: Int)], refused: Bool) throws {
        guard let confirmed else { return }
        var (stand, bringUp) = (false, refused)
        for (sequence, revision) in writes where revision <= confirmed.revision {
            if absorbed.remove(sequence) != nil { stand = true } else { bringUp = true }
        }
        if bringUp { try settle() } else if stand { try confirm() }
    }

    /// The outbox's writes the confirmed catalogue does not hold yet, in order.
    private func waiting() throws -> [OutboxEntry] {
        let revision = confirmed?.revision ?? 0
        let entries = try store.outbox(of: name)
        // Absorbed writes that left the outbox, or were refused after all, are forgotten.
        absorbed.formIntersection(entries.filter { $0.state != .rejected }.map(\.sequence))
        return entries.filter { entry in
            switch entry.state {
            case .pending: !absorbed.contains(entry.sequence)
            case .acknowledged: (entry.serverRevision ?? 0) > revision && !absorbed.contains(entry.sequence)
            case .rejected: false
            }
        }
    }

    /// The entry's batch (nil when it does not read: it is sent as it is, and the server says why).
    private func batch(of entry: OutboxEntry) -> Batch? {
        if let batch = batches[entry.sequence] { return batch }
        let batch = try? BatchReader.decode(Data(entry.batch.utf8), fileName: "outbox")
        if batches.count > 10_000 { batches.removeAll() }
        batches[entry.sequence] = batch
        return batch
    }

    /// The most revisions a change may span for ``takeIn(_:)`` to try it as the device's own writes.
    static let longestSpanOfOwnWrites = 256

    /// `base` with each waiting write applied in order; one that no longer applies (the server
    /// will say why) is left out — or, `strictly`, makes the result nil.
    private func replaying(_ entries: [OutboxEntry], on base: Catalog, strictly: Bool = false) -> Catalog? {
        guard !entries.isEmpty else { return base }
        var applied: [Batch] = []
        var editor = CatalogEditor(source: InMemoryCatalogSource(base))
        for entry in entries {
            guard let batch = batch(of: entry) else {
                if strictly { return nil }
                continue
            }
            do {
                try editor.apply(batch)
                applied.append(batch)
            } catch {
                if strictly { return nil }
                // Part of it may have been applied: start again from the writes that applied.
                editor = CatalogEditor(source: InMemoryCatalogSource(base))
                for batch in applied { try? editor.apply(batch) }
            }
        }
        var result = editor.result(from: base)
        result.revision = base.revision
        return result
    }

    /// What a change of an `include=sections` stream carries: the revision it starts from, and
    /// its sections (read as a native catalogue, strictly) with the new order, if any. The
    /// changeset itself is not needed: the sections say everything the copy takes in.
    static func change(in data: Data) throws -> (from: Int, SectionPatch) {
        struct Members: Decodable {
            var fromRevision: Int
            var sectionOrder: [String]?
        }
        let members = try JSONDecoder().decode(Members.self, from: data)
        return (members.fromRevision, SectionPatch(sections: try catalog(in: data).sections, order: members.sectionOrder))
    }

    /// A native catalogue document (or the catalogue part of a change with sections).
    static func catalog(in data: Data) throws -> Catalog {
        var options = ImportOptions(format: .json)
        options.shape = .native
        return try CatalogImporter.decode(data, fileName: "event", options: options).catalog
    }
}

/// An event whose numbers no server of CatalogKit sends: the stream is dropped and the copy starts
/// again from a snapshot.
struct UntrustedEvent: Error, CustomStringConvertible {
    var detail: String
    var description: String { "the server sent \(detail)" }
}
