import CCatalogSupport

// Looking B's ids up expecting A's order: each id compared with the A ids expected next before it
// is hashed, misses probed for later in blocks, and stretches out of order probed for without
// comparisons (the constants are in IDTable+Tuning.swift).
extension HashedIDTable {
    /// ``lookUp(_:in:expectingOrder:into:)`` comparing each id with the A ids expected next
    /// first. An id not there whose next id is (inserted or moved in: the usual miss) is probed
    /// for later, with the others of its section, a block at a time with their slots prefetched:
    /// a probe for it would not change where the walk goes on, and probed at once it waited for
    /// its slot from memory (half the lookup's time at a million ids). Any other id that must be
    /// probed for is probed at once, since the next comparison depends on where it was found —
    /// after the deferred ones, so that ids are entered in B's order; where most are (see
    /// ``IDTable/strikeLimit``), a stretch of ids is probed for without comparisons, each id's slot
    /// prefetched ``IDTable/blockSize`` ids ahead.
    @inline(__always)
    func lookUpExpectingOrder<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>,
                                                                    into results: inout Results) -> Bool {
        let aCount = self.aCount
        var next = 0  // the A position after the last match
        // The A section holding `next`, while `next` is in it.
        var (section, sectionStart, sectionEnd) = (0, 0, 0)
        var ids: [ID] = []
        var strikes = 0
        // Indices in the B section of ids to probe for later, in order (see ``DeferredIndices``).
        var room = workspace?.takeScratch(\.deferred, count: DeferredIndices.capacity, filler: 0)
            ?? [Int32](repeating: 0, count: DeferredIndices.capacity)
        defer { workspace?.keep(room, at: \.deferred) }
        return room.withUnsafeMutableBufferPointer { room in
        var deferred = DeferredIndices(room.baseAddress!)  // `capacity` elements: never nil
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: IDTable.blockSize) { ahead in
            b.forEachSection { base, bIDs in
                var i = 0
                var stretchEnd = 0  // ids before it (from i on) are probed for without comparisons
                var inOrder = 0  // ids probed for in the stretch, each found after the one before
                /// Hashes the id `blockSize` after `k` when it is in the stretch, and prefetches its slot.
                func hashAhead(_ k: Int) -> Bool {
                    let k = k &+ IDTable.blockSize
                    guard k < stretchEnd else { return true }
                    guard let hash = hash(bIDs[k]) else { return false }
                    ahead[k & (IDTable.blockSize &- 1)] = hash
                    catalog_prefetch(storage + (hash & mask))
                    return true
                }
                while i < bIDs.count {
                    if i >= stretchEnd {
                        if deferred.isNearlyFull {
                            guard probe(&deferred, of: bIDs, at: base, in: a, b, into: &results) else { return false }
                        }
                        if (next < sectionStart || next >= sectionEnd) && next < aCount {
                            section = a.section(of: next)
                            (sectionStart, sectionEnd) = (a.starts[section], a.starts[section + 1])
                            ids = a.sections[section]
                        }
                        // Ids in A's order, the common case, in a loop of its own.
                        let walked = ids.withUnsafeBufferPointer { ids in
                            Self.walkInOrder(from: i, next, in: bIDs, at: base, along: ids, at: sectionStart,
                                             deferring: &deferred, into: &results)
                        }
                        if walked.i != i || walked.next != next {
                            (i, next, strikes) = (walked.i, walked.next, max(0, strikes &- walked.matched))
                            continue
                        }
                        // The walk stopped here: this id is not among the next ``IDTable/lookahead`` ids of A.
                        let end = min(next &+ IDTable.lookahead, sectionEnd)  // below `next` when A has no ids left
                        if let found = Self.nextExpected(after: i, in: bIDs, where: ids, at: sectionStart, from: next, to: end) {
                            // An id soon after it is where A has it: the ones before were
                            // inserted or moved here (the common case), which a probe tells
                            // without changing where the walk goes on. Probed for later, with others.
                            for k in i..<found { deferred.append(k) }
                            i = found
                            continue
                        }
                        strikes &+= IDTable.missPenalty
                        if strikes > IDTable.strikeLimit {
                            // Not in A's order here: a stretch without comparisons.
                            (stretchEnd, strikes, inOrder) = (min(i &+ IDTable.unorderedStretch, bIDs.count), 0, 0)
                            for k in i..<min(i &+ IDTable.blockSize, stretchEnd) where !hashAhead(k &- IDTable.blockSize) { return false }
                        }
                    }
                    // Hashed and probed for: in a stretch, hashed ahead; else now (rarely, so the
                    // hash's kind is decided for each id here).
                    guard deferred.isEmpty || probe(&deferred, of: bIDs, at: base, in: a, b, into: &results)
                    else { return false }
                    let hash: Int
                    if i < stretchEnd {
                        hash = ahead[i & (IDTable.blockSize &- 1)]
                        guard hashAhead(i) else { return false }
                    } else {
                        guard let now = self.hash(bIDs[i]) else { return false }
                        hash = now
                    }
                    if (entries + 1) * 3 > (mask + 1) * 2 { grow(a, b) }
                    let p = probeForB(base &+ i, bIDs, i, hash: hash, slots: slots, in: a, b, into: &results)
                    guard p >= 0 else {
                        i &+= 1
                        continue
                    }
                    if i < stretchEnd {
                        inOrder = p == next ? inOrder &+ 1 : 0
                        if inOrder == IDTable.backInOrder { stretchEnd = i &+ 1 }
                    }
                    results.matched(base &+ i, p)
                    (next, i) = (p &+ 1, i &+ 1)
                }
                return deferred.isEmpty || probe(&deferred, of: bIDs, at: base, in: a, b, into: &results)
            }
        }
        }
    }

    /// Probes for B's ids at `indices` of `section` (whose first id is at flat position `base`),
    /// in order, their slots prefetched a block ahead; empties `indices`. False when the hash gave up.
    @inline(__always)
    func probe<ID: Hashable, Results: LookUpResults>(_ indices: inout DeferredIndices, of section: UnsafeBufferPointer<ID>,
                                                     at base: Int, in a: ItemIDs<ID>, _ b: ItemIDs<ID>,
                                                     into results: inout Results) -> Bool {
        defer { indices.removeAll() }
        return forEachHashed(indices.indices, of: section, grow: { grow(a, b) }) { i, hash, slots in
            let p = probeForB(base &+ i, section, i, hash: hash, slots: slots, in: a, b, into: &results)
            if p >= 0 { results.matched(base &+ i, p) }
        }
    }

    /// Walks on from B's id `i` (of the B section `bIDs`, whose first id is at flat position
    /// `base`) and A's position `next` (in the A section `ids`, which starts at flat position
    /// `sectionStart`) while B's ids follow A's closely: an id where A has it, or one or two
    /// positions further on (A's ids between were deleted or moved away), is matched there; an id
    /// whose next id is where A has it (inserted or moved here) is added to `deferred`, to be
    /// probed for later. Returns where the walk stopped — at the end of either section, at an
    /// id it cannot place this way, or at an id B repeats — and how many ids it matched.
    ///
    /// The same answers as the general steps of ``lookUpExpectingOrder(_:in:into:)``, in a loop
    /// with few values to keep, so that they stay in registers between the short runs of matches
    /// a mostly ordered target makes. The loop makes no call, and is a function of its own (not
    /// inlined): inlined into the lookup, or with an array append in it, its values go to memory.
    @inline(never)
    static func walkInOrder<ID: Hashable, Results: LookUpResults>(
        from i: Int, _ next: Int, in bIDs: UnsafeBufferPointer<ID>, at base: Int, along ids: UnsafeBufferPointer<ID>,
        at sectionStart: Int, deferring deferred: inout DeferredIndices, into results: inout Results
    ) -> (i: Int, next: Int, matched: Int) {
        var (j, o, matched) = (i, next &- sectionStart, 0)
        let (bCount, aCount) = (bIDs.count, ids.count)
        while j < bCount && o < aCount {
            var step = 0  // how far on in A the id is, or −1 when it arrived
            if ids[o] == bIDs[j] {
                step = 0
            } else if o &+ 1 < aCount && ids[o &+ 1] == bIDs[j] {
                step = 1
            } else if o &+ 2 < aCount && ids[o &+ 2] == bIDs[j] {
                step = 2
            } else if j &+ 1 < bCount && ids[o] == bIDs[j &+ 1] && !deferred.isFull {
                deferred.append(j)
                j &+= 1
                continue
            } else {
                break
            }
            // An A position matched before (B repeats an id) stops the walk: the general step
            // records the repeat, which takes a call.
            guard results.matchedFirst(base &+ j, sectionStart &+ o &+ step) else { break }
            (j, o, matched) = (j &+ 1, o &+ step &+ 1, matched &+ 1)
        }
        return (j, o &+ sectionStart, matched)
    }

    /// The first of the (up to ``IDTable/arrivalsAhead``) ids after `bIDs[i]` that is among A's ids from
    /// `start` up to `end` (in the A section `ids`, which starts at position `sectionStart`), or
    /// nil when none is.
    @inline(__always)
    static func nextExpected<ID: Hashable>(after i: Int, in bIDs: UnsafeBufferPointer<ID>, where ids: [ID],
                                           at sectionStart: Int, from start: Int, to end: Int) -> Int? {
        for k in (i &+ 1)..<min(i &+ 1 &+ IDTable.arrivalsAhead, bIDs.count)
        where position(of: bIDs[k], in: ids, at: sectionStart, from: start, to: end) < end {
            return k
        }
        return nil
    }

    /// The first A position from `start` up to `end` whose id is `id`, in the A section `ids`
    /// that starts at position `sectionStart`; `end` or more when there is none.
    @inline(__always)
    static func position<ID: Hashable>(of id: ID, in ids: [ID], at sectionStart: Int, from start: Int, to end: Int) -> Int {
        var p = start
        while p < end && ids[p &- sectionStart] != id { p &+= 1 }
        return p
    }
}
