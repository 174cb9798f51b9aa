import CatalogModel
import CatalogStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `POST /events` (docs/Following-a-server.md): the event streams of many catalogues on one
/// connection — a device's, following all its catalogues at once, so that its writes never wait
/// behind its streams for a connection.
///
/// The body names each catalogue with what its stream request would carry: `{"catalogs": [{"name",
/// "since", "fingerprint", "client"}]}` (all but `name` optional). Each catalogue's events are
/// those of its own `GET /catalogs/{name}/events?include=sections` — `snapshot`, `changes`,
/// `reset`, `acknowledged`, `deleted` — with a `catalog:` line naming it; a catalogue the server
/// deleted gets `deleted` with its last revision, one it never had `event: unknown`, and one
/// whose `since` is past the present (a restored server) gets its snapshot. The stream ends when every catalogue was deleted or unknown.
extension EventStream {
    /// The most catalogues one stream may carry.
    static var maxCatalogs: Int { 1_000 }

    /// One catalogue of the body.
    struct FollowedCatalog: Decodable {
        var name: String
        var since: Int?
        var fingerprint: String?
        var client: String?
    }

    struct FollowBody: Decodable {
        var catalogs: [FollowedCatalog]
    }

    /// The body read and checked, catalogue by catalogue: 400 for anything a client of CatalogKit
    /// does not send, 403 for a catalogue `grant` does not reach.
    static func followed(in body: ByteBuffer, grant: AccessGrant?) throws -> [FollowedCatalog] {
        let catalogs: [FollowedCatalog]
        do {
            catalogs = try JSONDecoder().decode(FollowBody.self, from: Data(body.readableBytesView)).catalogs
        } catch {
            throw Problem(status: .badRequest, kind: "invalid-parameter",
                          detail: "the body must be {\"catalogs\": [{\"name\": NAME, \"since\": REVISION, \"fingerprint\": TEXT, \"client\": ID}]} (all but name optional)",
                          path: "catalogs")
        }
        guard !catalogs.isEmpty, catalogs.count <= maxCatalogs else {
            throw Problem(status: .badRequest, kind: "invalid-parameter",
                          detail: "a stream carries from 1 to \(maxCatalogs) catalogues, found \(catalogs.count)", path: "catalogs")
        }
        var seen = Set<String>()
        for (index, catalog) in catalogs.enumerated() {
            let path = "catalogs[\(index)]"
            if catalog.name.isEmpty || Catalog.nameProblem(catalog.name) != nil {
                throw Problem(status: .badRequest, kind: "invalid-parameter",
                              detail: "expected a catalogue name (\(Catalog.nameProblem("/") ?? "")), found \"\(catalog.name.prefix(200))\"",
                              path: path + ".name")
            }
            if let grant, !grant.reaches(catalog.name) {
                throw Problem(status: .forbidden, kind: "forbidden-catalog",
                              detail: "the credential \(grant.holder) does not reach the catalogue \(catalog.name): it holds \(grant.summary)")
            }
            if !seen.insert(catalog.name).inserted {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "the catalogue \"\(catalog.name)\" is named twice",
                              path: path + ".name")
            }
            if let since = catalog.since, since < 0 {
                throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "since must be a revision (an integer ≥ 0), found \(since)",
                              path: path + ".since")
            }
            if let client = catalog.client, let problem = ClientWrite.problem(withClient: client) {
                throw Problem(status: .badRequest, kind: "invalid-client", detail: problem, path: path + ".client")
            }
        }
        return catalogs
    }

    func response(following body: ByteBuffer, grant: AccessGrant?, client: String) async throws -> Response {
        let catalogs = try Self.followed(in: body, grant: grant)
        let identity = try await store.identity()
        let slot = try slot(for: client)
        var feeds: [(label: ByteBuffer, feed: CatalogFeed<Store>)] = []
        var unknown: [String] = []
        var retired: [String: Int] = [:]
        for catalog in catalogs {
            let current: Int
            do {
                current = try await store.revision(of: catalog.name)
            } catch {
                guard case .unknownCatalog = error else { throw error }
                unknown.append(catalog.name)
                continue
            }
            // Past the present: the server went back (a restored backup), and the client gets
            // the snapshot of the history it has now, as for a fingerprint that differs.
            let since = catalog.since.flatMap { $0 <= current ? $0 : nil }
            let feed = try await CatalogFeed.start(catalog.name, since: since, fingerprint: catalog.fingerprint, current: current, withSections: true,
                                                   device: catalog.client, store: store, resetThreshold: resetThreshold, encoded: encoded,
                                                   fingerprints: fingerprints)
            feeds.append((EventStreamDocuments.label(catalog.name), feed))
        }
        // A name the server once had is "deleted at revision R"; one it never had, "unknown".
        if !unknown.isEmpty { retired = try await store.retiredCatalogs() }
        let (keepAlive, count) = (self.keepAlive, catalogs.count)
        let (started, unknownNames) = (feeds, unknown.map { ($0, retired[$0]) })
        let observers = feeds.map(\.feed.observer)
        return Response(status: .ok, headers: headers(identity: identity), body: ResponseBody { writer in
            let merged = MergedEvents()
            // Every feed ends with the stream: its waits return, its hand-overs are refused.
            let stop: @Sendable () -> Void = {
                merged.finish()
                for observer in observers { observer.cancel() }
            }
            defer {
                stop()
                withExtendedLifetime(slot) {}
            }
            try await withGracefulShutdownHandler {
                try await writer.write(ByteBuffer(string: ": \(count) catalogues\n\n"))
                for (name, retired) in unknownNames {
                    let event = retired.map { EventStreamDocuments.deletedEvent(name, revision: $0) } ?? EventStreamDocuments.unknownEvent(name)
                    for part in Self.labelled([event], EventStreamDocuments.label(name)) { try await writer.write(part) }
                }
                var open = started.count
                guard open > 0 else { return }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (label, feed) in started {
                        group.addTask { await Self.forward(feed, labelled: label, to: merged) }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: keepAlive)
                            guard await merged.send(.init(parts: [ByteBuffer(string: ": keep-alive\n\n")])) else { return }
                        }
                    }
                    defer {
                        stop()
                        group.cancelAll()
                    }
                    while let item = await merged.next() {
                        for part in item.parts { try await writer.write(part) }
                        switch item.end {
                        case nil: continue
                        case .catalogue: open -= 1
                        case .stream: open = 0
                        }
                        if open == 0 { break }
                    }
                }
            } onGracefulShutdown: {
                stop()
            }
            try await writer.finish(nil)
        })
    }

    /// One catalogue's events into the stream, each once the stream took the one before; a
    /// failure ends the stream (the client reconnects with the revisions it has).
    private static func forward(_ feed: CatalogFeed<Store>, labelled label: ByteBuffer, to merged: MergedEvents) async {
        var feed = feed
        while true {
            let step: CatalogFeed<Store>.Step
            do {
                step = try await feed.next(waitingAtMost: .seconds(3_600))
            } catch {
                _ = await merged.send(.init(parts: [], end: .stream))
                return
            }
            switch step {
            case .event(let parts):
                guard await merged.send(.init(parts: labelled(parts, label))) else { return }
            case .quiet:
                continue
            case .ended(let last):
                // Deleted: that catalogue's part ends. Unavailable or cancelled: the stream does.
                _ = await merged.send(.init(parts: last.map { labelled([$0], label) } ?? [], end: last == nil ? .stream : .catalogue))
                return
            }
        }
    }

    /// Each event with the `catalog:` line before it.
    private static func labelled(_ events: [ByteBuffer], _ label: ByteBuffer) -> [ByteBuffer] {
        events.flatMap { [label, $0] }
    }
}

extension EventStreamDocuments {
    /// `catalog: NAME` — a name has no line breaks (``Catalog/nameProblem(_:)``).
    static func label(_ name: String) -> ByteBuffer {
        ByteBuffer(string: "catalog: \(name)\n")
    }

    /// A catalogue of `POST /events` that the server does not have: `event: unknown`, no id,
    /// `data: {"catalog": NAME}`.
    static func unknownEvent(_ name: String) -> ByteBuffer {
        var data = "{\"catalog\":"
        appendJSONString(name, to: &data)
        return ByteBuffer(string: "event: unknown\ndata: \(data)}\n\n")
    }
}

/// The events of many catalogues' feeds, to one stream's writer: each feed hands its next event
/// over and waits until the writer took it, so that a slow client holds at most one event per
/// catalogue here (the observers behind them coalesce the writes it has not read yet).
final class MergedEvents: @unchecked Sendable {
    struct Item {
        var parts: [ByteBuffer]
        var end: End? = nil
    }

    enum End {
        /// The catalogue's part of the stream is over (it was deleted).
        case catalogue
        /// The stream is over (the database unavailable, a failure): the client reconnects.
        case stream
    }

    private let lock = NSLock()
    private var items: [(Item, CheckedContinuation<Bool, Never>)] = []
    private var reader: CheckedContinuation<Item?, Never>?
    private var finished = false

    /// Hands `item` to the writer: true once taken, false when the stream ended first.
    func send(_ item: Item) async -> Bool {
        await withCheckedContinuation { (sender: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if finished {
                lock.unlock()
                sender.resume(returning: false)
            } else if let reader {
                self.reader = nil
                lock.unlock()
                reader.resume(returning: item)
                sender.resume(returning: true)
            } else {
                items.append((item, sender))
                lock.unlock()
            }
        }
    }

    /// The next item, in the order they were handed over; nil once finished.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<Item?, Never>) in
                lock.lock()
                if !items.isEmpty {
                    let (item, sender) = items.removeFirst()
                    lock.unlock()
                    sender.resume(returning: true)
                    reader.resume(returning: item)
                } else if finished {
                    lock.unlock()
                    reader.resume(returning: nil)
                } else {
                    self.reader = reader
                    lock.unlock()
                }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the stream: every waiting feed hears false, the writer nil.
    func finish() {
        lock.lock()
        finished = true
        let senders = items.map(\.1)
        items.removeAll()
        let reader = self.reader
        self.reader = nil
        lock.unlock()
        for sender in senders { sender.resume(returning: false) }
        reader?.resume(returning: nil)
    }
}
