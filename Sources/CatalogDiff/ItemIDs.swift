/// The item ids of one snapshot, addressed by a flat position across its sections, without
/// copying them: position `p` is item `p − starts[s]` of section `s`.
///
/// Copying the ids into one array cost a retain and a release per string id — as much as
/// hashing it — so the diff keeps the snapshot's own arrays and this index over them. The
/// section of a position is found by a binary search over the section starts, unless
/// ``indexSections(storage:)`` has stored it for every position: a hash table reads ids by
/// position on every probe and needs that, a dense table (integer ids) reads few and does not —
/// and each array the diff fills is memory it must write.
struct ItemIDs<ID: Hashable> {
    let sections: [[ID]]
    /// Where each section starts, and the total count last.
    let starts: [Int]
    /// The section of each position; empty when there is one section or none was indexed.
    private(set) var sectionOf: [Int32] = []

    /// The ids of `sections`.
    init(_ sections: [[ID]]) {
        self.sections = sections
        var starts = [0]
        starts.reserveCapacity(sections.count + 1)
        for (s, section) in sections.enumerated() { starts.append(starts[s] + section.count) }
        self.starts = starts
    }

    /// Stores the section of every position (when there are several sections), in `storage`'s
    /// memory (a ``DiffWorkspace``'s, from an earlier diff), whose contents are overwritten.
    mutating func indexSections(storage: consuming [Int32] = []) {
        guard sections.count > 1 else { return }
        var sectionOf = storage
        // Filled a section at a time through a pointer: appending copies of each section's index
        // went through the generic append, element by element (2% of a diff in 100 sections).
        sectionOf.resize(to: count, filler: 0)
        sectionOf.withUnsafeMutableBufferPointer { sectionOf in
            for s in sections.indices {
                UnsafeMutableBufferPointer(rebasing: sectionOf[starts[s]..<starts[s + 1]]).update(repeating: Int32(s))
            }
        }
        self.sectionOf = sectionOf
    }

    var count: Int { starts[starts.count - 1] }

    @inline(__always)
    subscript(position: Int) -> ID {
        let s = section(of: position)
        return sections[s][position - starts[s]]
    }

    @inline(__always)
    func section(of position: Int) -> Int {
        if !sectionOf.isEmpty { return Int(sectionOf[position]) }
        if starts.count <= 2 { return 0 }
        // The last section that starts at or before `position` (empty sections start where the
        // next one does).
        var (low, high) = (0, starts.count - 2)
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
