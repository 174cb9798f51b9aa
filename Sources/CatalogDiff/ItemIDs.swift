/// The item ids of one snapshot, addressed by a flat position across its sections, without
/// copying them: position `p` is item `p − starts[s]` of section `s`.
///
/// Copying the ids into one array cost a retain and a release per string id — as much as
/// hashing it — so the diff keeps the snapshot's own arrays and this index over them. The
/// section of each position is stored only when there are several sections (a flat list needs
/// none, and each array the diff allocates is fresh memory the system must map).
struct ItemIDs<ID: Hashable> {
    let sections: [[ID]]
    /// Where each section starts, and the total count last.
    let starts: [Int]
    /// The section of each position; empty when there is one section.
    let sectionOf: [Int32]

    /// The ids of `sections`; `storage` is memory for the section of each position (a
    /// ``DiffWorkspace``'s, from an earlier diff), emptied first.
    init(_ sections: [[ID]], storage: [Int32] = []) {
        self.sections = sections
        var starts = [0]
        starts.reserveCapacity(sections.count + 1)
        var sectionOf = storage
        sectionOf.removeAll(keepingCapacity: true)
        if sections.count > 1 { sectionOf.reserveCapacity(sections.reduce(0) { $0 + $1.count }) }
        for (s, section) in sections.enumerated() {
            if sections.count > 1 { sectionOf.append(contentsOf: repeatElement(Int32(s), count: section.count)) }
            starts.append(starts[s] + section.count)
        }
        self.starts = starts
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
        sectionOf.isEmpty ? 0 : Int(sectionOf[position])
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
