import Foundation

/// A strict, bounds-checked reader of binary property lists (`bplist00`) that produces
/// ``PropertyValue`` directly.
///
/// Foundation's reader on Linux trusts the file: a damaged binary plist that declares a set of
/// dictionaries crashes the process while bridging it (found by `ImportPropertyTests.byteDamage`),
/// and a file whose objects reference each other in a cycle recurses without end. This reader
/// checks every offset, refuses sets, cycles and "billion laughs" expansions, and, like the JSON
/// parser, avoids bridging `Any` values.
struct BinaryPropertyListParser {
    typealias Failure = ParseFailure

    static func parse(_ data: Data, limits: DocumentLimits = .files) throws(Failure) -> PropertyValue {
        let bytes = [UInt8](data)
        var parser = try BinaryPropertyListParser(bytes: bytes)
        parser.depthLimit = ParseFailure.depthLimit(limits)
        parser.valueBudget = limits.valueBudget
        return try parser.value(at: parser.topObject, depth: 0)
    }

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    private let offsetTable: Int
    /// How many values may still be produced: a file cannot expand beyond its own size in
    /// references, so anything more is a crafted expansion.
    private var budget: Int
    private var depthLimit = ParseFailure.maximumDepth
    /// Values still allowed by the limits (``DocumentLimits/valueBudget``): each scalar takes one,
    /// each array or dictionary four.
    private var valueBudget = Int.max

    private init(bytes: [UInt8]) throws(Failure) {
        self.bytes = bytes
        guard bytes.starts(with: Array("bplist0".utf8)) else {
            throw Failure(message: "the header \(String(decoding: bytes.prefix(8), as: UTF8.self).debugDescription) is not a version this reader knows; expected \"bplist00\"")
        }
        guard bytes.count >= 8 + 1 + 32 else {
            throw Failure(message: "\(bytes.count) bytes are too short for a binary property list")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Failure(message: "the trailer declares offsets of \(offsetSize) bytes and references of \(referenceSize) bytes")
        }
        let objects = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        let top = Self.bigEndian(bytes, at: trailer + 16, size: 8)
        let table = Self.bigEndian(bytes, at: trailer + 24, size: 8)
        guard objects > 0, objects <= UInt64(bytes.count), top < objects, table >= 8,
              table <= UInt64(trailer), UInt64(trailer) - table >= objects * UInt64(offsetSize) else {
            throw Failure(message: "the trailer's object count, top object or offset table is out of range")
        }
        objectCount = Int(objects)
        topObject = Int(top)
        offsetTable = Int(table)
        budget = bytes.count + 16
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    /// Reads `size` bytes at `offset` as a big-endian unsigned integer, checking bounds.
    private func read(_ offset: Int, _ size: Int) throws(Failure) -> UInt64 {
        guard offset >= 0, size >= 0, offset <= bytes.count - size else {
            throw Failure(message: "a value at byte \(offset) runs past the end of the file")
        }
        return Self.bigEndian(bytes, at: offset, size: size)
    }

    private func objectOffset(_ object: Int) throws(Failure) -> Int {
        guard object >= 0, object < objectCount else {
            throw Failure(message: "a reference to object \(object) of \(objectCount)")
        }
        let offset = try read(offsetTable + object * offsetSize, offsetSize)
        guard offset >= 8, offset < UInt64(offsetTable) else {
            throw Failure(message: "object \(object) is at byte \(offset), outside the object area")
        }
        return Int(offset)
    }

    private mutating func value(at object: Int, depth: Int) throws(Failure) -> PropertyValue {
        guard depth <= depthLimit else {
            throw Failure(message: "objects nested more than \(depthLimit) levels deep (or referencing themselves)")
        }
        budget -= 1
        guard budget >= 0 else { throw Failure(message: "objects expand far beyond the file's size (shared or cyclic references)") }
        let offset = try objectOffset(object)
        let marker = bytes[offset]
        valueBudget -= marker >> 4 == 0xA || marker >> 4 == 0xD ? 4 : 1
        guard valueBudget >= 0 else {
            throw Failure(message: "more values than a document within the limits holds", tooLarge: true)
        }
        let info = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw Failure(message: "unknown marker 0x\(String(marker, radix: 16)) at byte \(offset)")
            }
        case 0x1:
            guard info <= 3 else { throw Failure(message: "a \(1 << info)-byte integer at byte \(offset) is not supported") }
            let size = 1 << info
            let raw = try read(offset + 1, size)
            // 8-byte integers are signed; shorter ones are unsigned.
            if size == 8 { return .integer(Int(Int64(bitPattern: raw))) }
            return .integer(Int(raw))
        case 0x2:
            switch info {
            case 2: return .double(Double(Float(bitPattern: UInt32(try read(offset + 1, 4)))))
            case 3: return .double(Double(bitPattern: try read(offset + 1, 8)))
            default: throw Failure(message: "a \(1 << info)-byte real at byte \(offset) is not supported")
            }
        case 0x3:
            guard marker == 0x33 else { throw Failure(message: "unknown marker 0x\(String(marker, radix: 16)) at byte \(offset)") }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try read(offset + 1, 8))))
        case 0x4:
            let (count, start) = try length(info, at: offset)
            guard start <= bytes.count - count else { throw Failure(message: "data at byte \(offset) runs past the end of the file") }
            return .data(Data(bytes[start..<start + count]))
        case 0x5:
            let (count, start) = try length(info, at: offset)
            guard start <= bytes.count - count else { throw Failure(message: "a string at byte \(offset) runs past the end of the file") }
            let slice = bytes[start..<start + count]
            guard slice.allSatisfy({ $0 < 0x80 }) else { throw Failure(message: "an ASCII string at byte \(offset) holds non-ASCII bytes") }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (count, start) = try length(info, at: offset)
            guard count <= (bytes.count - start) / 2 else { throw Failure(message: "a string at byte \(offset) runs past the end of the file") }
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for i in 0..<count { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
            guard let string = String(validating: units, as: UTF16.self) else {
                throw Failure(message: "a UTF-16 string at byte \(offset) is not valid")
            }
            return .string(string)
        case 0xA:
            let (count, start) = try length(info, at: offset)
            guard count <= (bytes.count - start) / referenceSize else { throw Failure(message: "an array at byte \(offset) runs past the end of the file") }
            var elements: [PropertyValue] = []
            elements.reserveCapacity(count)
            for i in 0..<count {
                elements.append(try value(at: Int(try read(start + i * referenceSize, referenceSize)), depth: depth + 1))
            }
            return .array(elements)
        case 0xD:
            let (count, start) = try length(info, at: offset)
            guard count <= (bytes.count - start) / (2 * referenceSize) else { throw Failure(message: "a dictionary at byte \(offset) runs past the end of the file") }
            var members: [String: PropertyValue] = [:]
            members.reserveCapacity(count)
            for i in 0..<count {
                let keyObject = Int(try read(start + i * referenceSize, referenceSize))
                guard case .string(let key) = try value(at: keyObject, depth: depth + 1) else {
                    throw Failure(message: "a dictionary at byte \(offset) has a key that is not a string")
                }
                let valueObject = Int(try read(start + (count + i) * referenceSize, referenceSize))
                if members.updateValue(try value(at: valueObject, depth: depth + 1), forKey: key) != nil {
                    throw Failure(message: "a dictionary at byte \(offset) has the key \(key.debugDescription) twice")
                }
            }
            return .dictionary(members)
        case 0x8:
            throw Failure(message: "a keyed-archiver UID at byte \(offset); expected plain property-list values")
        case 0xC:
            throw Failure(message: "a set at byte \(offset); catalogues hold arrays and dictionaries only")
        default:
            throw Failure(message: "unknown marker 0x\(String(marker, radix: 16)) at byte \(offset)")
        }
    }

    /// The element count of a variable-length object and where its content starts: the count is
    /// the marker's low nibble, or, when that is 0xF, the integer object that follows.
    private func length(_ info: Int, at offset: Int) throws(Failure) -> (count: Int, start: Int) {
        if info != 0x0F { return (info, offset + 1) }
        let intMarker = try read(offset + 1, 1)
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw Failure(message: "a length at byte \(offset + 1) is not an integer")
        }
        let size = 1 << Int(intMarker & 0x0F)
        let count = try read(offset + 2, size)
        guard count <= UInt64(bytes.count) else { throw Failure(message: "a length of \(count) at byte \(offset + 1) exceeds the file") }
        return (Int(count), offset + 2 + size)
    }
}
