// The storage the flow and waterfall passes write into: the layout's own arrays, kept from one
// prepare to the next so that preparing again writes into the same memory.
extension Layout {
    /// Takes an array out of the layout, emptied but keeping its capacity, so that preparing again
    /// writes into the same memory instead of allocating (and faulting in) new pages.
    static func takeStorage<T>(_ array: inout [T], capacity: Int) -> [T] {
        var taken = array
        array = []
        taken.removeAll(keepingCapacity: true)
        taken.reserveCapacity(capacity)
        return taken
    }

    /// Runs `body` on storage for exactly `count` elements of a trivial type, all of which `body`
    /// must write: the array's own memory when this layout is its only owner and it is large
    /// enough (preparing again), else new memory left uninitialised (no zeroing pass first).
    static func withStorage<T: BitwiseCopyable>(_ array: inout [T], count: Int,
                                                _ body: (UnsafeMutableBufferPointer<T>) -> Void) -> [T] {
        var taken = array
        array = []
        guard taken.capacity >= count, count > 0, !taken.isEmpty else {
            return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                body(buffer)
                initialized = count
            }
        }
        if taken.count > count {
            taken.removeLast(taken.count - count)
        } else if taken.count < count {
            taken.append(contentsOf: repeatElement(taken[0], count: count - taken.count))
        }
        taken.withUnsafeMutableBufferPointer { body($0) }
        return taken
    }

    /// `count` elements of plain data (every bit pattern of which is a value) for a pass to write
    /// before it reads them, their contents unspecified: the array's own memory when this layout
    /// is its only owner and it is large enough, else new memory.
    static func room<T: BitwiseCopyable>(_ array: inout [T], count: Int) -> [T] {
        withStorage(&array, count: count) { _ in }
    }

    /// A copy of `array` with `count` elements, the first `kept` of them from `array` and the rest
    /// unspecified, as in ``room(_:count:)``.
    static func grown<T: BitwiseCopyable>(_ array: [T], keeping kept: Int, count: Int) -> [T] {
        [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            array.withUnsafeBufferPointer { old in
                _ = buffer.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: old[..<kept]))
            }
            initialized = count
        }
    }
}
