import CatalogConcurrency
import CatalogModel

/// The latest read of each catalogue's present made for observers, with when it began. An
/// observer that asked before a read began may take that read as its own: the read saw every
/// commit the observer had heard of, and the catalogue's row as it was then. So observers woken
/// together read the database once between them, however many wait in turn.
final class PresentReads: Sendable {
    private struct State {
        var latest: [String: (catalog: Catalog, began: ContinuousClock.Instant)] = [:]
        var recorded = 0
    }
    private let state = Locked(State())
    /// Bounded: a store with many observed catalogues keeps the latest few reads.
    private static let limit = 64

    /// How many reads have been recorded since the store opened: the database reads its
    /// observers made.
    var reads: Int { state.withLock { $0.recorded } }

    /// The catalogue named `name` as a read begun at `asked` or later found it, when that read
    /// reached revision `atLeast`.
    func catalog(named name: String, readSince asked: ContinuousClock.Instant, atLeast: Int) -> Catalog? {
        state.withLock { state in
            guard let read = state.latest[name], read.began >= asked, read.catalog.revision >= atLeast else { return nil }
            return read.catalog
        }
    }

    /// Records `catalog` as what a read of the catalogue begun at `began` found.
    func record(_ catalog: Catalog, named name: String, began: ContinuousClock.Instant) {
        state.withLock { state in
            state.recorded += 1
            if let read = state.latest[name], read.began > began { return }
            if state.latest[name] == nil, state.latest.count >= Self.limit { state.latest.removeAll(keepingCapacity: true) }
            state.latest[name] = (catalog, began)
        }
    }
}
