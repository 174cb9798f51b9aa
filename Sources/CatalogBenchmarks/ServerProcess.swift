import Foundation

/// `catalog serve` running as a process of its own, as a user starts it: on the port asked for,
/// or a free one the server picks (port 0), known from the server's own "listening on" line —
/// no free-port race, no polling. The benchmarks and the command line's tests both start servers
/// through it.
package final class ServerProcess: @unchecked Sendable {
    package let process = Process()
    package let port: Int
    /// Where the server's standard error (its log) goes.
    package let logPath: String

    /// Starts `executable serve --port PORT ARGUMENTS…` in `folder` (port 0: one the server
    /// picks) and returns once it says it is listening. The environment is this process's, less
    /// `CATALOG_DB`, with `environment` over it; the log goes to `log` (by default a new file in
    /// `folder`).
    ///
    /// - Throws: ``ServerDidNotStart`` with the server's output and log when it exits first.
    package init(executable: URL, arguments: [String], folder: URL, environment: [String: String] = [:],
                 port: Int = 0, log: String? = nil) throws {
        process.executableURL = executable
        process.arguments = ["serve", "--port", String(port)] + arguments
        process.currentDirectoryURL = folder
        var merged = ProcessInfo.processInfo.environment
        merged["CATALOG_DB"] = nil
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        process.standardOutput = output
        logPath = log ?? folder.appendingPathComponent("serve-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        // "catalog serve: listening on http://127.0.0.1:PORT (database …)"
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        let address = text.split(separator: "://").dropFirst().first?.prefix { $0 != " " }
        guard let port = address?.split(separator: ":").last.flatMap({ Int($0) }) else {
            process.interrupt()
            process.waitUntilExit()
            throw ServerDidNotStart(output: text + ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""))
        }
        self.port = port
    }

    /// A server that exited before it listened: what it printed.
    package struct ServerDidNotStart: Error, CustomStringConvertible {
        package var output: String
        package var description: String { "catalog serve did not start: \(output)" }
    }

    deinit { if process.isRunning { process.interrupt() } }

    /// Starts `catalog serve` on `database` for a benchmark (32 database connections, warnings
    /// only), its log in `log`.
    static func start(_ executable: String, database: String, log: String) throws -> ServerProcess {
        try ServerProcess(executable: URL(fileURLWithPath: executable),
                          arguments: ["--db", database, "--database-connections", "32", "--log-level", "warning"],
                          folder: URL(fileURLWithPath: log).deletingLastPathComponent(), log: log)
    }

    /// `kill -9`.
    package func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGINT, as an operator stops it; waits for it to exit.
    package func stop() {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
    }

    /// Runs `executable` with `arguments` to its end: its exit status and output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
