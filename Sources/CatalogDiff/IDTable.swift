/// An open-addressing hash table from ids to their positions in a flat array of ids.
///
/// It stores no keys, only 64-bit slots — a 32-bit hash tag and the position + 1 — so a lookup
/// touches one small array and compares ids only when the tags agree. With a load factor of at
/// most 1/2 and linear probing, this replaces a `Dictionary<ID, Position>` (a boxed key and value
/// per entry, resizes while filling) for the diff's id → position maps.
struct IDTable {
    private var slots: [UInt64]
    private let mask: Int
    let hash: IDHash

    /// Builds the table over `ids`; positions whose id an earlier position already has are
    /// returned in `duplicates` (and not entered).
    init<ID: Hashable>(_ ids: UnsafeBufferPointer<ID>, hash: IDHash, duplicates: inout [Int]) {
        self.hash = hash
        var capacity = 8
        while capacity < ids.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        slots = [UInt64](repeating: 0, count: capacity)
        let mask = self.mask
        slots.withUnsafeMutableBufferPointer { slots in
            for position in ids.indices {
                let id = ids[position]
                let hash = hash(id)
                let tag = UInt64(UInt32(truncatingIfNeeded: hash >> 32))
                var slot = hash & mask
                while true {
                    let entry = slots[slot]
                    if entry == 0 {
                        slots[slot] = tag << 32 | UInt64(position + 1)
                        break
                    }
                    if entry >> 32 == tag && ids[Int(entry & 0xFFFF_FFFF) - 1] == id {
                        duplicates.append(position)
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// The position of `id` in `ids` (the array the table was built over), or −1.
    func position<ID: Hashable>(of id: ID, in ids: UnsafeBufferPointer<ID>) -> Int {
        let hash = self.hash(id)
        let tag = UInt64(UInt32(truncatingIfNeeded: hash >> 32))
        var slot = hash & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let entry = slots[slot]
                if entry == 0 { return -1 }
                if entry >> 32 == tag {
                    let position = Int(entry & 0xFFFF_FFFF) - 1
                    if ids[position] == id { return position }
                }
                slot = (slot + 1) & mask
            }
        }
    }
}
