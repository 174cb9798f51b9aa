import CatalogDiff
import CatalogModel
@testable import CatalogPostgres
import CatalogStore
import CatalogTestSupport
import Testing

/// How PostgreSQL's observers read the database: observers that ask together read the catalogue
/// once between them, new ones (whose first update is a snapshot) as well as those in step.
@Suite struct ObserverReadsTests {
    /// New subscribers that connect together — say, every subscriber of an instance that went
    /// away — share one read of the catalogue for their snapshots, rather than reading it one
    /// after another while the observers already there wait their turn behind them.
    @Test(.enabled(if: TestPostgres.url != nil, "needs PostgreSQL"))
    func observersThatStartTogetherShareOneRead() async throws {
        try await withTwoHandles(.postgres) { writer, reader in
            let store = try #require(reader as? PostgresCatalogStore)
            try await writer.replace([(CrossInstanceObservationTests.shelves, nil)], progress: nil)
            try await CrossInstanceObservationTests.shuffle(writer, 3)
            let stored = try await writer.catalog(named: "shelf")

            // The catalogue's turn held, so that every observer asks before any read begins.
            let (release, releasing) = AsyncStream<Void>.makeStream()
            let holder = Task {
                await store.observerTurns.inTurn(for: "shelf") {
                    for await _ in release {}
                }
            }
            try await Self.until { store.observerTurns.waiting(for: "shelf") == 0 }
            let readsBefore = store.presentReads.reads
            let observers = (0..<20).map { _ in store.observer(of: "shelf", from: nil, resetThreshold: 10_000) }
            let updates = Task {
                try await withThrowingTaskGroup(of: CatalogUpdate?.self) { group in
                    for observer in observers { group.addTask { try await observer.next(waitingAtMost: .seconds(60)) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await Self.until { store.observerTurns.waiting(for: "shelf") == observers.count }
            releasing.finish()
            await holder.value

            let first = try await updates.value
            #expect(first.count == observers.count)
            for update in first {
                let update = try #require(update, "an observer got no snapshot")
                #expect(update.changeset == nil)
                #expect(update.catalog == stored)
            }
            #expect(store.presentReads.reads - readsBefore == 1, "observers that asked together read the catalogue more than once")
            for observer in observers { observer.finish() }
        }
    }

    /// Waits for `condition`, which the code under test makes true within moments, for up to a
    /// minute.
    static func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "the condition did not hold within a minute")
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
