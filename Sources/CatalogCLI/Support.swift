import CatalogImport
import CatalogStore
import Foundation

extension GlobalOptions {
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

/// `1 section`, `2 sections`.
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// Standard output helpers: JSON for machines, aligned columns for people.
enum Output {
    static func json(_ value: OrderedJSON) {
        print(value.serialized())
    }

    static func data(_ data: Data) {
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Rows padded into columns; numeric columns (`rightAligned`) line up on the right.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}

/// A one-line progress bar on stderr for long writes. It appears only on a terminal and only
/// once the work has taken a second, so short imports and pipes stay quiet.
final class ProgressBar {
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
