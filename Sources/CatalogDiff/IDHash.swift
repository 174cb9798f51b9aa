/// The hash function the diff's table uses for one pair of snapshots.
///
/// Swift's `hashValue` is SipHash: flood-resistant but slow for the millions of lookups a large
/// diff makes. Integer ids and ASCII string ids get a seeded multiply-and-shift hash instead
/// (about 2× faster end to end, per the field notes). The seed is random per process, so ids from
/// outside cannot be chosen to collide in advance. The ASCII hash checks its bytes as it reads
/// them and gives up (returns nil) on the first id that is not ASCII: Swift compares strings by
/// canonical equivalence ("K" equals "\u{212A}"), which a hash over raw bytes would break, so the
/// diff then starts again with ``standard``.
struct IDHash {
    enum Kind {
        case standard
        case integer
        case ascii
    }

    let kind: Kind
    /// The seed, read once per diff (a `static let` costs a `swift_once` check per use).
    let seed: UInt64

    static let standard = IDHash(kind: .standard, seed: 0)

    /// Per-process random seed of the fast hashes.
    private static let processSeed: UInt64 = UInt64.random(in: 1...UInt64.max)

    /// The fastest hash for ids of this type: `integer` for `Int`, `ascii` for `String` (which
    /// may give up later), `standard` otherwise.
    static func fastest<ID>(for type: ID.Type) -> IDHash {
        if type == Int.self { return IDHash(kind: .integer, seed: processSeed) }
        if type == String.self || type == InPlaceID.self { return IDHash(kind: .ascii, seed: processSeed) }
        return .standard
    }

    /// Calls `body` with this hash as a function of ids of type `ID`, chosen once: a loop that
    /// calls it is compiled once per kind of hash, without deciding the kind for every id.
    @inline(__always)
    func withFunction<ID: Hashable, R>(for _: ID.Type, _ body: (_ hashOf: (ID) -> Int?) -> R) -> R {
        let seed = self.seed
        switch kind {
        case .standard: return body { $0.hashValue }
        case .integer: return body { Self.mix(UInt64(bitPattern: Int64($0 as! Int)), seed: seed) }
        case .ascii where ID.self == InPlaceID.self:
            return body { ($0 as! InPlaceID).withString { Self.hashASCII($0, seed: seed) } }
        case .ascii: return body { Self.hashASCII($0 as! String, seed: seed) }
        }
    }

    /// The hash of `id`, or nil when this is the ASCII hash and `id` is not ASCII.
    @inline(__always)
    func callAsFunction<ID: Hashable>(_ id: ID) -> Int? {
        withFunction(for: ID.self) { hashOf in hashOf(id) }
    }

    @inline(__always)
    static func mix(_ value: UInt64, seed: UInt64) -> Int {
        var h = (value ^ seed) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 32
        h = h &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return Int(bitPattern: UInt(h))
    }

    /// Eight bytes at a time, each word mixed in with a multiply; the length goes in last. The
    /// high bits of every byte are collected on the way, so the ASCII check costs no extra pass.
    @inline(__always)
    static func hashASCII(_ string: String, seed: UInt64) -> Int? {
        let hash = string.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            let raw = UnsafeRawBufferPointer(bytes)
            var h = seed
            var high: UInt64 = 0
            var offset = 0
            // Through the base pointer, checked once: loads from the buffer checked it (and the
            // offset for overflow) on every word.
            if let base = raw.baseAddress {
                for _ in 0..<(raw.count &>> 3) {
                    let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    high |= word
                    h = (h ^ word) &* 0x9E37_79B9_7F4A_7C15
                    h = h << 31 | h >> 33
                    offset &+= 8
                }
            }
            var tail: UInt64 = 0
            if raw.count >= 8 {
                // The last (up to seven) bytes, from one load of the last eight.
                let rest = raw.count &- offset
                if rest > 0 {
                    let last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: raw.count &- 8, as: UInt64.self))
                    tail = last >> (64 &- 8 &* UInt64(rest))
                }
            } else {
                var shift: UInt64 = 0
                while offset < raw.count {
                    tail |= UInt64(raw[offset]) << shift
                    shift += 8
                    offset += 1
                }
            }
            high |= tail
            if high & 0x8080_8080_8080_8080 != 0 { return nil }
            return mix(h ^ tail ^ UInt64(raw.count) << 56, seed: seed)
        }
        // A string without contiguous UTF-8 (a bridged one) gets the standard hash too.
        return hash ?? nil
    }
}
