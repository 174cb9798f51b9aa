import CatalogTestSupport
import Foundation
import Testing

/// Runs the built `catalog` executable as a user would, capturing its exit status and output.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// stderr without its trailing newline, split into lines.
        var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }
    }

    static let packageRoot = BuiltExecutables.packageRoot

    /// The `catalog` binary built next to this test bundle (the test target depends on it).
    static let executable = built("catalog")
    /// The `catalog-bench` binary, built likewise.
    static let benchExecutable = built("catalog-bench")

    /// The package's executable `name`, built next to this test bundle.
    static func built(_ name: String) -> URL { BuiltExecutables.url(of: name) }

    /// The binary this runner starts: `catalog` unless the test chose another tool.
    let tool: URL

    /// A scratch folder for one test, with the database path tests pass as `--db`.
    let folder: URL
    var db: String { folder.appendingPathComponent("catalog.sqlite").path }

    init(tool: URL = CLIRunner.executable) throws {
        self.tool = tool
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes `contents` to a file in the scratch folder and returns its path.
    @discardableResult
    func file(_ name: String, _ contents: Data) throws -> String {
        let url = folder.appendingPathComponent(name)
        try contents.write(to: url)
        return url.path
    }

    @discardableResult
    func file(_ name: String, _ text: String) throws -> String {
        try file(name, Data(text.utf8))
    }

    /// Runs `catalog ARGUMENTS…` in the package folder (so SampleData/ is found) with `CATALOG_DB` unset.
    func run(_ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? Self.packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["CATALOG_DB"] = nil
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        return Result(status: process.terminationStatus,
                      stdout: try String(contentsOf: out, encoding: .utf8),
                      stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// Runs and requires exit status 0, returning stdout.
    func succeed(_ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, environment: environment)
        #expect(result.status == 0, "\(tool.lastPathComponent) \(arguments.joined(separator: " ")) failed: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Parses JSON output.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }
}
