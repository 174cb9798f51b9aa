extension RevisionPatch {
    /// A patch of ids only exactly as ``encoded()`` writes it, read in one pass over its bytes;
    /// nil for anything else — whitespace, another order of keys, an escape `encoded()` does not
    /// write, a patch with sections or items — which ``decoded(_:)`` then reads through `Codable`.
    ///
    /// A change feed reads one patch per revision it goes back: through a JSON parser, which
    /// builds a tree of values and a dictionary per object, a move's patch cost about 15,000
    /// instructions, a quarter of an uncached feed's time.
    static func written(_ bytes: UnsafeRawBufferPointer) -> RevisionPatch? {
        var reader = PatchReader(bytes: bytes)
        return reader.patch()
    }
}

/// Reads the JSON that ``RevisionPatch/encoded()`` writes for a patch of ids only, and nothing
/// else: each step returns nil (or false) at the first byte that is not where it expects it.
private struct PatchReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    mutating func patch() -> RevisionPatch? {
        guard skip(#"{"sections":[]"#) else { return nil }
        var patch = RevisionPatch(itemMoves: [])
        patch.itemMoves = nil
        if skip(#","sectionOrder":"#) {
            guard let order = list({ $0.string() }) else { return nil }
            patch.sectionOrder = order
        }
        if skip(#","itemMoves":"#) {
            guard let moves = list({ reader -> RevisionPatch.ItemMove? in
                guard reader.skip(#"{"item":"#), let item = reader.string(),
                      reader.skip(#","section":"#), let section = reader.string(),
                      reader.skip(#","index":"#), let index = reader.integer(), reader.skip("}")
                else { return nil }
                return RevisionPatch.ItemMove(item: item, section: section, index: index)
            }) else { return nil }
            patch.itemMoves = moves
        }
        if skip(#","itemOrders":"#) {
            guard let orders = list({ reader -> RevisionPatch.ItemOrder? in
                guard reader.skip(#"{"section":"#), let section = reader.string(),
                      reader.skip(#","items":"#), let items = reader.list({ $0.string() }), reader.skip("}")
                else { return nil }
                return RevisionPatch.ItemOrder(section: section, items: items)
            }) else { return nil }
            patch.itemOrders = orders
        }
        guard skip("}"), offset == bytes.count else { return nil }
        return patch
    }

    /// Moves past `text` when the bytes continue with it.
    mutating func skip(_ text: StaticString) -> Bool {
        guard matches(text, at: offset) else { return false }
        offset &+= text.utf8CodeUnitCount
        return true
    }

    /// A JSON string with at most the escapes ``appendJSONString(_:to:)`` writes: `\"`, `\\`,
    /// `\n`, `\r`, `\t` and `\u00XX` for other control characters. Most ids have none: their
    /// bytes become the string at once.
    mutating func string() -> String? {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { return nil }
        offset &+= 1
        var start = offset
        var unescaped: [UInt8]?  // the string's bytes so far, once it has had an escape
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
                offset &+= 1
                guard var text = unescaped else { return String(decoding: rest, as: UTF8.self) }
                text.append(contentsOf: rest)
                return String(decoding: text, as: UTF8.self)
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                offset &+= 1
                continue
            }
            var text = unescaped ?? []
            text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
            guard offset &+ 1 < bytes.count else { return nil }
            switch bytes[offset &+ 1] {
            case UInt8(ascii: "\""): text.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): text.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                // `\u00XX`: a control character, one byte of UTF-8.
                guard bytes.count &- offset >= 6, matches("00", at: offset &+ 2),
                      let high = Self.hexDigit(bytes[offset &+ 4]), high < 2, let low = Self.hexDigit(bytes[offset &+ 5])
                else { return nil }
                text.append(high << 4 | low)
                offset &+= 4
            default: return nil
            }
            offset &+= 2
            start = offset
            unescaped = text
        }
        return nil
    }

    /// Whether the bytes at `position` are `text`.
    func matches(_ text: StaticString, at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let expected = text.utf8Start
        for i in 0..<count where bytes[position &+ i] != expected[i] { return false }
        return true
    }

    /// The value of a lowercase hexadecimal digit, as `appendJSONString` writes them.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        default: nil
        }
    }

    /// A decimal integer as Swift prints one: an optional minus, no leading zeros, no overflow.
    mutating func integer() -> Int? {
        let negative = skip("-")
        let start = offset
        var magnitude: UInt = 0
        while offset < bytes.count, case let digit = bytes[offset] &- UInt8(ascii: "0"), digit < 10 {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.addingReportingOverflow(UInt(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = next
            offset &+= 1
        }
        let digits = offset &- start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if negative {
            guard magnitude <= UInt(Int.max) &+ 1, magnitude > 0 else { return nil }
            return Int(truncatingIfNeeded: 0 &- magnitude)
        }
        guard magnitude <= UInt(Int.max) else { return nil }
        return Int(magnitude)
    }

    /// A JSON array whose elements `element` reads.
    mutating func list<T>(_ element: (inout PatchReader) -> T?) -> [T]? {
        guard skip("[") else { return nil }
        var elements: [T] = []
        if skip("]") { return elements }
        repeat {
            guard let next = element(&self) else { return nil }
            elements.append(next)
        } while skip(",")
        return skip("]") ? elements : nil
    }
}
