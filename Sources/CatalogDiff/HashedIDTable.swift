import CCatalogSupport

/// The id table for ids that must be hashed: an open-addressing hash table over both snapshots.
///
/// It stores no keys, only 32-bit slots — an entry index + 1 in the low bits, as many bits of
/// the hash as are left above it as a tag — so a probe touches one small array (1 MiB for two
/// snapshots of 100k ids) and compares ids only when the tags agree. Entries are A's positions
/// (index < `aCount`) and the positions of B's ids that A does not have (index − `aCount`), so
/// one table finds every survivor and every id repeated in either snapshot. Linear probing, load
/// factor at most 2/3 (the table doubles when B brings more new ids than it was sized for). Ids
/// are hashed a block at a time and their slots prefetched before the block is probed: on large
/// snapshots the table does not fit in cache and each probe would otherwise wait for memory.
/// B's ids can first be looked for just after the A id matched last (see
/// HashedIDTable+OrderedLookUp.swift): a target mostly in the old order then hashes few of its ids.
///
/// A class because it owns its slots' memory; it never leaves the diff that made it.
final class HashedIDTable: IDMatching {
    /// The slots, of which the table uses `mask + 1`.
    private(set) var memory: SlotMemory
    /// The slot count − 1, a power of two − 1: slot = hash & mask.
    private(set) var mask: Int
    /// Occupied slots (when to grow).
    var entries = 0
    /// Whether ``enter(_:)`` found an id repeated in A: looking B's ids up in A's order then
    /// might match one occurrence where the table has the other, so it is not done.
    private(set) var aHasRepeats = false
    /// The slot bits that hold an entry index + 1; the others hold the tag.
    let indexMask: UInt32
    let hash: IDHash
    let aCount: Int

    /// A table for snapshots of `aCount` and `bCount` ids, sized for the larger (so a diff with
    /// few new ids never grows it), in the workspace's memory when it has enough.
    init(aCount: Int, bCount: Int, hash: IDHash, workspace: DiffWorkspace? = nil) {
        precondition(aCount + bCount < Int(UInt32.max), "a diff handles fewer than 2³² ids")
        var indexMask: UInt32 = 0
        while Int(indexMask) < aCount + bCount + 1 { indexMask = indexMask << 1 | 1 }
        let slotCount = Self.slotCount(aCount: aCount, bCount: bCount)
        memory = SlotMemory(count: slotCount, workspace: workspace)
        mask = slotCount - 1
        self.indexMask = indexMask
        self.hash = hash
        self.aCount = aCount
    }

    /// The slots a table for these snapshot sizes has.
    static func slotCount(aCount: Int, bCount: Int) -> Int {
        var capacity = 16
        while capacity * 2 < max(aCount, bCount) * 3 { capacity <<= 1 }
        return capacity
    }

    /// The first slot.
    var storage: UnsafeMutablePointer<UInt32> { memory.base }

    /// The workspace the slots came from and scratch memory is taken from, if any.
    var workspace: DiffWorkspace? { memory.workspace }

    /// Enters every id of `a` (see ``IDMatching/enter(_:)``): `Int` ids under the integer hash in
    /// a loop of their own (HashedIDTable+IntegerEntry.swift), other ids a block at a time.
    func enter<ID: Hashable>(_ a: ItemIDs<ID>) -> [Int]? {
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

    /// Looks up every id of `b` among A's entries (see ``IDMatching/lookUp(_:in:expectingOrder:into:)``).
    ///
    /// With `expectingOrder` (ignored when A repeats an id), each id is first compared with the
    /// few A ids after the last one matched: B is usually A with some ids deleted, inserted or
    /// moved, so most ids are found where A has them without hashing or probing. Only ids not
    /// found there are hashed and probed — most of them later, a block at a time with their slots
    /// prefetched, so some matches are reported after later ones. The answers are the same either way.
    @inline(__always)
    func lookUp<ID: Hashable, Results: LookUpResults>(_ b: ItemIDs<ID>, in a: ItemIDs<ID>, expectingOrder: Bool = false,
                                                      into results: inout Results) -> Bool {
        if expectingOrder && !aHasRepeats {
            return lookUpExpectingOrder(b, in: a, into: &results)
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
            withUnsafeTemporaryAllocation(of: Int.self, capacity: IDTable.blockSize) { hashes in
                var start = indices.startIndex
                while start < indices.endIndex {
                    if (entries + IDTable.blockSize) * 3 > (mask + 1) * 2 { grow() }
                    let end = min(start + IDTable.blockSize, indices.endIndex)
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
        let oldCapacity = mask + 1
        // From the workspace when it has that much (it has not: it lent this table its slots, or
        // had too few), given back to it when the table is done.
        let grown = SlotMemory(count: oldCapacity * 2, workspace: workspace)
        let (old, new) = (storage, grown.base)
        let mask = oldCapacity * 2 - 1
        for slot in 0..<oldCapacity where old[slot] != 0 {
            let index = Int(old[slot] & indexMask) - 1
            let rehash = hash(index < aCount ? a[index] : b[index - aCount])!
            var target = rehash & mask
            while new[target] != 0 { target = (target + 1) & mask }
            new[target] = old[slot]
        }
        memory = grown  // the old slots go back to the workspace, or are freed
        self.mask = mask
    }
}
