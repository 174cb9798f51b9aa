import Foundation

/// A `catalog serve` process on a free port of 127.0.0.1.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw ClusterBenchmark.Failure(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `catalog serve` on `database` and waits until it answers `GET /ready`.
    static func start(_ executable: String, database: String, log: String) throws -> ServerProcess {
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--db", database, "--port", String(port), "--database-connections", "32", "--log-level", "warning"]
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let server = ServerProcess(process: process, port: port)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let response = try? BlockingHTTP(port: port).request("GET", "/ready"), response.status == 200 { return server }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        server.stop()
        throw ClusterBenchmark.Failure(description: "catalog serve did not become ready; its log: \(log)")
    }

    /// `kill -9`.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGINT, as an operator stops it; waits for it to exit.
    func stop() {
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
