import CatalogDiff
import CatalogModel
import CatalogStore
import CatalogTestSupport
import Foundation
import Testing

/// Numbered writes (docs/Following-a-server.md), on every backend: the number is recorded with
/// the write, so a resend is answered and not applied again, and only the next number applies.
@Suite struct ClientWriteTests {
    static let answer: @Sendable (WriteResult) -> RecordedAnswer = { RecordedAnswer(status: 200, body: "revision \($0.revision)") }

    static func move(_ item: String, to section: String) -> Batch {
        Batch(operations: [.moveItem(id: item, toSection: section, index: 0, policy: .reject)])
    }

    @Test(arguments: Backend.available)
    func aResendIsAnsweredAndNotAppliedAgain(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace([(CatalogDatabaseTests.shelves, nil)], progress: nil)
            let first = try await store.apply(Self.move("a0", to: "b"), to: "shelf", as: ClientWrite(client: "phone-1", sequence: 1), answer: Self.answer)
            guard case .applied(let result, _) = first else { Issue.record("not applied: \(first)"); return }
            #expect(result.revision == 2)
            let stored = try await store.catalog(named: "shelf")
            // The same write again (its answer was lost): the recorded answer, nothing applied.
            let again = try await store.apply(Self.move("a0", to: "b"), to: "shelf", as: ClientWrite(client: "phone-1", sequence: 1), answer: Self.answer)
            #expect(again == .answeredBefore(RecordedAnswer(status: 200, body: "revision 2")))
            #expect(try await store.catalog(named: "shelf") == stored)
            // A gap is refused, and so is a number before the last; nothing is written.
            for sequence in [3, 0] {
                await #expect(throws: StoreError.outOfSequence(client: "phone-1", sequence: sequence, expected: 2)) {
                    try await store.apply(Self.move("a1", to: "a"), to: "shelf", as: ClientWrite(client: "phone-1", sequence: sequence), answer: Self.answer)
                }
            }
            #expect(try await store.catalog(named: "shelf") == stored)
            // Another client's numbers are its own.
            let other = try await store.apply(Self.move("a1", to: "a"), to: "shelf", as: ClientWrite(client: "tablet", sequence: 1), answer: Self.answer)
            guard case .applied = other else { Issue.record("not applied: \(other)"); return }
            let second = try await store.apply(Self.move("a0", to: "a"), to: "shelf", as: ClientWrite(client: "phone-1", sequence: 2), answer: Self.answer)
            guard case .applied(let moved, _) = second else { Issue.record("not applied: \(second)"); return }
            #expect(moved.revision == (try await store.revision(of: "shelf")))
            try await store.checkIntegrity()
        }
    }

    @Test(arguments: Backend.available)
    func aRefusedWriteRecordsNothingUntilItsRefusalIsRecorded(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            try await store.replace([(CatalogDatabaseTests.shelves, nil)], progress: nil)
            let write = ClientWrite(client: "phone", sequence: 1)
            // Shelf "a" is full: refused, and the number is not taken.
            await #expect(throws: StoreError.self) {
                try await store.apply(Self.move("b0", to: "a"), to: "shelf", as: write, answer: Self.answer)
            }
            await #expect(throws: StoreError.outOfSequence(client: "phone", sequence: 2, expected: 1)) {
                try await store.apply(Self.move("b0", to: "b"), to: "shelf", as: ClientWrite(client: "phone", sequence: 2), answer: Self.answer)
            }
            // Recorded as refused for good: a resend gets the refusal, and number 2 follows it.
            let refusal = RecordedAnswer(status: 409, body: "shelf-full")
            try await store.recordRefusal(refusal, to: write)
            try await store.recordRefusal(RecordedAnswer(status: 409, body: "another"), to: write)   // not the next number: nothing
            #expect(try await store.apply(Self.move("a0", to: "b"), to: "shelf", as: write, answer: Self.answer) == .answeredBefore(refusal))
            #expect(try await store.revision(of: "shelf") == 1)
            let next = try await store.apply(Self.move("a0", to: "b"), to: "shelf", as: ClientWrite(client: "phone", sequence: 2), answer: Self.answer)
            guard case .applied(let result, _) = next else { Issue.record("not applied: \(next)"); return }
            #expect(result.revision == 2)
        }
    }

    /// The answers to every write of a client's last request are kept, so that the request sent
    /// again is answered write by write — and those of its last ``ClientWrite/answersKept``
    /// numbers in all (a copied device sends the writes waiting at the copy too); the first
    /// write of a later request drops older ones.
    @Test(arguments: Backend.available)
    func theAnswersToTheLastNumbersAreKept(backend: Backend) async throws {
        try await withDatabase(backend) { store in
            var catalog = CatalogDatabaseTests.shelves
            catalog.sections[0].capacity = 1_000
            catalog.sections[1].capacity = 1_000
            try await store.replace([(catalog, nil)], progress: nil)
            func send(_ sequence: Int, from start: Int) async throws -> ClientWriteOutcome {
                try await store.apply(Self.move("a0", to: sequence % 2 == 0 ? "a" : "b"), to: "shelf",
                                      as: ClientWrite(client: "phone", sequence: sequence, requestStart: start), answer: Self.answer)
            }
            for sequence in 1...3 { _ = try await send(sequence, from: 1) }
            let revision = try await store.revision(of: "shelf")
            for sequence in 1...3 {
                #expect(try await send(sequence, from: 1) == .answeredBefore(RecordedAnswer(status: 200, body: "revision \(sequence + 1)")))
            }
            #expect(try await store.revision(of: "shelf") == revision)
            // Later requests: 1 to 3 are still answered while within the last numbers kept.
            for sequence in 4...5 { _ = try await send(sequence, from: 4) }
            #expect(try await send(3, from: 1) == .answeredBefore(RecordedAnswer(status: 200, body: "revision 4")))
            #expect(try await send(5, from: 4) == .answeredBefore(RecordedAnswer(status: 200, body: "revision 6")))
            let last = 3 + ClientWrite.answersKept
            for sequence in 6...last { _ = try await send(sequence, from: sequence) }
            // Number 2 is now too old: refused as out of sequence, never applied again.
            await #expect(throws: StoreError.outOfSequence(client: "phone", sequence: 2, expected: last + 1)) { try await send(2, from: 2) }
            #expect(try await send(4, from: 4) == .answeredBefore(RecordedAnswer(status: 200, body: "revision 5")))
            #expect(try await store.revision(of: "shelf") == last + 1)
            try await store.checkIntegrity()
        }
    }

    /// Two instances (or two threads) given the same numbered write at once: it is applied once,
    /// and the other is answered with the first's answer.
    @Test(arguments: Backend.available)
    func theSameWriteSentTwiceAtOnceIsAppliedOnce(backend: Backend) async throws {
        try await withTwoHandles(backend) { a, b in
            var catalog = CatalogDatabaseTests.shelves
            catalog.sections[0].capacity = 100
            catalog.sections[1].capacity = 100
            try await a.replace([(catalog, nil)], progress: nil)
            for sequence in 1...20 {
                let write = ClientWrite(client: "phone", sequence: sequence)
                let batch = Self.move("a0", to: sequence % 2 == 0 ? "a" : "b")
                let before = try await a.revision(of: "shelf")
                async let first = a.apply(batch, to: "shelf", as: write, answer: Self.answer)
                async let second = b.apply(batch, to: "shelf", as: write, answer: Self.answer)
                let outcomes = try await [first, second]
                let applied = outcomes.compactMap { outcome -> WriteResult? in if case .applied(let result, _) = outcome { result } else { nil } }
                #expect(applied.count == 1, "\(outcomes)")
                #expect(outcomes.contains(.answeredBefore(RecordedAnswer(status: 200, body: "revision \(before + 1)"))), "\(outcomes)")
                #expect(try await a.revision(of: "shelf") == before + 1)
            }
            try await a.checkIntegrity()
        }
    }
}
