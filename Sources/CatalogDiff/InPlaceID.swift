import CatalogModel

/// A string id copied bit for bit out of the item that holds it, without a retain: what the
/// catalogue-level diff's shapes hold instead of `String`s.
///
/// A shape of `String`s costs a retain of each id as it is built and a release as it goes: a sixth
/// of the whole call's instructions on 100k items. These bits are a `String` owned
/// by the catalogue they were read from: they are only valid while that catalogue lives, so they
/// never leave the call that read them (``Changeset/init(from:to:workspace:)``, which holds both
/// catalogues). Comparing and hashing read them as that `String`, borrowed, so the answers are
/// `String`'s own: equal bits are the same string, and strings with different bits are compared
/// as strings (canonical equivalence included).
struct InPlaceID: Hashable, @unchecked Sendable, CustomStringConvertible {
    private let word0: UInt64
    private let word1: UInt64

    /// The id of the item at `item`, which must outlive every use of the result. A `String` is
    /// 16 bytes on 64-bit platforms and 12 on 32-bit ones; the bytes past it stay zero.
    @inline(__always)
    init(idOf item: UnsafePointer<Item>) {
        let raw = UnsafeRawPointer(item) + Self.idOffset
        if MemoryLayout<String>.size == 16 {
            (word0, word1) = (raw.load(as: UInt64.self), raw.load(fromByteOffset: 8, as: UInt64.self))
        } else {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: MemoryLayout<String>.size)) }
            (word0, word1) = words
        }
    }

    private static let idOffset = MemoryLayout<Item>.offset(of: \.id)!

    /// Calls `body` with the id as the `String` it was read from, borrowed in place.
    @inline(__always)
    func withString<R>(_ body: (borrowing String) -> R) -> R {
        withUnsafePointer(to: self) { bits in
            UnsafeRawPointer(bits).withMemoryRebound(to: String.self, capacity: 1) { body($0.pointee) }
        }
    }

    @inline(__always)
    static func == (x: InPlaceID, y: InPlaceID) -> Bool {
        if x.word0 == y.word0 && x.word1 == y.word1 { return true }
        return x.withString { x in y.withString { y in x == y } }
    }

    func hash(into hasher: inout Hasher) {
        withString { $0.hash(into: &hasher) }
    }

    var description: String { withString { String(copy $0) } }
}

extension Catalog {
    /// The shapes of `a` and `b` with ids read in place (see ``InPlaceID``), for `body` only: both
    /// catalogues, which own the strings, are held for the call. (``shape`` reads `String`s the
    /// same way; this loop is its own so that the id's two words are loaded inline.)
    static func withInPlaceShapes<R, E: Error>(
        _ a: Catalog, _ b: Catalog, _ body: (SnapshotShape<String, InPlaceID>, SnapshotShape<String, InPlaceID>) throws(E) -> R
    ) throws(E) -> R {
        func shape(_ catalog: Catalog) -> SnapshotShape<String, InPlaceID> {
            SnapshotShape(sections: catalog.sections.map(\.id), items: catalog.sections.map { section in
                section.items.withUnsafeBufferPointer { items in
                    Array(unsafeUninitializedCapacity: items.count) { ids, count in
                        for i in items.indices { (ids.baseAddress! + i).initialize(to: InPlaceID(idOf: items.baseAddress! + i)) }
                        count = items.count
                    }
                }
            })
        }
        return try body(shape(a), shape(b))
    }
}
