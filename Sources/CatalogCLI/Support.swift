import CatalogImport
import CatalogPostgres
import CatalogStore
import Foundation

extension GlobalOptions {
    /// Whether --db names a PostgreSQL database (a `postgres://` URL) rather than a SQLite file.
    var isPostgres: Bool { PostgresLocation.isURL(path) }

    /// The database as messages name it: the file's path, or the URL without its password.
    var displayName: String {
        guard isPostgres else { return path }
        return (try? PostgresLocation(url: path).description) ?? "the PostgreSQL database"
    }

    /// How a command opens a SQLite file (a PostgreSQL database is opened and migrated alike).
    enum Access {
        /// An existing file, left byte-for-byte as it was.
        case read
        /// An existing file: a missing one is an error.
        case write
        /// Created when missing.
        case create
    }

    /// Runs `work` on the database --db names — a SQLite file opened for `access`, or a
    /// PostgreSQL database (a `postgres://` URL) — and closes it.
    func withDatabase<T: Sendable>(_ access: Access, _ work: @escaping @Sendable (any CatalogDatabase) async throws -> T) throws -> T {
        let store = try openDatabase(access, connections: 2)
        // Closed here rather than whenever the task lets go of it: the process may exit next,
        // and a SQLite file's log must be back in the file by then.
        defer { store.close() }
        return try waitFor { try await work(store) }
    }

    /// The database --db names, open: a SQLite file opened for `access`, or a PostgreSQL database
    /// (a `postgres://` URL) with a pool of up to `connections` connections, migrated.
    func openDatabase(_ access: Access, connections: Int) throws -> any CatalogDatabase {
        if isPostgres {
            let url = path
            return try waitFor { try await PostgresCatalogStore.open(url: url, maximumConnections: connections) }
        }
        return switch access {
        case .read: try openStoreForReading()
        case .write: try openExistingStore()
        case .create: try openStore()
        }
    }

    /// Opens the store for writing, creating the database if needed.
    func openStore() throws -> CatalogStore {
        try CatalogStore(path: path)
    }

    /// Opens an existing store for writing: a missing file is an error (a typo in --db should not
    /// create an empty database).
    func openExistingStore() throws -> CatalogStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError("no database at \(path); run `catalog demo` or `catalog import FILE…` first, or pass --db")
        }
        return try CatalogStore(path: path)
    }

    /// Opens an existing store for reading: a missing file is an error, and the file is not modified.
    func openStoreForReading() throws -> CatalogStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError("no database at \(path); run `catalog demo` or `catalog import FILE…` first, or pass --db")
        }
        return try CatalogStore.openForReading(path: path)
    }
}

/// Standard output helpers: JSON for machines, aligned columns for people.
package enum Output {
    package static func json(_ value: OrderedJSON) {
        print(value.serialized())
    }

    package static func data(_ data: Data) {
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Rows padded into columns by the terminal columns their text takes (a CJK character takes
    /// two); numeric columns (`rightAligned`) line up on the right. Control characters in a cell
    /// are written escaped (``escapingControlCharacters(_:)``).
    package static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let all = [header] + rows.map { $0.map(escapingControlCharacters) }
        let cellWidths = all.map { row in row.map(\.terminalWidth) }
        let widths = header.indices.map { column in cellWidths.map { $0[column] }.max() ?? 0 }
        return zip(all, cellWidths).map { row, rowWidths in
            var line = zip(row, rowWidths).enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.1)
                return rightAligned.contains(column) ? pad + cell.0 : cell.0 + pad
            }.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}

extension String {
    /// How many columns a terminal gives this text: two for each East Asian wide or full-width
    /// character and each emoji shown as one, one for every other character.
    var terminalWidth: Int {
        reduce(0) { width, character in
            guard let scalar = character.unicodeScalars.first else { return width }
            return width + (scalar.isWide || character.unicodeScalars.contains { $0.properties.isEmojiPresentation } ? 2 : 1)
        }
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is East Asian Wide or Fullwidth (Unicode Standard Annex #11): Hangul,
    /// CJK ideographs, kana, full-width forms.
    fileprivate var isWide: Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default:
            false
        }
    }
}

/// A one-line progress bar on stderr for long writes. It appears only on a terminal and only
/// once the work has taken a second, so short imports and pipes stay quiet.
///
/// One thread uses it at a time: the command's, or the task the command waits for
/// (``waitFor(_:)``), hence `@unchecked Sendable`.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let start = Date()
    private let enabled = isatty(STDERR_FILENO) == 1
    private var shown = false

    init(label: String) {
        self.label = label
    }

    func update(done: Int, total: Int) {
        guard enabled, total > 0, Date().timeIntervalSince(start) >= 1 else { return }
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(Int(fraction * 100))% \(done)/\(total) items".utf8))
        shown = true
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

/// The result of async `work`, waited for on the calling thread (a synchronous command's).
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            box.result = .success(try await work())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// Carries a result from a task to the thread that waits for it.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// `text` in double quotes, with control characters (terminal escapes among them) written as
/// `\u{1b}`, so that a name or title from a file or a server cannot drive the terminal it is
/// printed on.
func visible(_ text: String) -> String {
    "\"" + escapingControlCharacters(text) + "\""
}

/// `text` with every control character (C0, DEL, C1) written as `\u{…}`.
func escapingControlCharacters(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var shown = ""
    for scalar in text.unicodeScalars {
        if isControl(scalar) { shown += "\\u{\(String(scalar.value, radix: 16))}" } else { shown.unicodeScalars.append(scalar) }
    }
    return shown
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}
