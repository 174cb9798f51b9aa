import Foundation

/// Which catalogues another instance has lately been writing at the same time as this one.
///
/// A group of writes first runs optimistically — the revision, the rows and the write, three
/// round trips, no lock held between them — and runs again under the catalogue's lock when
/// another instance wrote in between. On a catalogue two instances write all the time, nearly
/// every optimistic run is wasted, and the lock is held for the wasted run's retry anyway; so
/// for a while after a conflict, that catalogue's groups take the lock from the start and the
/// other instance waits its turn instead of working for nothing.
final class Contention: @unchecked Sendable {
    private let lock = NSLock()
    private var lastConflict: [String: ContinuousClock.Instant] = [:]
    /// How long a conflict makes a catalogue's groups lock first.
    let memory: Duration

    init(memory: Duration = .seconds(1)) {
        self.memory = memory
    }

    /// Whether groups to `catalog` should take its lock from the start.
    func isContended(_ catalog: String) -> Bool {
        lock.withLock {
            guard let last = lastConflict[catalog] else { return false }
            if ContinuousClock.now - last < memory { return true }
            lastConflict[catalog] = nil
            return false
        }
    }

    /// An optimistic group to `catalog` found that another instance wrote first.
    func conflicted(_ catalog: String) {
        lock.withLock {
            if lastConflict.count >= 1_024 { lastConflict.removeAll(keepingCapacity: true) }
            lastConflict[catalog] = .now
        }
    }
}
