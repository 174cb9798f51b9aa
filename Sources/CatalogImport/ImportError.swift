/// Why a catalogue file was refused: which file, where inside it, and what was expected.
///
/// Its `description` is one line a person can act on, e.g.
/// `videos.json: [3].play_count: expected an integer ≥ 0, found the integer -5`.
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in kinds a program can switch on.
    public enum Reason: Sendable, Hashable {
        /// The file could not be read (missing, a directory, no permission).
        case unreadable(String)
        /// The file holds no bytes.
        case empty
        /// The bytes are not valid UTF-8 text: where the first bad byte is (its byte offset, and
        /// its line and column as a person counts them).
        case invalidUTF8(offset: Int, line: Int, column: Int)
        /// The bytes do not parse as the format (truncated JSON, random bytes named `.plist`).
        case malformed(format: CatalogFileFormat, detail: String)
        /// A `.plist` file that is not text and does not begin as a binary property list does:
        /// `header` is its first bytes as printed, e.g. `bplisx00`.
        case damagedBinaryPropertyList(header: String)
        /// The format could not be told from the file name; `--format` is needed.
        case unknownFormat(String)
        /// A value has the wrong type.
        case wrongType(expected: String, found: String)
        /// A value has the right type but an unacceptable value.
        case invalidValue(expected: String, found: String)
        /// A required key is absent.
        case missingField(expected: String)
        /// An explicit id is used twice; `firstPath` is where it was first used.
        case duplicateID(String, firstPath: String)
        /// A section holds more items than its capacity.
        case overCapacity(section: String, count: Int, capacity: Int)
        /// The document holds more than the limits allow (``DocumentLimits``): what, and where it
        /// stopped reading.
        case tooLarge(String)
        /// An import option that this file cannot use (a shelf capacity for a file without loose
        /// shelves), or one no file could (``ImportOptions/validate()``).
        case unusableOption(String)
        /// The root is not one of the shapes the importer knows.
        case unrecognisedShape(String)
    }

    /// The file's name as given (or the name the caller chose for in-memory data).
    public var file: String
    /// Where inside the file, e.g. `sections[2].items[5].playCount`; empty for the whole file.
    public var path: String
    public var reason: Reason

    public init(file: String, path: String = "", reason: Reason) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    public var description: String {
        let location = path.isEmpty ? file : "\(file): \(path)"
        return "\(location): \(message)"
    }

    /// The reason alone, without file and path.
    public var message: String {
        switch reason {
        case .unreadable(let detail):
            return "cannot read the file: \(detail)"
        case .empty:
            return "the file is empty; expected a catalogue (JSON or property list)"
        case .invalidUTF8(let offset, let line, let column):
            return "not UTF-8 text: the byte at line \(line), column \(column) (offset \(offset)) is not valid UTF-8; save the file as UTF-8"
        case .malformed(let format, let detail):
            return "not valid \(format.displayName): \(detail)"
        case .damagedBinaryPropertyList(let header):
            return "a damaged binary property list: it begins with \"\(header)\" where \"bplist00\" belongs"
        case .unknownFormat(let ext):
            return "cannot tell the format from the extension \"\(ext)\"; expected .json or .plist, or pass --format json|plist"
        case .wrongType(let expected, let found):
            return "expected \(expected), found \(found)"
        case .invalidValue(let expected, let found):
            return "expected \(expected), found \(found)"
        case .missingField(let expected):
            return "missing; expected \(expected)"
        case .duplicateID(let id, let firstPath):
            return "duplicate id \"\(id)\", already used at \(firstPath); expected ids unique in the catalogue"
        case .overCapacity(let section, let count, let capacity):
            return "section \"\(section)\" holds \(count) items; expected at most its capacity of \(capacity)"
        case .tooLarge(let detail):
            return "too large: \(detail)"
        case .unusableOption(let detail):
            return detail
        case .unrecognisedShape(let found):
            return "unrecognised catalogue shape: found \(found); expected a dictionary with \"sections\", "
                + "an array of {name, icon} dictionaries, an array of arrays of book covers, "
                + "or an array of video dictionaries (or pass --kind)"
        }
    }
}
