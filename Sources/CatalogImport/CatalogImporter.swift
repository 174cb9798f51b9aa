import CatalogModel
import Foundation

/// Reads catalogue files — native JSON or property list, or the loose shapes apps ship — into the
/// model. Reading is pure: nothing is stored here, so a bad file can never leave half a catalogue
/// behind; the store writes the result in one transaction.
public enum CatalogImporter {
    /// Reads and decodes the file at `url`.
    ///
    /// - Throws: ``ImportError`` naming the file, the path inside it and what was expected.
    public static func read(contentsOf url: URL, options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedCatalog {
        // Errors and reports name the file as the caller gave it (`data/v1/videos.json`).
        let name = url.relativePath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ImportError(file: name, reason: .unreadable("no such file"))
        }
        if isDirectory.boolValue {
            throw ImportError(file: name, reason: .unreadable("it is a directory, expected a file"))
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImportError(file: name, reason: .unreadable(error.localizedDescription))
        }
        return try decode(data, fileName: name, options: options)
    }

    /// Decodes a catalogue from bytes; `fileName` (a name or a path) names it in errors and
    /// supplies the format (by extension) and catalogue name (base name) when the options and
    /// the file give none.
    public static func decode(_ data: Data, fileName: String, options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedCatalog {
        do {
            try options.validate()
        } catch {
            throw ImportError(file: fileName, reason: .unusableOption(error.message))
        }
        if data.isEmpty { throw ImportError(file: fileName, reason: .empty) }
        let format: CatalogFileFormat
        if let chosen = options.format ?? CatalogFileFormat(fileName: fileName) {
            format = chosen
        } else {
            format = try sniffFormat(data, fileName: fileName)
        }
        let root = try parse(data, format: format, fileName: fileName, limits: options.limits)
        var decoder = CatalogDecoder(fileName: fileName, options: options)
        return try decoder.decode(root, format: format)
    }

    /// Guesses the format from the first bytes when the extension says nothing.
    private static func sniffFormat(_ data: Data, fileName: String) throws(ImportError) -> CatalogFileFormat {
        let head = data.prefix(64)
        if head.starts(with: Data("bplist".utf8)) { return .plist }
        guard let first = head.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }) else {
            throw ImportError(file: fileName, reason: .empty)
        }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        case UInt8(ascii: "<"): return .plist
        default:
            let name = fileName.split(separator: "/").last ?? Substring(fileName)
            let ext = name.lastIndex(of: ".").map { String(name[$0...]) } ?? "(none)"
            throw ImportError(file: fileName, reason: .unknownFormat(ext))
        }
    }

    static func parse(_ data: Data, format: CatalogFileFormat, fileName: String, limits: DocumentLimits) throws(ImportError) -> PropertyValue {
        let isBinaryPlist = format == .plist && data.starts(with: Data("bplist".utf8))
        // Text must be UTF-8; say where it is not rather than letting a parser guess.
        if !isBinaryPlist, let offset = firstInvalidUTF8Offset(in: data) {
            if format == .plist {
                // Text in UTF-16 (a byte-order mark first) is an XML property list in an encoding
                // this reader does not take; text that begins as XML does is an XML property list
                // with a byte that is not UTF-8 (a Latin-1 title, say); anything else, a damaged
                // binary one.
                if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
                    throw ImportError(file: fileName, reason: .malformed(format: .plist, detail: "UTF-16 text; expected an XML property list in UTF-8, or a binary one"))
                }
                if !beginsAsXML(data) {
                    throw ImportError(file: fileName, reason: .damagedBinaryPropertyList(header: printedHeader(data)))
                }
            }
            let position = data.withUnsafeBytes { TextPosition(of: offset, in: $0) }
            throw ImportError(file: fileName, reason: .invalidUTF8(offset: offset, line: position.line, column: position.column))
        }
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ParseFailure) in
                switch format {
                case .json: try JSONParser.parse(bytes, limits: limits)
                case .plist where isBinaryPlist: try BinaryPropertyListParser.parse(data, limits: limits)
                case .plist: try XMLPropertyListParser.parse(bytes, limits: limits)
                }
            }
        }
        do {
            return try result.get()
        } catch {
            throw error.importError(file: fileName, format: format)
        }
    }

    /// Whether the first byte past white space and a UTF-8 byte-order mark is `<`, as an XML
    /// property list begins.
    private static func beginsAsXML(_ data: Data) -> Bool {
        var rest = data[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) } == UInt8(ascii: "<")
    }

    /// The first eight bytes of a `.plist` file that is not UTF-8 text — so not an XML property
    /// list, and a binary one with a damaged header — printable, with other bytes as `\xNN`.
    private static func printedHeader(_ data: Data) -> String {
        data.prefix(8).map { byte in
            (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "\"")
                ? String(Unicode.Scalar(byte)) : "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// The offset of the first byte that is not part of a valid UTF-8 sequence, or `nil`.
    static func firstInvalidUTF8Offset(in data: Data) -> Int? {
        // ASCII is valid UTF-8: most files and every HTTP move body are, and this scan neither
        // allocates nor copies (validating through `String` copies the whole file).
        if data.withUnsafeBytes({ bytes in bytes.allSatisfy { $0 < 0x80 } }) { return nil }
        if String(validating: data, as: UTF8.self) != nil { return nil }
        var decoder = UTF8()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
            case .emptyInput:
                return nil
            case .error:
                return offset
            }
        }
    }
}
