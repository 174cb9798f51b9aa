import CCatalogSupport

/// An open-addressing hash table from ids to their positions in a flat array of ids.
///
/// It stores no keys, only 64-bit slots — a 32-bit hash tag and the position + 1 — so a lookup
/// touches one small array and compares ids only when the tags agree. The load factor stays at
/// most 2/3 with linear probing. Hashes are computed for a batch first, so that the slot of the
/// id `prefetchDistance` ahead can be prefetched while the current one is probed: on large
/// snapshots the table does not fit in cache and each probe would otherwise wait for memory.
struct IDTable {
    private var slots: [UInt64]
    private let mask: Int
    let hash: IDHash

    static let prefetchDistance = 32

    /// Builds the table over `ids`; positions whose id an earlier position already has are
    /// returned in `duplicates` (and not entered).
    init<ID: Hashable>(_ ids: UnsafeBufferPointer<ID>, hash: IDHash, duplicates: inout [Int]) {
        self.hash = hash
        var capacity = 8
        while capacity * 2 < ids.count * 3 { capacity <<= 1 }
        mask = capacity - 1
        slots = [UInt64](repeating: 0, count: capacity)
        let mask = self.mask
        let hashes = ids.map { hash($0) }
        slots.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress!
            for position in ids.indices {
                let ahead = position + Self.prefetchDistance
                if ahead < hashes.count { catalog_prefetch(base + (hashes[ahead] & mask)) }
                let hash = hashes[position]
                let tag = UInt64(UInt32(truncatingIfNeeded: hash >> 32))
                var slot = hash & mask
                while true {
                    let entry = slots[slot]
                    if entry == 0 {
                        slots[slot] = tag << 32 | UInt64(position + 1)
                        break
                    }
                    if entry >> 32 == tag && ids[Int(entry & 0xFFFF_FFFF) - 1] == ids[position] {
                        duplicates.append(position)
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// The position of every id of `keys` in `ids` (the array the table was built over), or −1.
    func positions<ID: Hashable>(of keys: UnsafeBufferPointer<ID>, in ids: UnsafeBufferPointer<ID>) -> [Int32] {
        let hashes = keys.map { hash($0) }
        let mask = self.mask
        return slots.withUnsafeBufferPointer { slots in
            let base = slots.baseAddress!
            return [Int32](unsafeUninitializedCapacity: keys.count) { result, count in
                for k in keys.indices {
                    let ahead = k + Self.prefetchDistance
                    if ahead < hashes.count { catalog_prefetch(base + (hashes[ahead] & mask)) }
                    result[k] = Int32(Self.probe(slots, mask: mask, hash: hashes[k], key: keys[k], ids: ids))
                }
                count = keys.count
            }
        }
    }

    /// The position of `id` in `ids` (the array the table was built over), or −1.
    func position<ID: Hashable>(of id: ID, in ids: UnsafeBufferPointer<ID>) -> Int {
        slots.withUnsafeBufferPointer { slots in Self.probe(slots, mask: mask, hash: hash(id), key: id, ids: ids) }
    }

    @inline(__always)
    private static func probe<ID: Hashable>(_ slots: UnsafeBufferPointer<UInt64>, mask: Int, hash: Int, key: ID,
                                             ids: UnsafeBufferPointer<ID>) -> Int {
        let tag = UInt64(UInt32(truncatingIfNeeded: hash >> 32))
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return -1 }
            if entry >> 32 == tag {
                let position = Int(entry & 0xFFFF_FFFF) - 1
                if ids[position] == key { return position }
            }
            slot = (slot + 1) & mask
        }
    }
}
