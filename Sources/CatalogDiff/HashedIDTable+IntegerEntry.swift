import CCatalogSupport

// Entering A's integer ids (`Int` ids under the integer hash): the same probe and insert as
// ``IDTable/enter(_:)``, in a loop written for `Int` so that its values stay in registers.
extension HashedIDTable {
    /// Enters A's integer ids `ids`, the section whose first id is at flat position `start`, under
    /// the integer hash; appends to `duplicates` the positions whose id an earlier one has.
    ///
    /// The same probe and insert as the generic loop of ``enter(_:)``, with two differences:
    /// - Each id is hashed and its slot prefetched ``IDTable/pipelineDistance`` ids before it is entered,
    ///   a steady distance, rather than a block at once, so that the loop does not wait for a
    ///   block's slots when the table is larger than the cache.
    /// - Every value the loop uses is a local, with one induction variable, so that the loop keeps
    ///   them in registers (the generic loop, specialised for `Int`, reloads them from memory for
    ///   each id); the loop itself (``enterRun(from:to:ids:ring:slots:mask:tagMask:seed:)``)
    ///   leaves comparing ids and listing repeats to this function. The probe is written out
    ///   rather than ``Slots/probe(_:_:)`` called, which would test its result a second time.
    ///   `Scripts/instruction-counts.sh` measures the difference these make.
    func enterIntegers(_ ids: UnsafeBufferPointer<Int>, at start: Int, of a: ItemIDs<Int>, duplicates: inout [Int]) {
        guard let first = ids.baseAddress else { return }
        let (slots, mask, tagMask, seed) = (storage, mask, ~indexMask, hash.seed)
        let distance = IDTable.pipelineDistance
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
    /// slots hold no entry with the same tag, each id hashed ``IDTable/pipelineDistance`` entries ahead
    /// into `ring` (whose hashes for the first `distance` entries from `start` are in place). Stops at the
    /// first entry that meets a slot with its tag, returning the entry and that slot, for the
    /// caller to compare ids and probe on; `(end, 0)` when every entry went in.
    ///
    /// It calls nothing and is not inlined, so its values stay in registers: with the repeat's
    /// comparison and append in the loop (an `ItemIDs` lookup and an array append, both calls),
    /// the loop would keep its bounds and the ids' address on the stack.
    @inline(never)
    static func enterRun(from start: Int, to end: Int, ids id: UnsafePointer<Int>, ring: UnsafeMutablePointer<Int>,
                         slots: UnsafeMutablePointer<UInt32>, mask: Int, tagMask: UInt32,
                         seed: UInt64) -> (entry: Int, slot: Int) {
        let distance = IDTable.pipelineDistance
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
    static func place(_ e: Int, tag: UInt32, from slot: Int, slots: UnsafeMutablePointer<UInt32>, mask: Int,
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
}
