import Testing
@testable import CatalogPostgres

/// After a conflict with another instance, a catalogue's groups lock first, for a while only,
/// and only that catalogue's (the groups themselves are checked by ConcurrentWritesTests).
@Suite struct ContentionTests {
    @Test func aConflictMakesOnlyThatCatalogueLockFirstForAWhile() async throws {
        let contention = Contention(memory: .seconds(3_600))
        #expect(!contention.isContended("shelf"))
        contention.conflicted("shelf")
        #expect(contention.isContended("shelf"))
        #expect(!contention.isContended("other"))

        let forgetful = Contention(memory: .zero)
        forgetful.conflicted("shelf")
        #expect(!forgetful.isContended("shelf"))
    }
}
