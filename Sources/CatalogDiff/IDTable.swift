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
    var storage: UnsafeMutablePointer<UInt32>
    /// How many slots `storage` has room for: `mask + 1` or more (a workspace's larger slots).
    var storageCapacity: Int
    let workspace: DiffWorkspace?
    /// The slot count − 1: a power of two − 1 for a hash table (slot = hash & mask), the span of
    /// the ids − 1 for a dense one.
    var mask: Int
    /// Occupied slots of a hash table (when to grow).
    var entries = 0
    /// Whether ``enter(_:)`` found an id repeated in A: looking B's ids up in A's order then
    /// might match one occurrence where the table has the other, so it is not done.
    var aHasRepeats = false
    /// The slot bits that hold an entry index + 1; the others hold the tag.
    let indexMask: UInt32
    let hash: IDHash
    let aCount: Int
    /// The smallest id of a dense table (slot = id − base); nil for a hash table.
    let denseBase: Int?

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

    /// Calls `body(start, ids)` with each section of integer ids (`ID` must be `Int`) and the flat
    /// position of its first id, until `body` returns false; returns whether it never did.
    @inline(__always)
    @discardableResult
    static func forEachIntegerSection<ID: Hashable>(_ ids: ItemIDs<ID>,
                                                    _ body: (_ start: Int, _ ids: UnsafeBufferPointer<Int>) -> Bool) -> Bool {
        ids.forEachSection { start, section in
            section.withMemoryRebound(to: Int.self) { body(start, $0) }
        }
    }

    /// The smallest and largest of `ids` (Int.max and Int.min when there are none), in locals
    /// the compiler can keep in vector registers.
    static func span(of ids: UnsafeBufferPointer<Int>) -> (low: Int, high: Int) {
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
        if let base = denseBase { return enterDense(a, base: base) }
        var duplicates: [Int] = []
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
            lookUpDense(b, base: base, into: &results)
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
    func probeForB<ID: Hashable, Results: LookUpResults>(_ q: Int, _ ids: UnsafeBufferPointer<ID>, _ i: Int, hash: Int,
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

    /// The A position of `id`, or −1. `id` must be hashable by this table's hash.
    func position<ID: Hashable>(of id: ID, in a: ItemIDs<ID>, _ b: ItemIDs<ID>) -> Int {
        if let base = denseBase { return densePosition(of: id as! Int, base: base) }
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
    func forEachHashed<ID: Hashable>(_ ids: ItemIDs<ID>, grow: () -> Void = {},
                                     _ body: (_ position: Int, _ section: UnsafeBufferPointer<ID>, _ index: Int,
                                                      _ hash: Int, _ slots: Slots) -> Void) -> Bool {
        ids.forEachSection { base, section in
            forEachHashed(section.indices, of: section, grow: grow) { i, hash, slots in body(base &+ i, section, i, hash, slots) }
        }
    }

    /// ``forEachHashed(_:grow:_:)`` for the ids at `indices` of one section (a range of them, or a
    /// list): `body(index, hash, slots)`, in the order of `indices`.
    @inline(__always)
    func forEachHashed<ID: Hashable, Indices: RandomAccessCollection<Int>>(
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
    var slots: Slots { Slots(base: storage, mask: mask, indexMask: indexMask) }

    @inline(__always)
    func insert(_ index: Int, hash: Int, at slot: Int, in slots: Slots) {
        slots.base[slot] = UInt32(truncatingIfNeeded: hash >> 32) & ~indexMask | UInt32(truncatingIfNeeded: index &+ 1)
        entries &+= 1
    }

    /// Doubles the table and re-enters every entry (hashing its id again: the hash succeeded on
    /// it once, so it does again).
    func grow<ID: Hashable>(_ a: ItemIDs<ID>, _ b: ItemIDs<ID>) {
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

