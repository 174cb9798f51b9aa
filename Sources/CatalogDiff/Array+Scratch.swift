extension Array where Element: BitwiseCopyable {
    /// Makes the array `count` elements long, keeping its memory when it has room: the elements
    /// it had keep their values (unspecified, for scratch space), new ones are `filler`.
    mutating func resize(to count: Int, filler: Element) {
        if self.count > count {
            removeLast(self.count - count)
        } else if self.count < count {
            append(contentsOf: repeatElement(filler, count: count - self.count))
        }
    }

    /// Makes the array `count` copies of `value`, keeping its memory when it has room. Filled
    /// through a pointer (a `memset` for the values the diff uses): appending the copies went
    /// through the generic append, element by element.
    mutating func refill(count: Int, with value: Element) {
        resize(to: count, filler: value)
        withUnsafeMutableBufferPointer { $0.update(repeating: value) }
    }
}
