import CatalogConcurrency
import CatalogDiff
import CatalogModel
import CatalogStoreCore
import Foundation
import PostgresNIO

extension PostgresCatalogStore: ObservedDatabase {
    /// The channel every write notifies on commit: `REVISION NAME` for a write, `- NAME` for a
    /// deletion. Only a wake-up — the changes themselves are read from the journal by revision.
    static let channel = "catalogkit_revisions"

    /// Payloads past this many bytes say only "look again" (`*`): NOTIFY refuses 8,000 and more.
    static let largestPayload = 7_000

    /// Every change to the catalogue named `name`, as it happens, from any instance on the
    /// database (see ``CatalogStore/updates(of:from:resetThreshold:)``): no revision missed or
    /// repeated, a slow consumer gets one update for all it missed.
    ///
    /// Other instances' writes arrive through LISTEN/NOTIFY on a connection of the store's own,
    /// held while anyone observes. A dropped connection is opened again, listens again and reads
    /// every catalogue's revision, so observers catch up through the journal; a check every
    /// ``watchInterval`` covers a notification lost otherwise.
    public func updates(of name: String, from revision: Int? = nil, resetThreshold: Int = 10_000) -> CatalogUpdates {
        CatalogUpdates(observer: observer(of: name, from: revision, resetThreshold: resetThreshold))
    }

    public func observer(of name: String, from revision: Int? = nil, resetThreshold: Int = 10_000) -> CatalogObserver {
        CatalogObserver(store: self, name: Identifier.canonical(name), from: revision, resetThreshold: resetThreshold)
    }

    package func keptUpdate(of name: String, from revision: Int) -> CatalogUpdate? {
        updateCache.kept(UpdateCache.Key(name: name, from: revision, to: revision + 1))
    }

    package func update(of name: String, since revision: Int?, having held: Catalog?, current: Int,
                        resetThreshold: Int) async throws(StoreError) -> CatalogUpdate {
        if let revision, let kept = updateCache.kept(UpdateCache.Key(name: name, from: revision, to: current)) { return kept }
        if let revision, let held, held.revision == revision {
            return try await update(of: name, from: held, current: current, resetThreshold: resetThreshold)
        }
        // A first snapshot: subscribers that connect together share reads of the present too.
        guard let revision else { return .reset(try await present(of: name, atLeast: current)) }
        // One observer of a catalogue at a time: many woken by one write share its reading.
        do {
            return try await observerTurns.inTurn(for: name) {
                try await computeUpdate(of: name, since: revision, current: current, resetThreshold: resetThreshold)
            }
        } catch {
            throw storeError(error)
        }
    }

    /// The update from `held` (the observer's catalogue) to `current` or later: the present is
    /// read in turn (observers that asked before a read began share it; it brings the kept
    /// snapshot forward through the journal), and the diff is the observer's own, over the
    /// sections the two do not share. Observers that fell out of step — each at a revision of
    /// its own — then cost a diff each, not a rebuild of their revision through the journal.
    private func update(of name: String, from held: Catalog, current: Int, resetThreshold: Int) async throws(StoreError) -> CatalogUpdate {
        let now = try await present(of: name, atLeast: max(current, held.revision))
        // A revision before the observer's: a catalogue of the same name made again since.
        guard now.revision >= held.revision else { return .reset(now) }
        // Observers in step compute it once. Contents are compared: the writes in between may
        // have changed some.
        let update = try updateCache.update(for: UpdateCache.Key(name: name, from: held.revision, to: now.revision)) { () throws(StoreError) in
            try StoreRules.update(from: held, to: now, restoredContent: true, resetThreshold: resetThreshold)
        }
        if current != now.revision { updateCache.keep(update, for: UpdateCache.Key(name: name, from: held.revision, to: current)) }
        return update
    }

    /// The catalogue named `name` at revision `atLeast` or later, read in turn: a read that
    /// began after this call serves it, so observers that ask together read the database once.
    private func present(of name: String, atLeast: Int) async throws(StoreError) -> Catalog {
        do {
            let asked = ContinuousClock.now
            return try await observerTurns.inTurn(for: name) {
                if let read = presentReads.catalog(named: name, readSince: asked, atLeast: atLeast) { return read }
                let began = ContinuousClock.now
                let read = try await catalog(named: name, atLeast: atLeast)
                presentReads.record(read, named: name, began: began)
                return read
            }
        } catch {
            throw storeError(error)
        }
    }

    private func computeUpdate(of name: String, since revision: Int, current: Int, resetThreshold: Int) async throws(StoreError) -> CatalogUpdate {
        if let kept = updateCache.kept(UpdateCache.Key(name: name, from: revision, to: current)) { return kept }
        // An observer before this one in turn may have reached a later revision from here.
        if let latest = snapshots.latest(named: name)?.catalog.revision, latest >= current,
           let kept = updateCache.kept(UpdateCache.Key(name: name, from: revision, to: latest)) { return kept }
        do {
            let (old, now, restoredContent, _) = try await revisions(of: name, since: revision, atLeast: current)
            let update = try StoreRules.update(from: old, to: now, restoredContent: restoredContent, resetThreshold: resetThreshold)
            // Observers in step share it: under the revision asked for and the one reached.
            for to in Set([current, now.revision]) { updateCache.keep(update, for: UpdateCache.Key(name: name, from: revision, to: to)) }
            return update
        } catch .revisionTooOld {
            return .reset(try await catalog(named: name))
        }
    }

    /// After a write committed through this store: observers here wake at once (others' hear
    /// of it through NOTIFY), and a single move brings the kept snapshot, and the update every
    /// observer in step needs, forward without reading anything.
    func didWrite(_ result: WriteResult) {
        guard result.revision != result.previousRevision else { return }
        StoreRules.keepAdvanced(by: result, snapshots: snapshots, updates: updateCache)
        notifier.didCommit([(result.catalog, result.revision)])
    }

    /// The payload that tells listeners catalogue `name` reached `revision` (nil: was deleted).
    static func payload(name: String, revision: Int?) -> String {
        let text = revision.map { "\($0) \(name)" } ?? "- \(name)"
        return text.utf8.count <= largestPayload ? text : "*"
    }

    /// The `application_name` of the connection each instance listens on, as `pg_stat_activity`
    /// shows it.
    public static let listenerName = "catalogkit-listener"

    /// The notifier's watch: listens on ``channel`` on a connection of its own until cancelled,
    /// connecting again (after 0.1 s, doubling to 2 s) whenever the connection drops or
    /// `current` is closed.
    static func listen(_ configuration: PostgresConnection.Configuration, every interval: Duration, logger: Logger,
                       current: ListenerConnection, heard: @escaping @Sendable () -> Void, read: @escaping @Sendable () -> Void,
                       _ notifier: @escaping @Sendable () -> ChangeNotifier?) async {
        var configuration = configuration
        configuration.options.additionalStartupParameters.append(("application_name", listenerName))
        var delay: Duration = .milliseconds(100)
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            var connection: PostgresConnection?
            do {
                let listening = try await PostgresConnection.connect(configuration: configuration, id: attempt, logger: logger)
                connection = listening
                current.set(listening)
                try await listening.listen(on: channel) { notifications in
                    // Listening now: a reading of every revision catches up on what was missed.
                    try await readRevisions(on: listening, logger: logger, into: notifier)
                    read()
                    delay = .milliseconds(100)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in notifications {
                                guard let notifier = notifier() else { return }
                                heard()
                                deliver(notification.payload, to: notifier)
                            }
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: interval)
                                try await readRevisions(on: listening, logger: logger, into: notifier)
                                read()
                            }
                        }
                        // The first to end (the connection dropped, the task cancelled) ends both.
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                logger.debug("listening for catalogue writes failed: \(describe(error))")
            }
            current.set(nil)
            try? await connection?.close()
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(2))
        }
    }

    /// The notifier's watch: ``listen(_:every:logger:current:heard:read:_:)``, and beside it a
    /// stand-in for a listener that has read no revision for five of its intervals — stuck on a
    /// connection that neither answers nor fails. The stand-in reads every revision through the
    /// pool, so observers never wait on the listener, and closes the listener's connection, so
    /// that it connects and listens again.
    static func watch(_ configuration: PostgresConnection.Configuration, client: PostgresClient, every interval: Duration,
                      logger: Logger, heard: @escaping @Sendable () -> Void, _ notifier: @escaping @Sendable () -> ChangeNotifier?) async {
        let lastRead = LastRead()
        let current = ListenerConnection()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await listen(configuration, every: interval, logger: logger, current: current, heard: heard, read: lastRead.now, notifier)
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval * 5)
                    guard !Task.isCancelled, lastRead.age > interval * 5 else { continue }
                    try? await client.withOpenConnection { connection in
                        try await readRevisions(on: connection, logger: logger, into: notifier)
                    }
                    if let stuck = current.take() {
                        logger.warning("the listener for catalogue writes read nothing for \(interval * 5); connecting it again")
                        try? await stuck.close()
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Tells the notifier what a payload says.
    private static func deliver(_ payload: String, to notifier: ChangeNotifier) {
        guard let space = payload.firstIndex(of: " ") else {
            notifier.didRead([:])   // `*`: every revision unknown; observers ask again
            return
        }
        let head = payload[..<space]
        let name = String(payload[payload.index(after: space)...])
        if head == "-" {
            notifier.didDelete([name])
        } else if let revision = Int(head) {
            notifier.didCommit([(name, revision)])
        }
    }

    private static func readRevisions(on connection: PostgresConnection, logger: Logger,
                                      into notifier: @Sendable () -> ChangeNotifier?) async throws {
        var revisions: [String: Int] = [:]
        for try await (name, revision) in try await connection.query("SELECT name, revision FROM catalog", logger: logger)
            .decode((String, Int64).self) { revisions[name] = Int(revision) }
        notifier()?.didRead(revisions)
    }
}

/// The listener's connection while it has one, for the stand-in to close.
final class ListenerConnection: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: PostgresConnection?

    func set(_ connection: PostgresConnection?) { lock.withLock { self.connection = connection } }

    /// The connection, which the listener no longer counts as its own.
    func take() -> PostgresConnection? {
        lock.withLock {
            defer { connection = nil }
            return connection
        }
    }
}

/// When the listener last read every revision.
private final class LastRead: Sendable {
    private let last = Locked(ContinuousClock.now)

    func now() { last.withLock { $0 = .now } }
    var age: Duration { last.withLock { ContinuousClock.now - $0 } }
}
