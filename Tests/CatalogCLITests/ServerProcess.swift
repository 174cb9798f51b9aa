import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `catalog serve` running as its own process on a free port, as a user starts it.
final class ServerProcess {
    let process = Process()
    let port: Int
    /// Where the server's standard error (its log) goes.
    let logPath: String

    /// Starts `executable serve --port PORT ARGUMENTS…` (0: a free one) and waits for its "listening on" line.
    init(executable: URL = CLIRunner.executable, arguments: [String], folder: URL,
         environment: [String: String] = [:], port: Int = 0) throws {
        process.executableURL = executable
        process.arguments = ["serve", "--port", String(port)] + arguments
        process.currentDirectoryURL = folder
        var merged = ProcessInfo.processInfo.environment
        merged["CATALOG_DB"] = nil
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        process.standardOutput = output
        logPath = folder.appendingPathComponent("serve-\(UUID().uuidString).log").path
        FileManager.default.createFile(atPath: logPath, contents: nil)
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
            throw ServerDidNotStart(output: text + (try String(contentsOfFile: logPath, encoding: .utf8)))
        }
        self.port = port
    }

    struct ServerDidNotStart: Error, CustomStringConvertible {
        var output: String
        var description: String { "catalog serve did not start: \(output)" }
    }

    deinit { if process.isRunning { process.interrupt() } }

    /// One request to the server, waited for: its status, headers and body.
    func request(_ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
                 session: URLSession = URLSession(configuration: .ephemeral)) throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let done = DispatchSemaphore(value: 0)
        let result = Box()
        session.dataTask(with: request) { data, response, error in
            result.value = (status: (response as? HTTPURLResponse)?.statusCode ?? -1, body: data ?? Data(), error: error)
            done.signal()
        }.resume()
        done.wait()
        if let error = result.value?.error { throw error }
        return (result.value!.status, result.value!.body)
    }

    private final class Box: @unchecked Sendable {
        var value: (status: Int, body: Data, error: (any Error)?)?
    }
}
