import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogModel
import CatalogStore
import CatalogViews
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// `GET /catalogs/{name}/events` (docs/Live-updates.md): a catalogue's updates as Server-Sent Events.
///
/// `event: snapshot` first (unless the client names a revision it has, by `?since=` or
/// `Last-Event-ID`), then `event: changes` with the changeset from the previous event's revision,
/// or `event: reset` with the snapshot when the client is too far behind; each event's `id:` is
/// its revision, so a client that reconnects with `Last-Event-ID` misses nothing and sees nothing
/// twice. A device names its client id (`Catalog-Client-ID`): before each whole catalogue
/// (snapshot or reset) it is told which of its writes that state holds (`event: acknowledged`).
/// A client that resumes with the fingerprint of the catalogue it holds (`Catalog-Fingerprint`)
/// resumes only when the catalogue stood so at that revision here — a server restored from a
/// backup, or another database, sends a snapshot instead. A comment keeps the connection alive when nothing happens. A slow client gets one
/// event covering every write it missed (its stream holds at most one event), and one that
/// stops reading is disconnected (``RequestDeadlineHandler``). On shutdown every stream ends.
struct EventStream<Store: CatalogDatabase>: Sendable {
    let store: Store
    /// How long a stream may stay silent before a keep-alive comment.
    let keepAlive: Duration
    /// Changesets of more operations than this are sent as resets.
    let resetThreshold: Int
    /// Events encoded lately: subscribers in step send the same bytes, encoded once.
    let encoded = EncodedEvents()
    /// The caps on streams open at once, in all and per client address.
    let slots: EventStreamSlots
    /// Fingerprints of past revisions that resuming clients named, so that many resuming from one
    /// revision cost one rebuild.
    let fingerprints = Fingerprints()

    init(store: Store, keepAlive: Duration, resetThreshold: Int, slots: EventStreamSlots) {
        self.store = store
        self.keepAlive = keepAlive
        self.resetThreshold = resetThreshold
        self.slots = slots
    }

    func response(_ request: Request, name: String, client: String) async throws -> Response {
        let since = try revision(request.uri.queryParameters["since"].map(String.init), name: "since")
            ?? revision(request.headers[.lastEventID], name: "Last-Event-ID")
        let withSections = try includesSections(request.uri.queryParameters["include"].map(String.init))
        let device = request.headers[ClientHeaders.client]
        if let device, let problem = ClientWrite.problem(withClient: device) {
            throw Problem(status: .badRequest, kind: "invalid-client", detail: problem, path: "Catalog-Client-ID")
        }
        // Refusals before the stream starts, while a status can still say so.
        let current = try await store.revision(of: name)
        if let since, since > current {
            throw StoreError.revisionNotReached(catalog: name, requested: since, current: current)
        }
        if let view = try ViewParameters.definition(of: request) {
            guard !withSections, device == nil else {
                throw Problem(status: .badRequest, kind: "invalid-parameter",
                              detail: "a view's stream is for showing: it carries no sections (include) and no device's writes (Catalog-Client-ID); follow the catalogue itself",
                              path: withSections ? "include" : "Catalog-Client-ID")
            }
            return try await viewResponse(request, name: name, view: view, since: since, current: current, client: client)
        }
        let identity = try await store.identity()
        let slot = try slot(for: client)
        // Changes from a revision only on the history the client holds.
        let started = try await CatalogFeed.start(name, since: since, fingerprint: request.headers[ClientHeaders.fingerprint], current: current,
                                                  withSections: withSections, device: device, store: store, resetThreshold: resetThreshold,
                                                  encoded: encoded, fingerprints: fingerprints)
        let (keepAlive, observer) = (self.keepAlive, started.observer)
        return Response(status: .ok, headers: headers(identity: identity), body: ResponseBody { writer in
            var feed = started
            defer {
                observer.finish()
                withExtendedLifetime(slot) {}  // the slot goes back when the body is done with
            }
            try await withGracefulShutdownHandler {
                // A comment first, so that the client sees the stream open before any write.
                try await writer.write(ByteBuffer(string: ": catalog \(name)\n\n"))
                loop: while !Task.isCancelled && !observer.isCancelled {
                    switch try await feed.next(waitingAtMost: keepAlive) {
                    case .event(let events): for event in events { try await writer.write(event) }
                    case .quiet: try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    case .ended(let last):
                        if let last { try await writer.write(last) }
                        break loop
                    }
                }
            } onGracefulShutdown: {
                observer.cancel()
            }
            try await writer.finish(nil)
        })
    }

    /// The stream of a view of the catalogue: its snapshot (or its changeset from `since`),
    /// then a change event for each write that changes the view, each with `total`. A view the
    /// catalogue cannot show (an unknown field, several kinds in one section) is refused with a
    /// 400 before the stream starts.
    func viewResponse(_ request: Request, name: String, view: ViewDefinition, since: Int?, current: Int, client: String) async throws -> Response {
        let observer = store.viewObserver(of: name, view: view, from: since)
        // Refusals while a status can say so: the catalogue as it stands (the store's kept
        // snapshot) is checked against the view's fields and starts the shared view, once for
        // every stream of it, so that the first write is answered incrementally.
        do {
            let catalog = try await store.catalog(named: name)
            try view.check(against: catalog)
            try observer.start(at: catalog, holding: since == catalog.revision)
        } catch let error as ViewError {
            throw Problem.view(error)
        }
        let identity = try await store.identity()
        let slot = try slot(for: client)
        let (keepAlive, encoded, key, store) = (self.keepAlive, self.encoded, ViewParameters.key(view), self.store)
        return Response(status: .ok, headers: headers(identity: identity), body: ResponseBody { writer in
            defer {
                observer.cancel()
                withExtendedLifetime(slot) {}
            }
            try await withGracefulShutdownHandler {
                try await writer.write(ByteBuffer(string: ": catalog \(name)\n\n"))
                var first = since == nil
                while !Task.isCancelled && !observer.isCancelled {
                    let answer: ViewAnswer?
                    do {
                        answer = try await observer.next(waitingAtMost: keepAlive)
                    } catch StoreError.unknownCatalog {
                        try await writer.write(EventStreamDocuments.deletedEvent(name, revision: (try? await store.retiredCatalogs())?[name]))
                        break
                    } catch is ViewError {
                        // The catalogue can no longer show the view: the stream ends, and the
                        // client that reconnects is told why.
                        break
                    } catch StoreError.unavailable {
                        break
                    }
                    guard let answer else {
                        if Task.isCancelled || observer.isCancelled { break }
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        continue
                    }
                    try await writer.write(encoded.event(answer, first: first, view: key))
                    first = false
                }
            } onGracefulShutdown: {
                observer.cancel()
            }
            try await writer.finish(nil)
        })
    }

    /// A place among the streams open (503 past a cap), held until the stream's body ends.
    func slot(for client: String) throws -> EventStreamSlots.Slot {
        do {
            return try slots.take(for: client)
        } catch {
            throw EventStreamDocuments.refusal(error)
        }
    }

    /// The head of an event stream: its type, no caching, the longest it stays silent (a
    /// keep-alive comment after it: a client that hears nothing for a few times this knows the
    /// connection is dead), and the server database's identity.
    func headers(identity: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        headers[ClientHeaders.keepAlive] = String(format: "%g", Double(keepAlive.components.seconds) + Double(keepAlive.components.attoseconds) / 1e18)
        headers[ClientHeaders.server] = identity
        return headers
    }

    /// Whether `include=sections` asks for each change's sections; 400 for anything else.
    func includesSections(_ text: String?) throws -> Bool {
        guard let text else { return false }
        guard text == "sections" else {
            throw Problem(status: .badRequest, kind: "invalid-parameter", detail: "include takes only \"sections\", found \"\(text)\"", path: "include")
        }
        return true
    }

    /// A revision given as text: nil when absent, 400 when it is not an integer ≥ 0.
    func revision(_ text: String?, name: String) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
            throw Problem(status: .badRequest, kind: "invalid-parameter",
                          detail: "\(name) must be a revision (an integer ≥ 0), found \"\(text)\"", path: name)
        }
        return value
    }
}

/// What an event stream sends besides keep-alives, whichever store it follows.
enum EventStreamDocuments {
    /// 503 past a cap, with `Retry-After`, and the connection closed: a client that opens streams
    /// without end gets nothing more from it.
    static func refusal(_ refusal: EventStreamSlots.Refusal) -> Problem {
        let detail = switch refusal {
        case .full(let limit): "the server has \(limit) event streams open, as many as it holds; try again later"
        case .clientFull(let limit): "this client address has \(limit) event streams open, as many as one address may; close one first"
        }
        var problem = Problem(status: .serviceUnavailable, kind: "too-many-streams", detail: detail)
        problem.headers[.retryAfter] = "5"
        problem.headers[.connection] = "close"
        return problem
    }

    /// The last event of a stream whose catalogue was deleted: `event: deleted`, no id (nothing
    /// to resume from), `data: {"catalog": NAME, "revision": R}` — R the catalogue's last
    /// revision, which the server keeps (a catalogue made again under the name goes on from it).
    static func deletedEvent(_ name: String, revision: Int?) -> ByteBuffer {
        var data = "{\"catalog\":"
        appendJSONString(name, to: &data)
        if let revision { data += ",\"revision\":\(revision)" }
        return ByteBuffer(string: "event: deleted\ndata: \(data)}\n\n")
    }

    /// What the whole catalogue sent next holds of a device's writes: `event: acknowledged`, no
    /// id (it is not a revision of its own), `data: {"client": ID, "number": N, "revision": R}` —
    /// every write of the client numbered up to N is settled at revision R (applied in it, or
    /// refused), and the client has no later number there.
    static func acknowledgedEvent(client: String, number: Int, revision: Int) -> ByteBuffer {
        var data = "{\"client\":"
        appendJSONString(client, to: &data)
        return ByteBuffer(string: "event: acknowledged\ndata: \(data),\"number\":\(number),\"revision\":\(revision)}\n\n")
    }

    /// One event's bytes (``frame(_:id:_:)``). With `since` (the catalogue the stream sent
    /// before), a change also carries the sections that differ from it: `catalog`, `revision`,
    /// `sections` (as in a snapshot) and, when the order changed, `sectionOrder`, after the
    /// changeset's own members.
    static func event(_ update: CatalogUpdate, first: Bool, since previous: Catalog? = nil) -> ByteBuffer {
        let (kind, data): (String, [UInt8]) = if let changeset = update.changeset {
            ("changes", previous.map { withSections(Documents.compactChangeset(changeset), SectionPatch(from: $0, to: update.catalog), of: update.catalog) }
                ?? Documents.compactChangeset(changeset))
        } else {
            (first ? "snapshot" : "reset", Array(CatalogExporter.json(update.catalog, includeRevision: true, pretty: false)))
        }
        return frame(kind, id: update.revision, data)
    }

    /// An event's bytes: `event:`, `id:` and one `data:` line (compact JSON has no line breaks).
    static func frame(_ kind: String, id: Int, _ data: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(data.count + 48)
        buffer.writeString("event: \(kind)\nid: \(id)\ndata: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }

    /// A view's event: as ``event(_:first:since:)`` of the view's update, each document with
    /// `total` (the items the view's filter keeps) as its last member.
    static func event(_ answer: ViewAnswer, first: Bool) -> ByteBuffer {
        let update = answer.update
        let kind: String, data: [UInt8]
        if let changeset = update.changeset {
            kind = "changes"
            data = Documents.compactChangeset(changeset).dropLast() + Array(",\"total\":\(answer.total)}".utf8)
        } else {
            kind = first ? "snapshot" : "reset"
            data = Array(ViewParameters.document(ViewResult(catalog: update.catalog, total: answer.total)).utf8)
        }
        return frame(kind, id: update.revision, data)
    }

    /// A changeset's JSON object with the members of `patch` appended: the changeset's closing
    /// brace and the patch document's opening one dropped, and the two joined.
    static func withSections(_ changeset: [UInt8], _ patch: SectionPatch, of catalog: Catalog) -> [UInt8] {
        guard case .object(var members) = CatalogExporter.jsonValue(Catalog(name: catalog.name, revision: catalog.revision, sections: patch.sections),
                                                                    includeRevision: true) else { return changeset }
        if let order = patch.order { members.append(("sectionOrder", .array(order.map(OrderedJSON.string)))) }
        return changeset.dropLast() + [UInt8(ascii: ",")] + OrderedJSON.object(members).serialized(pretty: false).utf8.dropFirst()
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}

/// The bytes of recent events by catalogue, revisions and kind, so that a thousand subscribers
/// of one catalogue cost one encoding per update (and share one buffer), not a thousand.
final class EncodedEvents: @unchecked Sendable {
    private struct Key: Hashable {
        var name: String
        var from: Int?
        var to: Int
        var first: Bool
        var sections: Bool
        /// The view's key (``ViewParameters/key(_:)``); nil for the catalogue itself.
        var view: String? = nil
    }

    private let lock = NSLock()
    private var entries: [Key: ByteBuffer] = [:]
    private let limit = 64

    /// The event of `update`; with `previous`, a change carries its sections (the key tells the
    /// two apart: every stream that sent revision `from` sent the same catalogue).
    func event(_ update: CatalogUpdate, first: Bool, since previous: Catalog? = nil) -> ByteBuffer {
        let key = Key(name: update.catalog.name, from: update.changeset?.fromRevision, to: update.revision,
                      first: update.changeset == nil && first, sections: update.changeset != nil && previous != nil)
        return kept(key) { EventStreamDocuments.event(update, first: first, since: previous) }
    }

    /// The bytes kept for `key`, else `make`'s, then kept.
    private func kept(_ key: Key, _ make: () -> ByteBuffer) -> ByteBuffer {
        if let kept = lock.withLock({ entries[key] }) { return kept }
        let bytes = make()
        lock.withLock {
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = bytes
        }
        return bytes
    }

    /// The event of a view's `answer` (``ViewParameters/key(_:)`` names the view): encoded once
    /// for every stream of that view in step.
    func event(_ answer: ViewAnswer, first: Bool, view: String) -> ByteBuffer {
        let update = answer.update
        let key = Key(name: update.catalog.name, from: update.changeset?.fromRevision, to: update.revision,
                      first: update.changeset == nil && first, sections: false, view: view)
        return kept(key) { EventStreamDocuments.event(answer, first: first) }
    }
}

/// The fingerprints (`CatalogExporter.fingerprint`) of the revisions clients resume from, by
/// catalogue and revision: a revision's content never changes, so one rebuild serves every
/// client that names it.
final class Fingerprints: @unchecked Sendable {
    private struct Key: Hashable {
        var name: String
        var revision: Int
    }

    private let lock = NSLock()
    private var kept = LRUCache<Key, String>(limit: 256)

    /// The fingerprint of catalogue `name` at `revision` in `store` (nil when the journal no
    /// longer reaches it: the client then gets a snapshot all the same), and the catalogue at
    /// that revision when it had to be rebuilt (nil when the fingerprint was kept).
    func fingerprint<Store: CatalogDatabase>(of name: String, at revision: Int, in store: Store) async throws -> (String?, Catalog?) {
        let key = Key(name: name, revision: revision)
        if let value = lock.withLock({ kept.value(for: key) }) { return (value, nil) }
        let catalog: Catalog
        do {
            catalog = try await store.catalog(named: name, at: revision)
        } catch {
            if case .revisionTooOld = error { return (nil, nil) }
            throw error
        }
        let value = CatalogExporter.fingerprint(catalog)
        lock.withLock { kept.set(value, for: key) }
        return (value, catalog)
    }
}
