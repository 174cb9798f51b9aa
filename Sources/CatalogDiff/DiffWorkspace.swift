/// Scratch memory that one diff after another reuses.
///
/// A diff of 100k items needs about 3 MiB of scratch space: the id table, the position maps, the
/// longest-increasing-subsequence buffers. Fresh memory of that size comes straight from the
/// system, which maps it page by page on first touch; measured on the benchmark machine, that
/// cost as much as the diff itself when the allocator had just handed its memory back. A diff
/// given a workspace uses its memory, which stays mapped from one diff to the next: only the
/// first diff (or a larger one) pays for it. A diff given none borrows one of a few shared
/// workspaces (see ``releaseShared()``), so callers get the same without keeping one.
///
/// A workspace serves one diff at a time (it is not `Sendable`); its results never depend on it
/// (tested). It holds the memory of the largest diff it served until ``release()`` or its end.
public final class DiffWorkspace {
    /// The id table's slots and how many there are (nil while a table has them, or before the
    /// first diff).
    private var slots: UnsafeMutablePointer<UInt32>?
    private var slotCapacity = 0
    // Arrays taken by a diff while it runs and given back when it ends (emptied, capacity kept).
    var aToB: [Int32] = []
    var bToA: [Int32] = []
    var aSectionOf: [Int32] = []
    var bSectionOf: [Int32] = []
    var stayTo: [Int32] = []
    var stayFrom: [Int32] = []
    var moved: [Bool] = []
    var deferred: [Int32] = []
    var subsequence = LongestIncreasingSubsequence()

    public init() {}

    deinit { slots?.deallocate() }

    /// The bytes of scratch memory held between diffs.
    public var retainedBytes: Int {
        slotCapacity * MemoryLayout<UInt32>.stride
            + (aToB.capacity + bToA.capacity + aSectionOf.capacity + bSectionOf.capacity + stayTo.capacity
               + stayFrom.capacity + deferred.capacity)
            * MemoryLayout<Int32>.stride
            + moved.capacity + subsequence.retainedBytes
    }

    /// Frees the scratch memory (the next diff allocates it again).
    public func release() {
        slots?.deallocate()
        (slots, slotCapacity) = (nil, 0)
        (aToB, bToA, aSectionOf, bSectionOf, stayTo, stayFrom, moved, deferred) = ([], [], [], [], [], [], [], [])
        subsequence = LongestIncreasingSubsequence()
    }

    /// Slots for a table of at least `count`, with how many there are; nil when the workspace
    /// has none that large (the table allocates its own and gives them back at its end).
    func takeSlots(count: Int) -> (UnsafeMutablePointer<UInt32>, capacity: Int)? {
        guard let slots, slotCapacity >= count else { return nil }
        let taken = (slots, capacity: slotCapacity)
        (self.slots, slotCapacity) = (nil, 0)
        return taken
    }

    /// Slots a table is done with: kept if they are the largest seen, else freed.
    func giveBack(_ returned: UnsafeMutablePointer<UInt32>, capacity: Int) {
        if capacity > slotCapacity {
            slots?.deallocate()
            (slots, slotCapacity) = (returned, capacity)
        } else {
            returned.deallocate()
        }
    }

    /// Takes the array at `keyPath` out of the workspace, holding `count` copies of `value`, in
    /// the memory of the last diff when it is large enough. Give it back with ``keep(_:at:)``.
    func take<T: BitwiseCopyable>(_ keyPath: ReferenceWritableKeyPath<DiffWorkspace, [T]>, count: Int, repeating value: T) -> [T] {
        var array = self[keyPath: keyPath]
        self[keyPath: keyPath] = []
        array.refill(count: count, with: value)
        return array
    }

    /// Takes the array at `keyPath` out of the workspace with `count` elements whose values are
    /// left unspecified (the last diff's, or `filler`): scratch space the diff writes before it
    /// reads. Give it back with ``keep(_:at:)``.
    func takeScratch<T: BitwiseCopyable>(_ keyPath: ReferenceWritableKeyPath<DiffWorkspace, [T]>, count: Int, filler: T) -> [T] {
        var array = self[keyPath: keyPath]
        self[keyPath: keyPath] = []
        array.resize(to: count, filler: filler)
        return array
    }

    /// Gives an array back to the workspace, unless it already holds a larger one.
    func keep<T>(_ array: [T], at keyPath: ReferenceWritableKeyPath<DiffWorkspace, [T]>) {
        if array.capacity > self[keyPath: keyPath].capacity { self[keyPath: keyPath] = array }
    }
}
