/// The zeroed 32-bit slots of an id table, lent by a ``DiffWorkspace`` when it has enough (so that
/// a run of diffs allocates them once) and given back to it, or freed, when the table is done.
///
/// Not copyable, so that exactly one owner gives the memory back, once.
struct SlotMemory: ~Copyable {
    let base: UnsafeMutablePointer<UInt32>
    /// How many slots `base` has room for: at least the count asked for (a workspace's slots may be more).
    let capacity: Int
    /// Where the slots go back to; nil to free them.
    let workspace: DiffWorkspace?

    /// `count` zeroed slots, in the workspace's memory when it has enough.
    init(count: Int, workspace: DiffWorkspace?) {
        if let (borrowed, available) = workspace?.takeSlots(count: count) {
            (base, capacity) = (borrowed, available)
        } else {
            (base, capacity) = (.allocate(capacity: count), count)
        }
        base.initialize(repeating: 0, count: count)
        self.workspace = workspace
    }

    deinit {
        if let workspace { workspace.giveBack(base, capacity: capacity) } else { base.deallocate() }
    }
}
