import CatalogStore
import Foundation

/// The one connection that carries the event streams of every followed catalogue
/// (`POST /events`): each event names its catalogue and goes to that catalogue's ``Replica``. One
/// connection for any number of catalogues, so the outbox's requests never wait behind streams
/// for one of the connections an HTTP client keeps per host.
///
/// A connection that fails, falls silent, or brings an event some replica cannot take in is
/// opened again after a wait that grows until an event is taken in; each catalogue resumes from
/// the revision its copy has.
actor FollowStream {
    private let store: CatalogStore
    private let server: ServerRequests
    private let log: CatalogClientLog
    /// The catalogues still followed, by name (one the server deleted leaves).
    private var replicas: [String: Replica]

    init(replicas: [String: Replica], store: CatalogStore, server: ServerRequests, log: CatalogClientLog) {
        self.replicas = replicas
        self.store = store
        self.server = server
        self.log = log
    }

    /// Follows until cancelled, or until the server deleted every catalogue; throws only what
    /// retrying cannot mend (an unknown catalogue, a refused token, the local store).
    func run(backoff initial: Backoff) async throws {
        var backoff = initial
        for replica in replicas.values { try await replica.start() }
        while !Task.isCancelled && !replicas.isEmpty {
            let watch = StreamWatch()
            do {
                // The connection, and a watch that drops it when it falls silent.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.follow(watch) }
                    group.addTask { try await watch.watch() }
                    defer { group.cancelAll() }
                    try await group.next()
                }
                if replicas.isEmpty { return }
            } catch let error as CatalogClientError {
                throw error
            } catch is CancellationError where Task.isCancelled {
                return
            } catch {
                log.info("event stream of \(replicas.count) catalogues: \(error); trying again")
            }
            if watch.tookIn { backoff.reset() }
            try await Task.sleep(for: backoff.next())
        }
    }

    /// One connection, from the revision each copy has (or a snapshot first). `watch` hears of
    /// every chunk, and of the events taken in, so that the backoff grows while a server accepts
    /// connections but sends nothing the copies can take, and a silent connection is dropped.
    private func follow(_ watch: StreamWatch) async throws {
        var starts: [ServerRequests.StreamStart] = []
        for name in replicas.keys.sorted() {
            starts.append(try await replicas[name]!.streamStart())
        }
        let response = try await server.events(of: starts)
        watch.serverKeepsAlive(every: response.header("Catalog-Keep-Alive"))
        if let identity = response.header("Catalog-Server-ID"), !identity.isEmpty {
            try store.recordServerIdentity(identity, of: starts.map(\.name))
            var another = false
            for replica in replicas.values where await !replica.opened(by: identity) { another = true }
            if another { throw ServerRequests.Retry(detail: "another server database") }
        }
        var parser = ServerSentEventParser(limit: server.maxEventBytes)
        for try await chunk in response.body {
            watch.heard()
            // The events of one catalogue that arrived together are taken in together.
            var order: [String] = []
            var byCatalogue: [String: [ServerSentEventParser.Event]] = [:]
            for event in try parser.feed(chunk) {
                // An event of no followed catalogue is none of this client's business.
                guard let name = event.catalog, replicas[name] != nil else { continue }
                if byCatalogue[name] == nil { order.append(name) }
                byCatalogue[name, default: []].append(event)
            }
            var tookIn = false
            for name in order {
                guard let replica = replicas[name], let events = byCatalogue[name] else { continue }
                switch try await replica.take(events) {
                case .nothing: break
                case .tookIn: tookIn = true
                case .deleted:
                    replicas[name] = nil
                    tookIn = true
                }
            }
            if tookIn { watch.heard(tookIn: true) }
            if replicas.isEmpty { return }
        }
        throw ServerRequests.Retry(detail: "the server closed the stream")
    }
}
