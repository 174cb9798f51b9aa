/// A migration file cut into its statements: PostgreSQL's extended protocol, which the driver
/// speaks, runs one statement per query.
///
/// A semicolon ends a statement unless it is inside a quoted string ('…' or "…"), a
/// dollar-quoted body (`$$ … $$`, `$tag$ … $tag$`) or a comment (`--` to the line's end,
/// `/* … */`). Comments are kept with the statement that follows them; statements that are only
/// comments or space are dropped.
enum SQLScript {
    static func statements(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        var statements: [String] = []
        var start = 0
        var index = 0
        var hasCode = false
        func finish(at end: Int) {
            if hasCode {
                let statement = String(decoding: bytes[start..<end], as: UTF8.self)
                statements.append(statement.trimmingWhitespace())
            }
            start = end + 1
            hasCode = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index += 2
                continue
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                hasCode = true
                index += 1
                while index < bytes.count && bytes[index] != byte { index += 1 }
            case UInt8(ascii: "$"):
                hasCode = true
                // A dollar quote's tag: `$`, letters, digits and underscores, `$`.
                var end = index + 1
                while end < bytes.count, bytes[end] == UInt8(ascii: "_") || (bytes[end] | 0x20 >= UInt8(ascii: "a") && bytes[end] | 0x20 <= UInt8(ascii: "z"))
                        || (bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9")) { end += 1 }
                if end < bytes.count && bytes[end] == UInt8(ascii: "$") {
                    let tag = bytes[index...end]
                    var search = end + 1
                    while search + tag.count <= bytes.count && !bytes[search..<(search + tag.count)].elementsEqual(tag) { search += 1 }
                    index = search + tag.count
                    continue
                }
            case UInt8(ascii: ";"):
                finish(at: index)
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                break
            default:
                hasCode = true
            }
            index += 1
        }
        finish(at: bytes.count)
        return statements
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
