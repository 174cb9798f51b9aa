import CatalogModel
import CatalogStore
import Foundation

/// Follows catalogues of a `catalog serve` into a local ``CatalogStore`` and sends the device's
/// writes to it (docs/Following-a-server.md).
///
/// Each followed catalogue is a copy of the server's, kept by its event stream: every server
/// change is taken in with one local transaction, so `updates(of:)` and `CollectionUpdater` see
/// it as an ordinary update. Writes the app makes to a followed catalogue through the store's
/// usual API (`apply`, `move`) change the copy at once and are queued in the store's outbox in
/// the same transaction; the client sends them in order, numbered, so each is applied on the
/// server exactly once. A write the server refuses for good is listed as rejected with the
/// server's reason, and the copy goes back to the server's catalogue with the still-waiting
/// writes on top. Connections that fail are tried again with a growing, jittered wait.
///
/// ```swift
/// let store = try CatalogStore(path: "library.sqlite")
/// let client = try CatalogClient(store: store, server: URL(string: "https://books.example.com")!)
/// let following = Task { try await client.run(following: ["shelf"]) }
/// try store.move(item: "b7", toSection: "s2", index: 0, in: "shelf")   // queued, sent in turn
/// ```
public final class CatalogClient: Sendable {
    public let store: CatalogStore
    let server: ServerRequests
    let log: CatalogClientLog
    /// The first wait after a failure, and the longest.
    let backoff: Backoff
    private let listeners = Listeners()
    private let eventListeners = EventListeners()

    /// A client of `server` (its base URL) for `store`, with the bearer token the server needs.
    /// One line or one event of the server's stream may take at most `maxEventBytes`: past it the
    /// stream is dropped and opened again with backoff.
    ///
    /// The followed catalogues' streams share one connection (`POST /events`); the writes take
    /// others. `transport` is how requests are sent: by default URLSession on Apple platforms
    /// (``URLSessionTransport``), AsyncHTTPClient's shared client on Linux; a transport must allow
    /// at least two connections to the server, so that the outbox never waits behind the stream.
    /// What the client does on its own (a connection tried again, a snapshot taken) goes to `log`.
    ///
    /// - Throws: ``CatalogClientError/invalidServer(_:)`` when `server` is not an http or https
    ///   URL with a host.
    public init(store: CatalogStore, server: URL, token: String? = nil, transport: (any CatalogTransport)? = nil,
                retryingAfter initial: Duration = .milliseconds(250), atMost maximum: Duration = .seconds(30),
                maxEventBytes: Int = 64 << 20,
                log: CatalogClientLog = .standardError) throws(CatalogClientError) {
        self.store = store
        self.server = try ServerRequests(server: server, token: token, transport: transport ?? Self.defaultTransport(), maxEventBytes: maxEventBytes)
        self.log = log
        self.backoff = Backoff(initial: initial, maximum: maximum)
    }

    /// A client whose bearer token comes from `tokenProvider`: called with `false` for the token
    /// to present, and again with `true` whenever the server refuses it (401), before the request
    /// is given up — an app refreshes its JWT there. Requests refused at once share one refresh.
    /// A provider that throws, or gives the refused token again, leaves the refusal standing
    /// (``CatalogClientError/unauthorized(_:)``).
    public init(store: CatalogStore, server: URL, tokenProvider: @escaping @Sendable (_ refresh: Bool) async throws -> String?,
                transport: (any CatalogTransport)? = nil,
                retryingAfter initial: Duration = .milliseconds(250), atMost maximum: Duration = .seconds(30),
                maxEventBytes: Int = 64 << 20,
                log: CatalogClientLog = .standardError) throws(CatalogClientError) {
        self.store = store
        self.server = try ServerRequests(server: server, credential: ClientCredential(provider: tokenProvider),
                                         transport: transport ?? Self.defaultTransport(), maxEventBytes: maxEventBytes)
        self.log = log
        self.backoff = Backoff(initial: initial, maximum: maximum)
    }

    /// Moves the catalogues this database followed at `previous` — the same server's database,
    /// copied whole to this client's server (`catalog copy`) — to this client's server: each takes
    /// the new server's snapshot on its next connection, with the device's waiting writes on top,
    /// and the waiting writes are sent there with their numbers. Returns the names moved.
    ///
    /// - Throws: ``CatalogClientError/invalidServer(_:)`` for a `previous` that is not a server
    ///   URL; ``CatalogClientError/store(_:)``.
    @discardableResult
    public func serverMoved(from previous: URL) throws(CatalogClientError) -> [String] {
        let old = try ServerRequests(server: previous, token: nil, transport: server.transport).base
        do {
            return try store.refollow(from: old, to: server.base)
        } catch {
            throw .store(error)
        }
    }

    /// Follows `catalogs` and sends the outbox until the task is cancelled (then returns). A
    /// catalogue the server deletes is deleted here too, its waiting writes rejected, and no
    /// longer followed; when that was the last one, this returns.
    ///
    /// - Throws: what waiting cannot mend: ``CatalogClientError/unknownCatalog(_:)``,
    ///   ``CatalogClientError/unauthorized(_:)``, ``CatalogClientError/followsAnotherServer(catalog:server:)``,
    ///   ``CatalogClientError/store(_:)``.
    public func run(following catalogs: [String]) async throws {
        let server = self.server
        var replicas: [String: Replica] = [:]
        let (wake, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (listeners, eventListeners) = (self.listeners, self.eventListeners)
        let changed: @Sendable () -> Void = {
            waker.yield()
            listeners.tell()
        }
        let report: @Sendable (CatalogClientEvent) -> Void = { eventListeners.tell($0) }
        do {
            _ = try store.clientID()
            for name in catalogs {
                do {
                    _ = try store.follow(name, server: server.base)
                } catch {
                    if case .invalidSetting = error, let other = try? store.followedCatalogs().first(where: { $0.name == name }) {
                        throw CatalogClientError.followsAnotherServer(catalog: name, server: other.server)
                    }
                    throw error
                }
                replicas[name] = Replica(name: name, store: store, server: server, log: log, changed: changed, report: report)
            }
        } catch let error as StoreError {
            throw CatalogClientError.store(error)
        }
        let sender = OutboxSender(store: store, server: server, log: log, replicas: replicas, changed: changed, report: report)
        let stream = FollowStream(replicas: replicas, store: store, server: server, log: log)
        let (store, backoff) = (self.store, self.backoff)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await stream.run(backoff: backoff) }
            // The app's writes (this process's or another's): the outbox may have grown. One wait
            // on the store's commits for every catalogue, not an observer of each that would
            // work out a changeset nobody reads for every change taken in.
            group.addTask {
                let notifier = store.notifier
                notifier.retain()   // another process's commits are watched for while retained
                defer { notifier.release() }
                var seen = notifier.current
                while !Task.isCancelled {
                    await notifier.wait(after: seen)
                    seen = notifier.current
                    changed()
                }
            }
            group.addTask { try await sender.run(wake: wake, backoff: backoff) }
            defer { group.cancelAll() }
            // Until cancelled, an error, or every catalogue deleted on the server (the stream then
            // ends by itself; the other tasks never do).
            do {
                _ = try await group.next()
            } catch is CancellationError {
            }
        }
    }

    /// AsyncHTTPClient's shared client where it builds (eight connections per host: one for
    /// the stream, the others for the writes and the app's requests), else URLSession.
    static func defaultTransport() -> any CatalogTransport {
        #if canImport(AsyncHTTPClient)
        AsyncHTTPClientTransport()
        #else
        URLSessionTransport()
        #endif
    }

    /// Waits until the copy of `catalog` stands on the server's revision as of this call, and
    /// none of the device's writes to it waits (rejected ones aside): a pull to refresh, or a
    /// test's way to know the two agree. Needs ``run(following:)`` running meanwhile.
    ///
    /// - Throws: ``CatalogClientError/unknownCatalog(_:)``, ``CatalogClientError/unauthorized(_:)``,
    ///   or the failure to reach the server.
    public func waitUntilInStep(with catalog: String) async throws {
        let changes = listeners.add()
        let target = try await server.revision(of: catalog)
        func inStep() throws -> Bool {
            guard let followed = try store.followedCatalogs().first(where: { $0.name == catalog }) else { return false }
            let outbox = try store.outbox(of: catalog)
            return followed.serverRevision >= target && outbox.allSatisfy { $0.state == .rejected }
        }
        if try inStep() { return }
        for await _ in changes {
            if try inStep() { return }
        }
        throw CancellationError()
    }

    /// What happens to the followed catalogues that the app may want to tell a person of — a
    /// server whose history changed, another device sharing this one's client id — from now on,
    /// in order, until the sequence is dropped.
    public func events() -> AsyncStream<CatalogClientEvent> {
        eventListeners.add()
    }

    /// The outbox: writes waiting for the server, acknowledged, or rejected with its reason.
    public func outbox() throws(StoreError) -> [OutboxEntry] {
        try store.outbox()
    }

    /// The outbox each time it changes (a write queued, answered or confirmed), until the
    /// sequence is dropped. Read on the listener's own task, after the change: a listener slower
    /// than the changes gets the outbox as it stands, not every state in between.
    public func outboxUpdates() -> AsyncStream<[OutboxEntry]> {
        let (changes, store) = (listeners.add(), self.store)
        let (stream, continuation) = AsyncStream<[OutboxEntry]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let forwarding = Task {
            for await _ in changes { continuation.yield((try? store.outbox()) ?? []) }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }
}

/// Who waits for changes of the outbox or of a copy (``CatalogClient/outboxUpdates()``,
/// ``CatalogClient/waitUntilInStep(with:)``): told that something changed, each reads what it
/// needs itself, so the client's own work never reads for them.
private final class Listeners: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<Void>.Continuation] = [:]
    private var next = 0

    func add() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = lock.withLock {
            next += 1
            continuations[next] = continuation
            return next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func tell() {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield() }
    }
}
