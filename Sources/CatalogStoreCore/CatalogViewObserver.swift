import CatalogConcurrency
import CatalogDiff
import CatalogModel
import CatalogViews

extension CatalogDatabase {
    /// Every change to a view of the catalogue named `name`, as it happens (docs/Views.md, "Live
    /// views"): first a reset with the view as it stands — or, when `revision` names one the
    /// caller already has, the view's changeset from there — then, after each write that changes
    /// the view, the changeset that turns the view before it into the view after it, stage by
    /// stage. Writes that leave the view as it was send nothing.
    ///
    /// Observers of the same view of one catalogue share one `LiveView` and one
    /// computation per write; the view is kept only while someone observes it. The sequence
    /// throws what ``updates(of:from:resetThreshold:)`` throws, `ViewError`
    /// when the view names a field the catalogue's items lack or a write leaves a section of the
    /// view holding several kinds of item.
    public func updates(of name: String, view: ViewDefinition, from revision: Int? = nil) -> CatalogViewUpdates {
        CatalogViewUpdates(observer: viewObserver(of: name, view: view, from: revision))
    }

    /// One staged changeset of a view from revision `since` to now: from the view of the
    /// catalogue at `since` (rebuilt through the journal) to the view of the catalogue now, as
    /// `GET …/changes` and `catalog changes` give it with a view's parameters.
    ///
    /// - Throws: `StoreError` as ``changes(in:since:)`` does; `ViewError` when the view names a
    ///   field the catalogue's items lack or a section of it would hold several kinds.
    public func changes(in name: String, since: Int, view: ViewDefinition) async throws -> Changeset {
        let now = try await catalog(named: name)
        guard since <= now.revision else {
            throw StoreError.revisionNotReached(catalog: name, requested: since, current: now.revision)
        }
        try view.check(against: now)
        let then = try await catalog(named: name, at: since)
        var changeset = try Changeset(from: try view.evaluate(on: then).catalog, to: try view.evaluate(on: now).catalog)
        (changeset.fromRevision, changeset.toRevision) = (since, now.revision)
        return changeset
    }

    /// The observer behind ``updates(of:view:from:)``, for callers that also wait with a time
    /// limit and need the view's ``ViewAnswer/total``.
    public func viewObserver(of name: String, view: ViewDefinition, from revision: Int? = nil) -> CatalogViewObserver {
        // Writes one at a time where this process kept them: a live view needs only the items
        // each names.
        let observer = (self as? any ObservedDatabase).map {
            CatalogObserver(store: $0, name: name, from: revision, resetThreshold: 10_000, stepwise: true)
        } ?? observer(of: name, from: revision, resetThreshold: 10_000)
        return CatalogViewObserver(observer: observer, definition: view)
    }
}

/// One observer of one view of a catalogue.
public final class CatalogViewObserver: Sendable {
    public let definition: ViewDefinition
    private let observer: CatalogObserver
    private let key: SharedViews.Key
    private let entry: Locked<SharedViews.State>
    /// The view this observer holds (its last answer's), and the revision of the last answer
    /// it returned.
    private let held = Locked<(catalog: Catalog?, sent: Int?)>((nil, nil))

    init(observer: CatalogObserver, definition: ViewDefinition) {
        self.observer = observer
        self.definition = definition
        key = SharedViews.Key(name: observer.name, definition: definition)
        entry = observer.store.views.subscribe(key)
    }

    deinit { observer.store.views.unsubscribe(key) }

    public var name: String { observer.name }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { observer.isCancelled }

    /// The next answer: at once if the catalogue is past this observer's revision and the view
    /// changed, otherwise after the next write that changes it. Nil when `timeout` passes first
    /// or the observation is cancelled.
    public func next(waitingAtMost timeout: Duration? = nil) async throws -> ViewAnswer? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let remaining = deadline.map { $0 - ContinuousClock.now }
            if let remaining, remaining <= .zero { return nil }
            guard let update = try await observer.next(waitingAtMost: remaining) else { return nil }
            var (have, sent) = held.withLock { ($0.catalog, $0.sent) }
            // Resuming from a revision: the shared view is started there (from the catalogue at
            // that revision, once for every observer resuming there), so that the first answer
            // is a change, not the whole view again.
            if have == nil, let from = update.changeset?.fromRevision, !SharedViews.canAnswer(update, in: entry) {
                do {
                    have = try SharedViews.seed(entry, definition: definition, at: try await observer.store.catalog(named: name, at: from), answering: true)
                } catch StoreError.revisionTooOld {
                    // The journal no longer reaches it: the first answer is the whole view.
                }
            }
            var answer = try SharedViews.answer(update, held: have, definition: definition, in: entry)
            let unchanged = have != nil && answer.update.changeset?.isEmpty == true
            held.withLock {
                $0.catalog = answer.update.catalog
                if !unchanged { $0.sent = answer.update.revision }
            }
            if unchanged { continue }
            // After writes the view did not show, the view the caller has is the one it was
            // last sent (the same items, the same content): the change goes from there.
            if let sent, answer.update.changeset != nil {
                answer.update.changeset?.fromRevision = sent
            }
            return answer
        }
    }

    /// Starts the shared view at `catalog` (a server reads the catalogue as it stands from the
    /// store's kept snapshot) if it has none, so that the first write is answered
    /// incrementally, once for every observer of the view; `holding`: `catalog` is at the
    /// revision this observer starts from, and the observer holds its view.
    ///
    /// - Throws: `ViewError` as `LiveView.init(_:of:)` does: a section of the view would hold
    ///   several kinds.
    public func start(at catalog: Catalog, holding: Bool) throws(ViewError) {
        let view = try SharedViews.seed(entry, definition: definition, at: catalog, answering: holding)
        if holding { held.withLock { $0.catalog = view } }
    }

    /// Ends the observation from anywhere (see ``CatalogObserver/cancel()``).
    public func cancel() { observer.cancel() }
}

/// The updates of one view of a catalogue as an `AsyncSequence` (``CatalogDatabase/updates(of:view:from:)``).
public struct CatalogViewUpdates: AsyncSequence, Sendable {
    public typealias Element = CatalogUpdate
    let observer: CatalogViewObserver

    public func makeAsyncIterator() -> Iterator { Iterator(observer: observer) }

    public struct Iterator: AsyncIteratorProtocol {
        let observer: CatalogViewObserver

        public mutating func next() async throws -> CatalogUpdate? {
            guard let answer = try await observer.next() else {
                observer.cancel()
                return nil
            }
            return answer.update
        }
    }
}
