import CatalogDiff
import CatalogModel
import CatalogStore
import Hummingbird

/// One catalogue's events in a stream — `GET /catalogs/{name}/events` carries one, `POST /events`
/// many — from the revision the client has (or a snapshot first) to the present, one update at a
/// time; the same rules in both: each change from the event sent before, a reset when the client
/// is too far behind, and what each whole catalogue holds of the device's writes before it.
struct CatalogFeed<Store: CatalogDatabase>: Sendable {
    let name: String
    let store: Store
    let observer: CatalogObserver
    /// Changes carry the sections that differ (`include=sections`, the device's stream).
    let withSections: Bool
    /// The device's client id, whose writes each whole catalogue is said to hold.
    let device: String?
    /// The revision the client has, that the first change goes from; nil: a snapshot first.
    let resumesFrom: Int?
    let encoded: EncodedEvents
    /// The catalogue at ``resumesFrom`` when the fingerprint check rebuilt it (the first
    /// change's base), then the catalogue last sent.
    private var previous: Catalog?
    private var first: Bool
    private var acknowledging: Bool

    /// A feed from `since`, the revision the client has (at most the catalogue's `current`):
    /// the observer starts there when the catalogue stood as the client's `fingerprint` says
    /// (nil: trusted; the catalogue rebuilt for the check is the first change's base), else from
    /// a snapshot (a restored server, another database). A follower further behind than
    /// rebuilding is worth gets a reset instead, unchecked: the whole catalogue either way.
    static func start(_ name: String, since: Int?, fingerprint: String?, current: Int, withSections: Bool, device: String?,
                      store: Store, resetThreshold: Int, encoded: EncodedEvents, fingerprints: Fingerprints) async throws -> CatalogFeed {
        var start = try await startingPoint(since, current: current, name: name, withSections: withSections, in: store)
        var base: Catalog?
        var first = since == nil
        if let resumed = start, let fingerprint {
            let (known, catalog) = try await fingerprints.fingerprint(of: name, at: resumed, in: store)
            if known == fingerprint { base = catalog } else { (start, first) = (nil, true) }
        }
        let observer = store.observer(of: name, from: start, resetThreshold: resetThreshold)
        return CatalogFeed(name: name, store: store, observer: observer, withSections: withSections, device: device,
                           resumesFrom: start, encoded: encoded, previous: base, first: first, acknowledging: device != nil)
    }

    private init(name: String, store: Store, observer: CatalogObserver, withSections: Bool, device: String?, resumesFrom: Int?,
                 encoded: EncodedEvents, previous: Catalog?, first: Bool, acknowledging: Bool) {
        (self.name, self.store, self.observer, self.withSections, self.device) = (name, store, observer, withSections, device)
        (self.resumesFrom, self.encoded, self.previous, self.first, self.acknowledging) = (resumesFrom, encoded, previous, first, acknowledging)
    }

    /// Where a stream starts: from `since`, or — for a follower (`withSections`) more revisions
    /// behind than twice the catalogue's items — from a reset: rebuilding that many revisions
    /// from the journal costs more than sending the snapshot, which the follower takes in as
    /// one update all the same.
    static func startingPoint(_ since: Int?, current: Int, name: String, withSections: Bool, in store: Store) async throws -> Int? {
        guard let since, withSections, current - since > 64 else { return since }
        let items = try await store.catalog(named: name).itemCount
        return current - since > 2 * items ? nil : since
    }

    /// What the feed has next.
    enum Step {
        /// Whole events: one, or an `acknowledged` event and the one it comes with.
        case event([ByteBuffer])
        /// Nothing happened for the time given.
        case quiet
        /// The catalogue was deleted (the `deleted` event), or the feed cannot go on (the
        /// database unavailable, the observation cancelled: nothing to send).
        case ended(ByteBuffer?)
    }

    /// The next event, waiting at most `timeout` for one.
    mutating func next(waitingAtMost timeout: Duration) async throws -> Step {
        let next: CatalogUpdate?
        do {
            next = try await observer.next(waitingAtMost: timeout)
        } catch {
            switch error {
            // Deleted: say so, then end (a client that reconnects is told it is unknown).
            case .unknownCatalog:
                return .ended(EventStreamDocuments.deletedEvent(name, revision: (try? await store.retiredCatalogs())?[name]))
            // The database is gone for now: the client reconnects with the revision it has
            // (to this instance once it is ready, or another).
            case .unavailable: return .ended(nil)
            default: throw error
            }
        }
        guard let update = next else { return observer.isCancelled || Task.isCancelled ? .ended(nil) : .quiet }
        let event: ByteBuffer
        var whole = update.changeset == nil
        if withSections {
            // Each change carries the sections that differ from the catalogue sent before (or,
            // on resuming, from the one the client named).
            if previous == nil, update.previous == nil, let from = update.changeset?.fromRevision, from == resumesFrom {
                // An update made without its base (after a write, for every observer in step):
                // the client's revision, rebuilt, rather than a whole catalogue.
                previous = try? await store.catalog(named: name, at: from)
            }
            if update.changeset != nil, let from = previous ?? update.previous {
                event = encoded.event(update, first: first, since: from)
            } else {
                event = encoded.event(CatalogUpdate.reset(update.catalog), first: first)
                whole = true
            }
            previous = update.catalog
        } else {
            event = encoded.event(update, first: first)
        }
        // The feed's first event and every whole catalogue come with what they hold of the
        // device's writes, read after the state was, so that a number it names is one the
        // state settled.
        var events = [event]
        if acknowledging || whole, let device {
            let position = try await store.clientPosition(of: device)
            if let number = ClientPosition.acknowledged(position, in: name, at: update.catalog.revision) {
                events.insert(EventStreamDocuments.acknowledgedEvent(client: device, number: number, revision: update.catalog.revision), at: 0)
            }
        }
        acknowledging = false
        first = false
        return .event(events)
    }
}
