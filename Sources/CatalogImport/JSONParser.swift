/// A strict RFC 8259 JSON parser that produces ``PropertyValue`` directly.
///
/// Foundation's `JSONSerialization` hands back `Any` trees whose conversion costs more than the
/// parse itself (≈ 5× on a 100k-item catalogue: dynamic casts of every value), cannot tell `1`
/// from `true` reliably, and reports errors without a position. This parser reads the UTF-8 bytes
/// once, keeps integers exact, and says where a file is broken ("line 3, column 14: …").
package struct JSONParser {
    package typealias Failure = ParseFailure

    /// Parses a complete JSON text within `limits` (nesting, and the budget of values). The bytes
    /// must be valid UTF-8 (the caller checks).
    package static func parse(_ bytes: UnsafeRawBufferPointer, limits: DocumentLimits = .files) throws(Failure) -> PropertyValue {
        var parser = JSONParser(bytes: bytes)
        parser.depthLimit = ParseFailure.depthLimit(limits)
        parser.budget = limits.valueBudget
        parser.pending.reserveCapacity(16)  // one allocation, not one per doubling up to a move's members
        // A UTF-8 byte-order mark is tolerated, as editors on some systems write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.failure("unexpected \(parser.describeCurrent()) after the end of the JSON value")
        }
        return value
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depthLimit = ParseFailure.maximumDepth
    /// Values still allowed (``DocumentLimits/valueBudget``): each scalar takes one, each array
    /// or object four.
    private var budget = Int.max
    /// Members of the objects being read, innermost last (see `parseObject`).
    private var pending: [(String, PropertyValue)] = []

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: - Values

    private mutating func parseValue(depth: Int) throws(Failure) -> PropertyValue {
        guard index < bytes.count else { throw failure("unexpected end of file, expected a value") }
        budget -= bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") ? 4 : 1
        if budget < 0 {
            var failure = failure("more values than a document within the limits holds")
            failure.tooLarge = true
            throw failure
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> PropertyValue {
        if depth > depthLimit { throw tooDeep() }
        index += 1  // {
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .dictionary([:])
        }
        // The members wait on a stack shared by all objects (nested ones above this one's) until
        // the object closes, and then go into a dictionary of exactly their number: grown from
        // empty instead, a dictionary of eight was allocated and rehashed four times.
        let base = pending.count
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeCurrent()), expected a member name in double quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw failure("unexpected \(describeCurrent()), expected ':' after a member name") }
            index += 1
            skipWhitespace()
            pending.append((key, try parseValue(depth: depth)))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                var members = [String: PropertyValue](minimumCapacity: pending.count - base)
                for (key, value) in pending[base...] where members.updateValue(value, forKey: key) != nil {
                    // RFC 8259 leaves a repeated name to the reader; one that silently kept the
                    // last would let `{"item": "a", "item": "b"}` mean something the writer did not see.
                    throw failure("the member name \(key.debugDescription) appears twice in one object")
                }
                pending.removeSubrange(base...)
                return .dictionary(members)
            default: throw failure("unexpected \(describeCurrent()), expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> PropertyValue {
        if depth > depthLimit { throw tooDeep() }
        index += 1  // [
        var elements: [PropertyValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw failure("unexpected \(describeCurrent()), expected ',' or ']' in an array")
            }
        }
    }

    private func tooDeep() -> Failure {
        var failure = failure("nested more than \(depthLimit) levels deep")
        failure.tooLarge = true
        return failure
    }

    // MARK: - Strings

    private mutating func parseString() throws(Failure) -> String {
        let start = index
        index += 1  // opening quote
        let contentStart = index
        // Fast path: no escapes — the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("control character U+00\(hex(byte)) inside a string; it must be escaped") }
            index += 1
        }
        guard index < bytes.count else {
            index = start
            throw failure("unterminated string")
        }
        // Slow path: copy what was scanned, then decode escapes.
        var scalars = Array(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    index -= 1
                    throw failure("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                }
            default:
                if byte < 0x20 { throw failure("control character U+00\(hex(byte)) inside a string; it must be escaped") }
                scalars.append(byte)
                index += 1
            }
        }
        index = start
        throw failure("unterminated string")
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` when the first is a high surrogate.
    private mutating func parseUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a high surrogate \\u\(String(first, radix: 16)) must be followed by a low surrogate")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw failure("\\u\(String(second, radix: 16)) is not a low surrogate")
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw failure("a lone low surrogate \\u\(String(first, radix: 16)) is not a character")
        }
        return scalar
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of file in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("unexpected \(describeCurrent()) in a \\u escape, expected a hex digit")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: - Numbers and words

    private mutating func parseNumber() throws(Failure) -> PropertyValue {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw failure("unexpected \(describeCurrent()), expected a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek, isDigit(next) { throw failure("a number may not start with 0") }
        } else {
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        var isInteger = true
        if peek == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = peek, isDigit(byte) else { throw failure("expected a digit after the decimal point") }
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek, isDigit(byte) else { throw failure("expected a digit in the exponent") }
            while let byte = peek, isDigit(byte) { index += 1 }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        // Fractions, exponents and integers beyond Int's range.
        return .double(Double(text) ?? .infinity)
    }

    private mutating func expectWord(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard index + count <= bytes.count, expected.indices.allSatisfy({ bytes[index + $0] == expected[$0] }) else {
            throw failure("unexpected \(describeCurrent()), expected a value")
        }
        index += count
    }

    // MARK: - Helpers

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex(byte))"
    }

    /// An error at the current position, as "line L, column C: message".
    private func failure(_ message: String) -> Failure {
        Failure(message: "\(TextPosition(of: index, in: bytes)): \(message)")
    }
}
