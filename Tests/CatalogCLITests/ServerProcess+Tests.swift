import CatalogConcurrency
import CatalogBenchmarks
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ServerProcess {
    /// `catalog serve` from the built `catalog` binary (``CLIRunner/executable``).
    convenience init(arguments: [String], folder: URL, environment: [String: String] = [:], port: Int = 0) throws {
        try self.init(executable: CLIRunner.executable, arguments: arguments, folder: folder, environment: environment, port: port)
    }

    /// One request to the server, waited for: its status and body.
    func request(_ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
                 session: URLSession = URLSession(configuration: .ephemeral)) throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let done = DispatchSemaphore(value: 0)
        let result = Locked<(status: Int, body: Data, error: (any Error)?)?>(nil)
        session.dataTask(with: request) { data, response, error in
            result.withLock { $0 = (status: (response as? HTTPURLResponse)?.statusCode ?? -1, body: data ?? Data(), error: error) }
            done.signal()
        }.resume()
        done.wait()
        guard let answer = result.withLock({ $0 }) else { throw URLError(.unknown) }
        if let error = answer.error { throw error }
        return (answer.status, answer.body)
    }
}
