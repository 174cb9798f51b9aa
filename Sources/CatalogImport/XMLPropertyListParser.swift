import Foundation

/// A strict reader of XML property lists (Apple's `plist` DTD) that produces ``PropertyValue``
/// directly.
///
/// Foundation's reader reports a broken file with a line at best and in words that differ between
/// platforms, keeps the last of two equal keys, and builds its whole `Any` tree before a limit
/// could be checked. This reader says where a file is broken as the JSON parser does ("line 7,
/// column 22: …"), refuses a key that appears twice in one dictionary, and stops at the
/// document limits while it reads.
///
/// It reads what property-list writers produce: an optional XML declaration, comments, processing
/// instructions and a `DOCTYPE` before the root; `<plist>` around one value (or the value alone);
/// the predefined and numeric character references and CDATA sections in text; empty elements
/// (`<string/>`, `<dict/>`). Entities declared in a document type are refused, so a document
/// cannot expand beyond its own size.
struct XMLPropertyListParser {
    typealias Failure = ParseFailure

    /// Parses a complete XML property list within `limits`. The bytes must be valid UTF-8 (the
    /// caller checks).
    static func parse(_ bytes: UnsafeRawBufferPointer, limits: DocumentLimits = .files) throws(Failure) -> PropertyValue {
        var parser = XMLPropertyListParser(bytes: bytes)
        parser.depthLimit = ParseFailure.depthLimit(limits)
        parser.budget = limits.valueBudget
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        try parser.skipMisc()
        guard parser.index < bytes.count else { throw parser.failure("no root element; expected <plist>") }
        var tag = try parser.readTag()
        let value: PropertyValue
        if tag.name == "plist" && !tag.isClosing {
            if tag.isEmpty { throw parser.failure(at: tag.start, "<plist/> holds no value; expected <plist> with one value inside") }
            try parser.skipMisc()
            tag = try parser.readTag()
            if tag.isClosing, tag.name == "plist" { throw parser.failure(at: tag.start, "<plist> holds no value; expected one value before </plist>") }
            value = try parser.parseValue(tag, depth: 0)
            try parser.skipMisc()
            let close = try parser.readTag()
            guard close.isClosing, close.name == "plist" else {
                throw parser.failure(at: close.start, "found \(close.display) after the property list's value; expected </plist>")
            }
        } else {
            value = try parser.parseValue(tag, depth: 0)
        }
        try parser.skipMisc()
        if parser.index < bytes.count {
            throw parser.failure("unexpected \(parser.describeCurrent()) after the end of the property list")
        }
        return value
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depthLimit = ParseFailure.maximumDepth
    /// Values still allowed (``DocumentLimits/valueBudget``): each scalar takes one, each array or
    /// dictionary four.
    private var budget = Int.max

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// A start, end or empty-element tag as read: its name and where it began.
    private struct Tag {
        var name: String
        var isClosing: Bool
        var isEmpty: Bool
        var start: Int

        var display: String { isClosing ? "</\(name)>" : isEmpty ? "<\(name)/>" : "<\(name)>" }
    }

    // MARK: - Values

    /// Reads the value that `tag` opens.
    private mutating func parseValue(_ tag: Tag, depth: Int) throws(Failure) -> PropertyValue {
        if tag.isClosing { throw failure(at: tag.start, "unexpected \(tag.display); expected a value") }
        budget -= tag.name == "dict" || tag.name == "array" ? 4 : 1
        if budget < 0 {
            var failure = failure(at: tag.start, "more values than a document within the limits holds")
            failure.tooLarge = true
            throw failure
        }
        switch tag.name {
        case "dict": return try parseDictionary(tag, depth: depth + 1)
        case "array": return try parseArray(tag, depth: depth + 1)
        case "string": return .string(try text(of: tag))
        case "integer": return try integer(tag)
        case "real": return try real(tag)
        case "true", "false":
            let value = tag.name == "true"
            if !tag.isEmpty {
                let inside = try text(of: tag)
                if !inside.allSatisfy(\.isWhitespace) { throw failure(at: tag.start, "<\(tag.name)> holds text; expected <\(tag.name)/>") }
            }
            return .bool(value)
        case "date": return try date(tag)
        case "data": return try data(tag)
        case "key": throw failure(at: tag.start, "unexpected <key> outside a <dict>; expected a value")
        default:
            throw failure(at: tag.start, "unknown element \(tag.display); expected dict, array, string, integer, real, true, false, date or data")
        }
    }

    private mutating func parseDictionary(_ open: Tag, depth: Int) throws(Failure) -> PropertyValue {
        if depth > depthLimit { throw tooDeep(at: open.start) }
        if open.isEmpty { return .dictionary([:]) }
        var members: [String: PropertyValue] = [:]
        while true {
            try skipMisc()
            let tag = try readTag()
            if tag.isClosing {
                guard tag.name == "dict" else { throw failure(at: tag.start, "found \(tag.display) inside <dict>; expected <key> or </dict>") }
                return .dictionary(members)
            }
            guard tag.name == "key" else { throw failure(at: tag.start, "found \(tag.display) inside <dict> where a <key> belongs") }
            let key = try text(of: tag)
            try skipMisc()
            let valueTag = try readTag()
            if valueTag.isClosing || valueTag.name == "key" {
                throw failure(at: valueTag.start, "found \(valueTag.display) after <key>\(key)</key>; expected the key's value")
            }
            if members.updateValue(try parseValue(valueTag, depth: depth), forKey: key) != nil {
                // As in JSON: a reader that kept the last would let a file mean what its writer did not see.
                throw failure(at: tag.start, "the key \(key.debugDescription) appears twice in one <dict>")
            }
        }
    }

    private mutating func parseArray(_ open: Tag, depth: Int) throws(Failure) -> PropertyValue {
        if depth > depthLimit { throw tooDeep(at: open.start) }
        var elements: [PropertyValue] = []
        if open.isEmpty { return .array(elements) }
        while true {
            try skipMisc()
            let tag = try readTag()
            if tag.isClosing {
                guard tag.name == "array" else { throw failure(at: tag.start, "found \(tag.display) inside <array>; expected a value or </array>") }
                return .array(elements)
            }
            elements.append(try parseValue(tag, depth: depth))
        }
    }

    private mutating func integer(_ tag: Tag) throws(Failure) -> PropertyValue {
        let text = try text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
        if let value = Int(text) { return .integer(value) }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X"), let magnitude = UInt64(digits.dropFirst(2), radix: 16) {
            if !negative, magnitude <= UInt64(Int.max) { return .integer(Int(magnitude)) }
            if negative, magnitude <= UInt64(Int.max) + 1 { return .integer(magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)) }
            return .double(negative ? -Double(magnitude) : Double(magnitude))
        }
        // Above Int.max but within 64 unsigned bits, as property lists allow: kept as a number so
        // that range checks report it instead of wrapping (the binary reader does the same).
        if !negative, let magnitude = UInt64(digits) { return .double(Double(magnitude)) }
        throw failure(at: tag.start, "<integer> holds \(Self.quoted(text)); expected a whole number")
    }

    private mutating func real(_ tag: Tag) throws(Failure) -> PropertyValue {
        let text = try text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
        switch text.lowercased() {
        case "nan": return .double(.nan)
        case "inf", "+inf", "infinity", "+infinity": return .double(.infinity)
        case "-inf", "-infinity": return .double(-.infinity)
        default: break
        }
        guard let value = Double(text), text.first != "+" || text.count > 1 else {
            throw failure(at: tag.start, "<real> holds \(Self.quoted(text)); expected a number")
        }
        return .double(value)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the one form property lists write.
    private mutating func date(_ tag: Tag) throws(Failure) -> PropertyValue {
        let text = try text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
        let utf8 = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= utf8.count else { return nil }
            var value = 0
            for byte in utf8[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard utf8.count == 20, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), utf8[10] == UInt8(ascii: "T"),
              utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"), utf8[19] == UInt8(ascii: "Z"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            throw failure(at: tag.start, "<date> holds \(Self.quoted(text)); expected a date like 2024-05-01T12:00:00Z")
        }
        // Days from 1970-01-01 to the civil date (proleptic Gregorian calendar).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return .date(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    private mutating func data(_ tag: Tag) throws(Failure) -> PropertyValue {
        let text = try text(of: tag)
        let compact = String(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard let data = Data(base64Encoded: compact) else {
            throw failure(at: tag.start, "<data> does not hold base64 text")
        }
        return .data(data)
    }

    // MARK: - Text

    /// The text inside `tag` up to its end tag, with character references and CDATA sections
    /// resolved and comments dropped; empty for an empty-element tag.
    private mutating func text(of tag: Tag) throws(Failure) -> String {
        if tag.isEmpty { return "" }
        var result = ""
        var runStart = index
        func flush(_ end: Int, into result: inout String) {
            if end > runStart { result += String(decoding: UnsafeRawBufferPointer(rebasing: bytes[runStart..<end]), as: UTF8.self) }
        }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "<"):
                flush(index, into: &result)
                if starts(with: "<!--") {
                    try skipComment()
                } else if starts(with: "<![CDATA[") {
                    let contentStart = index + 9
                    guard let end = find("]]>", from: contentStart) else { throw failure("a CDATA section is not closed; expected ]]>") }
                    result += String(decoding: UnsafeRawBufferPointer(rebasing: bytes[contentStart..<end]), as: UTF8.self)
                    index = end + 3
                } else {
                    let close = try readTag()
                    guard close.isClosing, close.name == tag.name else {
                        throw failure(at: close.start, "found \(close.display) inside <\(tag.name)>; expected text and </\(tag.name)>")
                    }
                    return result
                }
                runStart = index
            case UInt8(ascii: "&"):
                flush(index, into: &result)
                result.unicodeScalars.append(try reference())
                runStart = index
            default:
                index += 1
            }
        }
        throw failure("unexpected end of file inside <\(tag.name)>; expected </\(tag.name)>")
    }

    /// A character reference at `&`: one of the five XML predefines or `&#N;` / `&#xH;`.
    private mutating func reference() throws(Failure) -> Unicode.Scalar {
        let start = index
        // The longest reference, `&#x10FFFF;`, is ten bytes: looking further would make a text of
        // many `&` cost time quadratic in its length.
        guard let end = (index + 1..<min(index + 12, bytes.count)).first(where: { bytes[$0] == UInt8(ascii: ";") }) else {
            throw failure("'&' starts no reference; write &amp; for an ampersand")
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self)
        index = end + 1
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            var code: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                code = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                code = UInt32(name.dropFirst())
            }
            if let code, code != 0, let scalar = Unicode.Scalar(code) { return scalar }
            throw failure(at: start, "unknown reference &\(name);; expected &lt; &gt; &amp; &quot; &apos; or a character number")
        }
    }

    // MARK: - Markup

    /// Reads a tag at `<`: `<name attributes>`, `<name/>` or `</name>`.
    private mutating func readTag() throws(Failure) -> Tag {
        let start = index
        guard index < bytes.count else { throw failure("unexpected end of file; expected a tag") }
        guard bytes[index] == UInt8(ascii: "<") else {
            throw failure("unexpected \(describeCurrent()); expected a tag (text belongs inside <string> or <key>)")
        }
        index += 1
        let isClosing = peek == UInt8(ascii: "/")
        if isClosing { index += 1 }
        let nameStart = index
        while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        guard index > nameStart else { throw failure(at: start, "'<' starts no tag; write &lt; for a less-than sign in text") }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index]), as: UTF8.self)
        // Attributes (`version="1.0"`) are read past, quotes and all.
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                if isClosing { break }
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                index += 1
                return Tag(name: name, isClosing: isClosing, isEmpty: false, start: start)
            } else if byte == UInt8(ascii: "/"), !isClosing, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") {
                index += 2
                return Tag(name: name, isClosing: false, isEmpty: true, start: start)
            } else if byte == UInt8(ascii: "<") {
                break
            }
            index += 1
        }
        throw failure(at: start, "the tag <\(isClosing ? "/" : "")\(name) is not closed; expected '>'")
    }

    /// Skips whitespace, comments, processing instructions and a document type declaration.
    private mutating func skipMisc() throws(Failure) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09:
                index += 1
            case UInt8(ascii: "<") where starts(with: "<!--"):
                try skipComment()
            case UInt8(ascii: "<") where starts(with: "<?"):
                guard let end = find("?>", from: index + 2) else { throw failure("a processing instruction is not closed; expected ?>") }
                index = end + 2
            case UInt8(ascii: "<") where starts(with: "<!DOCTYPE"):
                let start = index
                guard let end = find(">", from: index) else { throw failure("the DOCTYPE is not closed; expected '>'") }
                if bytes[start..<end].contains(UInt8(ascii: "[")) {
                    throw failure(at: start, "a DOCTYPE with declarations of its own is refused; property lists need none")
                }
                index = end + 1
            default:
                return
            }
        }
    }

    private mutating func skipComment() throws(Failure) {
        guard let end = find("-->", from: index + 4) else { throw failure("a comment is not closed; expected -->") }
        index = end + 3
    }

    // MARK: - Bytes

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default:
            byte >= 0x80
        }
    }

    private func starts(with literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { pattern in
            (0..<count).allSatisfy { bytes[index + $0] == pattern[$0] }
        }
    }

    /// The offset of the next `literal` at or after `start`, or nil.
    private func find(_ literal: StaticString, from start: Int) -> Int? {
        literal.withUTF8Buffer { pattern -> Int? in
            guard let first = pattern.first, pattern.count <= bytes.count else { return nil }
            var offset = start
            while offset + pattern.count <= bytes.count {
                if bytes[offset] == first, (1..<pattern.count).allSatisfy({ bytes[offset + $0] == pattern[$0] }) { return offset }
                offset += 1
            }
            return nil
        }
    }

    private static func quoted(_ text: String) -> String {
        (text.count > 40 ? String(text.prefix(40)) + "…" : text).debugDescription
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "text"
    }

    private func tooDeep(at offset: Int) -> Failure {
        var failure = failure(at: offset, "arrays and dictionaries nested more than \(depthLimit) deep")
        failure.tooLarge = true
        return failure
    }

    private func failure(_ message: String) -> Failure {
        failure(at: index, message)
    }

    /// An error at `offset`, as "line L, column C: message".
    private func failure(at offset: Int, _ message: String) -> Failure {
        Failure(message: "\(TextPosition(of: offset, in: bytes)): \(message)")
    }
}
