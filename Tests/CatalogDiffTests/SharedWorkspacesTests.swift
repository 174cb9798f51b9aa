import CatalogModel
import Dispatch
import Testing
@testable import CatalogDiff

/// Diffs without a workspace borrow one of a few shared ones: never one another diff is using,
/// never more memory kept than the pool's limits.
@Suite("Shared diff workspaces")
struct SharedWorkspacesTests {
    typealias Shape = SnapshotShape<Int, Int>

    /// A diff that leaves `workspace` holding scratch memory for `count` ids.
    static func grow(_ workspace: DiffWorkspace, count: Int) throws {
        var random = SplitMix64(seed: UInt64(count))
        let (a, b) = DiffWorkspaceTests.largePair(count: count, sections: 1, disjoint: false, &random)
        _ = try StagedDiff.changeset(from: a, to: b, workspace: workspace)
    }

    @Test("a borrowed workspace is nobody else's; idle ones are kept up to the count and byte limits")
    func limits() throws {
        let pool = SharedWorkspaces(maximumIdle: 2, maximumIdleBytes: 1 << 20)
        var seen: [ObjectIdentifier] = []
        try pool.borrow { (first: DiffWorkspace) throws in
            try pool.borrow { (second: DiffWorkspace) throws in
                try pool.borrow { (third: DiffWorkspace) throws in
                    try Self.grow(third, count: 1_000)
                    seen = [first, second, third].map(ObjectIdentifier.init)
                }
            }
        }
        #expect(Set(seen).count == 3)
        #expect(pool.idleCount == 2)  // the third and second came back first; the first found the pool full
        #expect(pool.retainedBytes > 0)
        // The pool hands out what it kept, the last returned first.
        pool.borrow { workspace in #expect(ObjectIdentifier(workspace) == seen[1]) }
        pool.borrow { workspace in #expect(ObjectIdentifier(workspace) == seen[1]) }

        // A workspace grown past the byte limit is freed, not kept.
        pool.removeAll()
        #expect(pool.idleCount == 0 && pool.retainedBytes == 0)
        try pool.borrow { workspace in try Self.grow(workspace, count: 100_000) }
        #expect(pool.idleCount == 0 && pool.retainedBytes == 0)
        try pool.borrow { workspace in try Self.grow(workspace, count: 2_000) }
        #expect(pool.idleCount == 1)
        #expect(pool.retainedBytes <= 1 << 20)
    }

    @Test("a diff that throws gives its workspace back")
    func throwingDiff() {
        let pool = SharedWorkspaces()
        let repeated = Shape(sections: [0], items: [[1, 2, 1]])
        #expect(throws: DuplicateIDError.self) {
            try pool.borrow { workspace throws(DuplicateIDError) in
                try StagedDiff.changeset(from: repeated, to: repeated, workspace: workspace)
            }
        }
        #expect(pool.idleCount == 1)
    }

    @Test("diffs on eight threads at once, without workspaces, give the changesets of fresh memory")
    func concurrentDiffs() throws {
        let pairs: [(Shape, Shape)] = (0..<8).map { n in
            var random = SplitMix64(seed: UInt64(100 + n))
            return DiffWorkspaceTests.largePair(count: 2_000 + 500 * n, sections: n % 2 == 0 ? 1 : 9, disjoint: false, &random)
        }
        let expected = try pairs.map { try StagedDiff.changeset(from: $0.0, to: $0.1, workspace: DiffWorkspace()) }
        let mismatches = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<40 {
                let n = (thread + round) % pairs.count
                if (try? StagedDiff.changeset(from: pairs[n].0, to: pairs[n].1)) != expected[n] { mismatches.add() }
            }
        }
        #expect(mismatches.value == 0)
        #expect(DiffWorkspace.shared.idleCount <= SharedWorkspaces.maximumIdle)
        #expect(DiffWorkspace.sharedRetainedBytes <= SharedWorkspaces.maximumIdleBytes)
    }

    @Test("a pool's borrowers on many threads never hold the same workspace at once")
    func exclusiveBorrowing() {
        let pool = SharedWorkspaces(maximumIdle: 3)
        let inUse = Counter()
        let clashes = Counter()
        let holders = Holders()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                pool.borrow { workspace in
                    if !holders.enter(ObjectIdentifier(workspace)) { clashes.add() }
                    inUse.add()
                    holders.leave(ObjectIdentifier(workspace))
                }
            }
        }
        #expect(clashes.value == 0)
        #expect(inUse.value == 8 * 500)
        #expect(pool.idleCount <= 3)
    }
}

/// A count several threads add to.
private final class Counter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "counter")
    private var count = 0
    func add() { queue.sync { count += 1 } }
    var value: Int { queue.sync { count } }
}

/// The workspaces currently borrowed.
private final class Holders: @unchecked Sendable {
    private let queue = DispatchQueue(label: "holders")
    private var held = Set<ObjectIdentifier>()
    func enter(_ id: ObjectIdentifier) -> Bool { queue.sync { held.insert(id).inserted } }
    func leave(_ id: ObjectIdentifier) { _ = queue.sync { held.remove(id) } }
}
