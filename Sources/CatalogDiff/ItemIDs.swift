/// The item ids of one snapshot, addressed by a flat position across its sections, without
/// copying them: position `p` is item `p − starts[s]` of section `s`.
///
/// Copying the ids into one array cost a retain and a release per string id — as much as
/// hashing it — so the diff keeps the snapshot's own arrays and this index over them. The
/// section of a position is found by a binary search over the section starts; after
/// ``indexSections(storage:)`` (a hash table reads ids by position when it compares them), the
/// search starts from the section of every few positions and usually ends at once. A dense table
/// (integer ids) reads few ids by position and does not index: each array the diff fills is
/// memory it must write.
struct ItemIDs<ID: Hashable> {
    let sections: [[ID]]
    /// Where each section starts, and the total count last.
    let starts: [Int]
    /// The section of every `1 << indexShift`-th position (0, 2^shift, 2·2^shift, …); empty
    /// when there is one section or none was indexed.
    private(set) var sectionOf: [Int32] = []
    /// The positions between two indexed ones, as a power of two.
    private(set) var indexShift = 0

    /// The ids of `sections`.
    init(_ sections: [[ID]]) {
        self.sections = sections
        var starts = [0]
        starts.reserveCapacity(sections.count + 1)
        for (s, section) in sections.enumerated() { starts.append(starts[s] + section.count) }
        self.starts = starts
    }

    /// Stores the section of every few positions (when there are several sections), in
    /// `storage`'s memory (a ``DiffWorkspace``'s, from an earlier diff), whose contents are
    /// overwritten: every `2^k`-th position, `2^k` no longer than the average section, so that a
    /// position's section is the one its block starts in or one of the next few. A section per
    /// position would cost 4 bytes an id to write, and each lookup a load from anywhere in it.
    mutating func indexSections(storage: consuming [Int32] = []) {
        guard sections.count > 1 else { return }
        let average = max(1, count / sections.count)
        var shift = 0
        while 2 << shift <= average { shift += 1 }
        let blocks = (count + (1 << shift) - 1) >> shift
        var sectionOf = storage
        sectionOf.resize(to: blocks, filler: 0)
        sectionOf.withUnsafeMutableBufferPointer { sectionOf in
            var s = 0
            for block in 0..<blocks {
                let position = block << shift
                while starts[s + 1] <= position { s += 1 }  // past empty sections too
                sectionOf[block] = Int32(truncatingIfNeeded: s)
            }
        }
        (self.sectionOf, indexShift) = (sectionOf, shift)
    }

    var count: Int { starts[starts.count - 1] }

    @inline(__always)
    subscript(position: Int) -> ID {
        let s = section(of: position)
        return sections[s][position - starts[s]]
    }

    @inline(__always)
    func section(of position: Int) -> Int {
        if starts.count <= 2 { return 0 }
        // The last section that starts at or before `position` (empty sections start where the
        // next one does): from the section of the indexed position at or before it to that of
        // the next indexed position, when there is an index.
        var (low, high) = (0, starts.count - 2)
        if !sectionOf.isEmpty {
            let block = position >> indexShift
            low = Int(sectionOf[block])
            if block + 1 < sectionOf.count { high = Int(sectionOf[block + 1]) }
        }
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The flat positions of section `s`.
    @inline(__always)
    func positions(ofSection s: Int) -> Range<Int> {
        starts[s]..<starts[s + 1]
    }

    /// The item path of a flat position.
    func path(_ position: Int) -> ItemPath {
        let s = section(of: position)
        return ItemPath(section: s, item: position - starts[s])
    }

    /// The ids as buffers, one per section, with the flat position of each one's first id.
    @inline(__always)
    func forEachSection(_ body: (_ start: Int, _ ids: UnsafeBufferPointer<ID>) -> Bool) -> Bool {
        for (s, section) in sections.enumerated() {
            guard section.withUnsafeBufferPointer({ body(starts[s], $0) }) else { return false }
        }
        return true
    }
}
