import Testing
@testable import CatalogModel

/// The rules of a move in one table: the editor and the store's quick path both ask them.
@Suite struct MoveDecisionTests {
    func decide(count: Int = 3, capacity: Int? = 4, same: Bool = false, at index: Int? = nil, policy: MovePolicy = .reject,
                kind: ItemKind = .book, sectionKind: SectionKind = .bookshelf) -> Result<MoveDecision, BatchError> {
        Result { () throws(BatchError) in
            try MoveDecision.decide(item: "b", kind: kind, to: "s", of: sectionKind, count: count, capacity: capacity,
                                    sameSection: same, at: index, policy: policy)
        }
    }

    @Test func decisions() {
        #expect(decide(at: 1) == .success(.insert(index: 1)))
        #expect(decide() == .success(.insert(index: 3)), "no index: the end")
        #expect(decide(capacity: nil, at: 0) == .success(.insert(index: 0)), "no capacity: always room")
        #expect(decide(count: 4, same: true, at: 9) == .failure(BatchError(reason: .indexOutOfRange(index: 9, count: 4, what: "section \"s\""))))
        #expect(decide(count: 4, same: true, at: 4, policy: .swap) == .success(.within(index: 3)), "within: no room needed, the end is the end")
        #expect(decide(count: 4, same: true) == .success(.within(index: 3)))
        #expect(decide(count: 4, at: 1) == .failure(BatchError(reason: .sectionFull(section: "s", capacity: 4))))
        #expect(decide(count: 4, at: 1, policy: .displace) == .success(.displace(index: 1)))
        #expect(decide(count: 4, at: 1, policy: .swap) == .success(.swap(index: 1)), "a swap needs no room")
        #expect(decide(count: 2, at: 1, policy: .swap) == .success(.swap(index: 1)))
        #expect(decide(count: 4, at: 4, policy: .swap) == .failure(BatchError(reason: .nothingToSwap(section: "s", index: 4))))
        #expect(decide(count: 2, at: 2, policy: .swap) == .success(.insert(index: 2)), "past the last book, with room: an insert")
        #expect(decide(at: -1) == .failure(BatchError(reason: .indexOutOfRange(index: -1, count: 3, what: "section \"s\""))))
        #expect(decide(kind: .video) == .failure(BatchError(reason: .kindMismatch(item: "b", kind: .video, section: "s", sectionKind: .bookshelf))))
    }
}
