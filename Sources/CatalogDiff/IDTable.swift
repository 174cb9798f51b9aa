import CCatalogSupport

/// One open-addressing hash table that matches the item ids of two snapshots.
///
/// It stores no keys, only 32-bit slots — an entry index + 1 in the low bits, as many bits of
/// the hash as are left above it as a tag — so a probe touches one small array (1 MiB for two
/// snapshots of 100k ids) and compares ids only when the tags agree. Entries are A's positions
/// (index < `aCount`) and the positions of B's ids that A does not have (index − `aCount`), so
/// one table finds every survivor and every id repeated in either snapshot. Linear probing, load
/// factor at most 2/3 (the table doubles when B brings more new ids than it was sized for). Ids
/// are hashed a block at a time and their slots prefetched before the block is probed: on large
/// snapshots the table does not fit in cache and each probe would otherwise wait for memory.
/// B's ids can first be looked for just after the A id matched last (``lookUp(_:in:expectingOrder:into:)``):
/// a target mostly in the old order then hashes few of its ids.
///
/// Integer ids that fall in a range no wider than the table would be (row ids, indexes: the
/// common case for `Int` ids) get a *dense* table instead (``forIDs(_:_:hash:workspace:)``):
/// slot `id − smallest id` holds the entry, so there is nothing to hash, no tag and no probing,
/// and a slot's id is known without comparing. Same memory or less, same answers.
///
/// A class because it owns its slots' memory; it never leaves the diff that made it. With a
/// ``DiffWorkspace`` the memory is the workspace's, borrowed for the table's life.
final class IDTable {
    private var storage: UnsafeMutablePointer<UInt32>
    /// How many slots `storage` has room for: `mask + 1` or more (a workspace's larger slots).
    private var storageCapacity: Int
    private let workspace: DiffWorkspace?
    /// The slot count − 1: a power of two − 1 for a hash table (slot = hash & mask), the span of
    /// the ids − 1 for a dense one.
    private var mask: Int
    /// Occupied slots of a hash table (when to grow).
    private var entries = 0
    /// Whether ``enter(_:)`` found an id repeated in A: looking B's ids up in A's order then
    /// might match one occurrence where the table has the other, so it is not done.
    private var aHasRepeats = false
    /// The slot bits that hold an entry index + 1; the others hold the tag.
    private let indexMask: UInt32
    let hash: IDHash
    let aCount: Int
    /// The smallest id of a dense table (slot = id − base); nil for a hash table.
    private let denseBase: Int?

    /// How far ahead a dense table's slots are prefetched: ids in no particular order reach every
    /// part of a table larger than the caches, and a dense step is only a few instructions, so
    /// the prefetch needs many ids of lead to arrive in time (64 were 4–7% faster than 16 on a
    /// million ids in no particular order, and no slower in order).
    static let denseLookahead = 64

    /// How many ids are hashed (and their slots prefetched) before the first of them is probed.
    /// A power of two: the ordered lookup keeps the hashes ahead in a ring indexed by a mask.
    /// A slot is probed on average a block's worth of ids after its prefetch: at a million ids
    /// the table is far beyond the caches, and 16 ids (about 200 cycles of work) left most of
    /// `enter`'s time waiting for slots; 64 cover the wait.
    static let blockSize = 64

    /// A table for snapshots of `aCount` and `bCount` ids, sized for the larger (so a diff with
    /// few new ids never grows it), in the workspace's memory when it has enough.
    convenience init(aCount: Int, bCount: Int, hash: IDHash, workspace: DiffWorkspace? = nil) {
        var indexMask: UInt32 = 0
        while Int(indexMask) < aCount + bCount + 1 { indexMask = indexMask << 1 | 1 }
        self.init(slotCount: Self.hashCapacity(aCount: aCount, bCount: bCount), indexMask: indexMask, hash: hash,
                  aCount: aCount, bCount: bCount, denseBase: nil, workspace: workspace)
    }

    /// A dense table for integer ids from `base` to `base + width − 1` (an entry is its index + 1,
    /// with no tag).
    private convenience init(denseFrom base: Int, width: Int, aCount: Int, bCount: Int, workspace: DiffWorkspace?) {
        self.init(slotCount: width, indexMask: .max, hash: .standard, aCount: aCount, bCount: bCount,
                  denseBase: base, workspace: workspace)
    }

    /// `slotCount` empty slots, in the workspace's memory when it has enough.
    private init(slotCount: Int, indexMask: UInt32, hash: IDHash, aCount: Int, bCount: Int, denseBase: Int?,
                 workspace: DiffWorkspace?) {
        precondition(aCount + bCount < Int(UInt32.max), "a diff handles fewer than 2³² ids")
        if let (borrowed, available) = workspace?.takeSlots(count: slotCount) {
            (storage, storageCapacity) = (borrowed, available)
        } else {
            (storage, storageCapacity) = (.allocate(capacity: slotCount), slotCount)
        }
        storage.initialize(repeating: 0, count: slotCount)
        mask = slotCount - 1
        self.indexMask = indexMask
        self.hash = hash
        self.aCount = aCount
        self.denseBase = denseBase
        self.workspace = workspace
    }

    /// The slots a hash table for these snapshot sizes has.
    static func hashCapacity(aCount: Int, bCount: Int) -> Int {
        var capacity = 16
        while capacity * 2 < max(aCount, bCount) * 3 { capacity <<= 1 }
        return capacity
    }

    /// The table for matching `a` with `b`: dense when the ids are integers spanning no more
    /// slots than a hash table would have, else a hash table using `hash` — which reads ids by
    /// position on every probe, so the sections of `a`'s and `b`'s positions are indexed for it
    /// (in the workspace's memory when there is one).
    static func forIDs<ID: Hashable>(_ a: inout ItemIDs<ID>, _ b: inout ItemIDs<ID>, hash: IDHash,
                                     workspace: DiffWorkspace?) -> IDTable {
        let capacity = hashCapacity(aCount: a.count, bCount: b.count)
        if ID.self == Int.self, a.count + b.count > 0 {
            var (low, high) = (Int.max, Int.min)
            /// Whether the ids so far span fewer slots than a hash table has.
            func narrow() -> Bool {
                let (span, overflow) = high.subtractingReportingOverflow(low)
                return !overflow && span < capacity
            }
            // A chunk at a time, so that ids spread over all of `Int` (random or hashed row
            // ids) give up after the first chunk instead of reading both snapshots.
            let isNarrow = [a, b].allSatisfy { ids in
                forEachIntegerSection(ids) { _, section in
                    var start = 0
                    while start < section.count {
                        let end = min(start + Self.spanChunk, section.count)
                        let span = Self.span(of: UnsafeBufferPointer(rebasing: section[start..<end]))
                        (low, high) = (min(low, span.low), max(high, span.high))
                        guard narrow() else { return false }
                        start = end
                    }
                    return true
                }
            }
            if isNarrow {
                return IDTable(denseFrom: low, width: high - low + 1, aCount: a.count, bCount: b.count, workspace: workspace)
            }
        }
        // Already indexed when a first table gave up on a non-ASCII string id.
        // (One section needs no index: every position is in it.)
        if a.sectionOf.isEmpty && a.sections.count > 1 {
            a.indexSections(storage: workspace?.takeScratch(\.aSectionOf, count: 0, filler: 0) ?? [])
        }
        if b.sectionOf.isEmpty && b.sections.count > 1 {
            b.indexSections(storage: workspace?.takeScratch(\.bSectionOf, count: 0, filler: 0) ?? [])
        }
        return IDTable(aCount: a.count, bCount: b.count, hash: hash, workspace: workspace)
    }

    /// How many ids the span of integer ids is taken over before it is compared with the table's
    /// size: a few microseconds of reading at most for ids that will not make a dense table.
    static let spanChunk = 4096

    /// Calls `body(start, ids)` with each section of integer ids (`ID` must be `Int`) and the flat
    /// position of its first id, until `body` returns false; returns whether it never did.
    @inline(__always)
    @discardableResult
    private static func forEachIntegerSection<ID: Hashable>(_ ids: ItemIDs<ID>,
                                                            _ body: (_ start: Int, _ ids: UnsafeBufferPointer<Int>) -> Bool) -> Bool {
        ids.forEachSection { start, section in
            section.withMemoryRebound(to: Int.self) { body(start, $0) }
        }
    }

    /// Calls `body(position, slot)` for every id of `ids` in a dense table, in order, with its
    /// slot prefetched ``denseLookahead`` ids ahead (within its section).
    @inline(__always)
    private func forEachDenseSlot<ID: Hashable>(_ ids: ItemIDs<ID>, base: Int, _ body: (_ position: Int, _ slot: Int) -> Void) {
        let slots = storage
        Self.forEachIntegerSection(ids) { start, ids in
            for i in ids.indices {
                if i &+ Self.denseLookahead < ids.count { catalog_prefetch(slots + (ids[i &+ Self.denseLookahead] &- base)) }
                body(start &+ i, ids[i] &- base)
            }
            return true
        }
    }

    /// The smallest and largest of `ids` (Int.max and Int.min when there are none), in locals
    /// the compiler can keep in vector registers.
    private static func span(of ids: UnsafeBufferPointer<Int>) -> (low: Int, high: Int) {
        // Four running pairs, so that the comparisons do not wait on one another.
        var (l0, l1, l2, l3) = (Int.max, Int.max, Int.max, Int.max)
        var (h0, h1, h2, h3) = (Int.min, Int.min, Int.min, Int.min)
        var i = 0
        while i + 4 <= ids.count {
            (l0, h0) = (min(l0, ids[i]), max(h0, ids[i]))
            (l1, h1) = (min(l1, ids[i + 1]), max(h1, ids[i + 1]))
            (l2, h2) = (min(l2, ids[i + 2]), max(h2, ids[i + 2]))
            (l3, h3) = (min(l3, ids[i + 3]), max(h3, ids[i + 3]))
            i += 4
        }
        while i < ids.count {
            (l0, h0) = (min(l0, ids[i]), max(h0, ids[i]))
            i += 1
        }
        return (min(l0, l1, l2, l3), max(h0, h1, h2, h3))
    }

    /// Whether this is a dense table (for tests).
    var isDense: Bool { denseBase != nil }

    deinit {
        if let workspace { workspace.giveBack(storage, capacity: storageCapacity) } else { storage.deallocate() }
    }

    /// Enters every id of `a` (the positions must be the table's A positions, `0..<aCount`);
    /// returns the positions whose id an earlier position already has, or nil when the hash gave
    /// up on an id (see ``IDHash``).
    func enter<ID: Hashable>(_ a: ItemIDs<ID>) -> [Int]? {
        var duplicates: [Int] = []
        if let base = denseBase {
            let slots = storage
            forEachDenseSlot(a, base: base) { p, slot in
                if slots[slot] != 0 { duplicates.append(p) } else { slots[slot] = UInt32(truncatingIfNeeded: p &+ 1) }
            }
            return duplicates
        }
        if ID.self == Int.self && hash.kind == .integer {
            // Integer ids: a loop of its own, with its state in registers (see `enterIntegers`).
            let ids = a as! ItemIDs<Int>
            _ = ids.forEachSection { start, section in
                enterIntegers(section, at: start, of: ids, duplicates: &duplicates)
                return true
            }
            aHasRepeats = !duplicates.isEmpty
            return duplicates
        }
        @inline(__always) func enter(_ p: Int, _ ids: UnsafeBufferPointer<ID>, _ i: Int, _ hash: Int, _ slots: Slots) {
            let found = slots.probe(hash) { a[$0] == ids[i] }
            if found >= 0 { duplicates.append(p) } else { insert(p, hash: hash, at: -1 - found, in: slots) }
        }
        // Other ids (strings) are hashed a block at a time: pipelined as integer ids are, they
        // were no faster (their bytes, loaded while hashing, set the pace).
        let complete = forEachHashed(a, enter)
        aHasRepeats = !duplicates.isEmpty
        return complete ? duplicates : nil
    }

    /// Enters A's integer ids `ids`, the section whose first id is at flat position `start`, under
    /// the integer hash; appends to `duplicates` the positions whose id an earlier one has.
    ///
    /// The same probe and insert as the generic loop of ``enter(_:)``, with two differences:
    /// - Each id is hashed and its slot prefetched ``pipelineDistance`` ids before it is entered,
    ///   a steady distance, rather than a block at once, so that the loop does not wait for a
    ///   block's slots when the table is larger than the cache.
    /// - Every value the loop uses is a local, with one induction variable, so that the loop keeps
    ///   them in registers (the generic loop, specialised for `Int`, reloads them from memory for
    ///   each id); the loop itself (``enterRun(from:to:ids:ring:slots:mask:tagMask:seed:)``)
    ///   leaves comparing ids and listing repeats to this function. The probe is written out
    ///   rather than ``Slots/probe(_:_:)`` called, which would test its result a second time.
    ///   `Scripts/instruction-counts.sh` measures the difference these make.
    private func enterIntegers(_ ids: UnsafeBufferPointer<Int>, at start: Int, of a: ItemIDs<Int>, duplicates: inout [Int]) {
        guard let first = ids.baseAddress else { return }
        let (slots, mask, tagMask, seed) = (storage, mask, ~indexMask, hash.seed)
        let distance = Self.pipelineDistance
        // Entries, not positions: the entry of the id at `id[e]` is its flat position + 1.
        let (id, end) = (first - (start &+ 1), start &+ 1 &+ ids.count)
        let repeatsBefore = duplicates.count
        withUnsafeTemporaryAllocation(of: Int.self, capacity: distance) { ring in
            guard let ring = ring.baseAddress else { return }
            for e in (start &+ 1)..<min(start &+ 1 &+ distance, end) {
                let hash = IDHash.mix(UInt64(bitPattern: Int64(id[e])), seed: seed)
                ring[e & (distance &- 1)] = hash
                catalog_prefetch(slots + (hash & mask))
            }
            var e = start &+ 1
            while e < end {
                let stop = Self.enterRun(from: e, to: end, ids: id, ring: ring, slots: slots, mask: mask, tagMask: tagMask, seed: seed)
                e = stop.entry
                guard e < end else { break }
                // A slot with the id's tag: the same id (a repeat) or another, past which probing
                // goes on. (The ring's place for this id holds a later one's hash by now.)
                let hash = IDHash.mix(UInt64(bitPattern: Int64(id[e])), seed: seed)
                let tag = UInt32(truncatingIfNeeded: hash >> 32) & tagMask
                var met: Int? = stop.slot
                while let slot = met {
                    if a[Int(slots[slot] & ~tagMask) &- 1] == id[e] {
                        duplicates.append(e &- 1)
                        break
                    }
                    met = Self.place(e, tag: tag, from: (slot &+ 1) & mask, slots: slots, mask: mask, tagMask: tagMask)
                }
                e &+= 1
            }
        }
        // Every id was entered but the repeated ones.
        entries &+= ids.count &- (duplicates.count &- repeatsBefore)
    }

    /// The loop of ``enterIntegers(_:at:of:duplicates:)``: enters entries `start..<end` whose
    /// slots hold no entry with the same tag, each id hashed ``pipelineDistance`` entries ahead
    /// into `ring` (whose hashes for the first `distance` entries from `start` are in place). Stops at the
    /// first entry that meets a slot with its tag, returning the entry and that slot, for the
    /// caller to compare ids and probe on; `(end, 0)` when every entry went in.
    ///
    /// It calls nothing and is not inlined, so its values stay in registers: with the repeat's
    /// comparison and append in the loop (an `ItemIDs` lookup and an array append, both calls),
    /// the loop would keep its bounds and the ids' address on the stack.
    @inline(never)
    private static func enterRun(from start: Int, to end: Int, ids id: UnsafePointer<Int>, ring: UnsafeMutablePointer<Int>,
                                 slots: UnsafeMutablePointer<UInt32>, mask: Int, tagMask: UInt32,
                                 seed: UInt64) -> (entry: Int, slot: Int) {
        let distance = pipelineDistance
        @inline(__always) func place(_ e: Int, _ hash: Int) -> Int? {
            Self.place(e, tag: UInt32(truncatingIfNeeded: hash >> 32) & tagMask, from: hash & mask,
                       slots: slots, mask: mask, tagMask: tagMask)
        }
        var e = start
        // While an id `distance` ahead remains, hash it before placing this one.
        while e < end &- distance {
            // Read before the id `distance` ahead takes its place in the ring.
            let hash = ring[e & (distance &- 1)]
            let ahead = IDHash.mix(UInt64(bitPattern: Int64(id[e &+ distance])), seed: seed)
            ring[e & (distance &- 1)] = ahead
            catalog_prefetch(slots + (ahead & mask))
            if let slot = place(e, hash) { return (e, slot) }
            e &+= 1
        }
        while e < end {
            if let slot = place(e, ring[e & (distance &- 1)]) { return (e, slot) }
            e &+= 1
        }
        return (end, 0)
    }

    /// The probe of ``enterIntegers(_:at:of:duplicates:)``: puts entry `e`, whose tag is `tag`,
    /// in the first free slot from `slot` on — or returns, entering nothing, the first slot on
    /// the way whose entry has the same tag, for the caller to compare the ids.
    @inline(__always)
    private static func place(_ e: Int, tag: UInt32, from slot: Int, slots: UnsafeMutablePointer<UInt32>, mask: Int,
                              tagMask: UInt32) -> Int? {
        var slot = slot
        while true {
            let entry = slots[slot]
            if entry == 0 {
                slots[slot] = tag | UInt32(truncatingIfNeeded: e)
                return nil
            }
            if entry & tagMask == tag { return slot }
            slot = (slot &+ 1) & mask
        }
    }

    /// Looks up every id of `b` among A's entries: `results.matched(q, p)` for an id A has at `p`,
    /// `results.unmatched(q, earlier)` for one it does not — entered, so that a later repeat finds
    /// it: `earlier` is the B position of that first occurrence, or −1. False when the hash gave up.
    ///
    /// With `expectingOrder` (ignored when A repeats an id), each id is first compared with the
    /// few A ids after the last one matched: B is usually A with some ids deleted, inserted or
    /// moved, so most ids are found where A has them without hashing or probing. Only ids not
    /// found there are hashed and probed — most of them later, a block at a time with their slots
    /// prefetched, so some matches are reported after later ones. The answers are the same either way.
    @inline(__always)
    func lookUp<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>, expectingOrder: Bool = false,
                                                      into results: inout Results) -> Bool {
        if expectingOrder && denseBase == nil && !aHasRepeats {
            return lookUpExpectingOrder(b, in: a, into: &results)
        }
        if let base = denseBase {
            let (slots, aCount) = (storage, self.aCount)
            forEachDenseSlot(b, base: base) { q, slot in
                let entry = Int(slots[slot])
                if entry == 0 {
                    slots[slot] = UInt32(truncatingIfNeeded: aCount &+ q &+ 1)
                    results.unmatched(q, -1)
                } else if entry <= aCount {
                    results.matched(q, entry &- 1)
                } else {
                    results.unmatched(q, entry &- 1 &- aCount)
                }
            }
            return true
        }
        return forEachHashed(b, grow: { grow(a, b) }) { q, ids, i, hash, slots in
            let p = probeForB(q, ids, i, hash: hash, slots: slots, in: a, b, into: &results)
            if p >= 0 { results.matched(q, p) }
        }
    }

    /// Probes for B's id `ids[i]` (flat position `q`): its A position, or −1 when A does not have
    /// it — then it is reported to `unmatched` and, the first time, entered. A match is left to
    /// the caller to report.
    @inline(__always)
    private func probeForB<ID: Hashable, Results: LookUpResults>(_ q: Int, _ ids: UnsafeBufferPointer<ID>, _ i: Int, hash: Int,
                                                                 slots: Slots, in a: ItemIDs<ID>, _ b: ItemIDs<ID>,
                                                                 into results: inout Results) -> Int {
        let found = slots.probe(hash) { $0 < aCount ? a[$0] == ids[i] : b[$0 - aCount] == ids[i] }
        if found < 0 {
            insert(aCount + q, hash: hash, at: -1 - found, in: slots)
            results.unmatched(q, -1)
            return -1
        } else if found >= aCount {
            results.unmatched(q, found - aCount)
            return -1
        }
        return found
    }

    /// How many A ids from the one after the last match an id of B is compared with before it is
    /// hashed (``walkInOrder`` compares the first three: that one and the next two).
    static let lookahead = 3
    /// Ids of B not found where expected add ``missPenalty`` strikes, ids found take one away;
    /// past ``strikeLimit`` (more than a third not found where expected for a while: B is not in
    /// A's order there, shuffled or reversed) up to ``unorderedStretch`` ids are hashed a block
    /// ahead and probed for as without expecting order, with no comparisons first and their
    /// slots prefetched — until ``backInOrder`` in a row are found each after the one before.
    static let missPenalty = 2
    static let strikeLimit = 32
    static let unorderedStretch = 512
    static let backInOrder = 8

    /// ``lookUp(_:in:expectingOrder:into:)`` comparing each id with the A ids expected next
    /// first. An id not there whose next id is (inserted or moved in: the usual miss) is probed
    /// for later, with the others of its section, a block at a time with their slots prefetched:
    /// a probe for it would not change where the walk goes on, and probed at once it waited for
    /// its slot from memory (half the lookup's time at a million ids). Any other id that must be
    /// probed for is probed at once, since the next comparison depends on where it was found —
    /// after the deferred ones, so that ids are entered in B's order; where most are (see
    /// ``strikeLimit``), a stretch of ids is probed for without comparisons, each id's slot
    /// prefetched ``blockSize`` ids ahead.
    @inline(__always)
    private func lookUpExpectingOrder<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>,
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
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.blockSize) { ahead in
            b.forEachSection { base, bIDs in
                var i = 0
                var stretchEnd = 0  // ids before it (from i on) are probed for without comparisons
                var inOrder = 0  // ids probed for in the stretch, each found after the one before
                /// Hashes the id `blockSize` after `k` when it is in the stretch, and prefetches its slot.
                func hashAhead(_ k: Int) -> Bool {
                    let k = k &+ Self.blockSize
                    guard k < stretchEnd else { return true }
                    guard let hash = hash(bIDs[k]) else { return false }
                    ahead[k & (Self.blockSize &- 1)] = hash
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
                        // The walk stopped here: this id is not among the next ``lookahead`` ids of A.
                        let end = min(next &+ Self.lookahead, sectionEnd)  // below `next` when A has no ids left
                        if let found = Self.nextExpected(after: i, in: bIDs, where: ids, at: sectionStart, from: next, to: end) {
                            // An id soon after it is where A has it: the ones before were
                            // inserted or moved here (the common case), which a probe tells
                            // without changing where the walk goes on. Probed for later, with others.
                            for k in i..<found { deferred.append(k) }
                            i = found
                            continue
                        }
                        strikes &+= Self.missPenalty
                        if strikes > Self.strikeLimit {
                            // Not in A's order here: a stretch without comparisons.
                            (stretchEnd, strikes, inOrder) = (min(i &+ Self.unorderedStretch, bIDs.count), 0, 0)
                            for k in i..<min(i &+ Self.blockSize, stretchEnd) where !hashAhead(k &- Self.blockSize) { return false }
                        }
                    }
                    // Hashed and probed for: in a stretch, hashed ahead; else now (rarely, so the
                    // hash's kind is decided for each id here).
                    guard deferred.isEmpty || probe(&deferred, of: bIDs, at: base, in: a, b, into: &results)
                    else { return false }
                    let hash: Int
                    if i < stretchEnd {
                        hash = ahead[i & (Self.blockSize &- 1)]
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
                        if inOrder == Self.backInOrder { stretchEnd = i &+ 1 }
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
    private func probe<ID: Hashable, Results: LookUpResults>(_ indices: inout DeferredIndices, of section: UnsafeBufferPointer<ID>,
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
    private static func walkInOrder<ID: Hashable, Results: LookUpResults>(
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

    /// How many ids after an id not found where expected are looked for where A has them, before
    /// it is probed for at once.
    static let arrivalsAhead = 3

    /// The first of the (up to ``arrivalsAhead``) ids after `bIDs[i]` that is among A's ids from
    /// `start` up to `end` (in the A section `ids`, which starts at position `sectionStart`), or
    /// nil when none is.
    @inline(__always)
    private static func nextExpected<ID: Hashable>(after i: Int, in bIDs: UnsafeBufferPointer<ID>, where ids: [ID],
                                                   at sectionStart: Int, from start: Int, to end: Int) -> Int? {
        for k in (i &+ 1)..<min(i &+ 1 &+ arrivalsAhead, bIDs.count)
        where position(of: bIDs[k], in: ids, at: sectionStart, from: start, to: end) < end {
            return k
        }
        return nil
    }

    /// The first A position from `start` up to `end` whose id is `id`, in the A section `ids`
    /// that starts at position `sectionStart`; `end` or more when there is none.
    @inline(__always)
    private static func position<ID: Hashable>(of id: ID, in ids: [ID], at sectionStart: Int, from start: Int, to end: Int) -> Int {
        var p = start
        while p < end && ids[p &- sectionStart] != id { p &+= 1 }
        return p
    }

    /// The A position of `id`, or −1. `id` must be hashable by this table's hash.
    func position<ID: Hashable>(of id: ID, in a: ItemIDs<ID>, _ b: ItemIDs<ID>) -> Int {
        if let base = denseBase {
            let (slot, overflow) = (id as! Int).subtractingReportingOverflow(base)
            guard !overflow, slot >= 0, slot <= mask else { return -1 }
            let entry = Int(storage[slot])
            return entry >= 1 && entry <= aCount ? entry - 1 : -1
        }
        guard let hash = hash(id) else { return -1 }
        let found = slots.probe(hash) { $0 < aCount ? a[$0] == id : b[$0 - aCount] == id }
        // Not found is −1 − a free slot; found beyond A is an id only B has.
        return found >= 0 && found < aCount ? found : -1
    }

    /// Calls `body(position, section, index, hash, slots)` for every id (`section[index]`) in
    /// order, hashing a block ahead and prefetching its slots first; `grow` runs between blocks
    /// when the next block could overfill the table. The body reads the id only if a probe needs
    /// it: handing every id over cost a retain and a release per string id.
    @inline(__always)
    private func forEachHashed<ID: Hashable>(_ ids: ItemIDs<ID>, grow: () -> Void = {},
                                             _ body: (_ position: Int, _ section: UnsafeBufferPointer<ID>, _ index: Int,
                                                      _ hash: Int, _ slots: Slots) -> Void) -> Bool {
        ids.forEachSection { base, section in
            forEachHashed(section.indices, of: section, grow: grow) { i, hash, slots in body(base &+ i, section, i, hash, slots) }
        }
    }

    /// How many ids ahead of the one being entered ``enterIntegers(_:at:of:duplicates:)`` hashes
    /// and prefetches. A power of two (the hashes ahead wait in a ring indexed by a mask).
    static let pipelineDistance = 16

    /// ``forEachHashed(_:grow:_:)`` for the ids at `indices` of one section (a range of them, or a
    /// list): `body(index, hash, slots)`, in the order of `indices`.
    @inline(__always)
    private func forEachHashed<ID: Hashable, Indices: RandomAccessCollection<Int>>(
        _ indices: Indices, of section: UnsafeBufferPointer<ID>, grow: () -> Void,
        _ body: (_ index: Int, _ hash: Int, _ slots: Slots) -> Void
    ) -> Bool where Indices.Index == Int {
        hash.withFunction(for: ID.self) { hashOf in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: Self.blockSize) { hashes in
                var start = indices.startIndex
                while start < indices.endIndex {
                    if (entries + Self.blockSize) * 3 > (mask + 1) * 2 { grow() }
                    let end = min(start + Self.blockSize, indices.endIndex)
                    let slots = self.slots
                    for k in start..<end {
                        guard let hash = hashOf(section[indices[k]]) else { return false }
                        hashes[k &- start] = hash
                        catalog_prefetch(slots.base + (hash & slots.mask))
                    }
                    for k in start..<end { body(indices[k], hashes[k &- start], slots) }
                    start = end
                }
                return true
            }
        }
    }

    /// The slots and how to read them, copied out of the table for a loop: read through `self`,
    /// they were loaded again on every probe (as far as the compiler knows, a store into a slot
    /// might change them).
    struct Slots {
        let base: UnsafeMutablePointer<UInt32>
        let mask: Int
        let indexMask: UInt32

        /// The entry whose id `isMatch` accepts among those with this hash, or −1 − the free slot
        /// where it would go.
        @inline(__always)
        func probe(_ hash: Int, _ isMatch: (Int) -> Bool) -> Int {
            let tag = UInt32(truncatingIfNeeded: hash >> 32) & ~indexMask
            var slot = hash & mask
            while true {
                let entry = base[slot]
                if entry == 0 { return -1 &- slot }
                if entry & ~indexMask == tag {
                    let index = Int(entry & indexMask) &- 1
                    if isMatch(index) { return index }
                }
                slot = (slot &+ 1) & mask
            }
        }
    }

    /// The slots as they are now (a hash table's: they change when it grows).
    private var slots: Slots { Slots(base: storage, mask: mask, indexMask: indexMask) }

    @inline(__always)
    private func insert(_ index: Int, hash: Int, at slot: Int, in slots: Slots) {
        slots.base[slot] = UInt32(truncatingIfNeeded: hash >> 32) & ~indexMask | UInt32(truncatingIfNeeded: index &+ 1)
        entries &+= 1
    }

    /// Doubles the table and re-enters every entry (hashing its id again: the hash succeeded on
    /// it once, so it does again).
    private func grow<ID: Hashable>(_ a: ItemIDs<ID>, _ b: ItemIDs<ID>) {
        let (old, oldStorage) = (storage, storageCapacity)
        let oldCapacity = mask + 1
        storage = .allocate(capacity: oldCapacity * 2)
        storageCapacity = oldCapacity * 2
        storage.initialize(repeating: 0, count: oldCapacity * 2)
        mask = oldCapacity * 2 - 1
        for slot in 0..<oldCapacity where old[slot] != 0 {
            let index = Int(old[slot] & indexMask) - 1
            let rehash = hash(index < aCount ? a[index] : b[index - aCount])!
            var target = rehash & mask
            while storage[target] != 0 { target = (target + 1) & mask }
            storage[target] = old[slot]
        }
        if let workspace { workspace.giveBack(old, capacity: oldStorage) } else { old.deallocate() }
    }
}

