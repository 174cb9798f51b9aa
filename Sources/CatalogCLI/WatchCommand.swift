import ArgumentParser
import AsyncHTTPClient
import CatalogClient
import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogModel
import CatalogStore
import CatalogViews
import Foundation
import NIOCore
import NIOHTTP1

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each update of a catalogue as it happens, until interrupted.",
        discussion: """
            One line per update (docs/Live-updates.md): a reset with the catalogue's size, or the changeset from \
            the previous update's revision, stage by stage. With --json, one object per line: \
            {"revision", "changeset"} or {"revision", "reset": true}. Writes by any process on the \
            database are seen; with --server, a server's event stream is followed instead (and \
            resumed where it left off if the connection drops). Ctrl-C ends it with exit status 0.
            """
    )

    @Argument(help: "The catalogue's name.")
    var catalog: String

    @Option(help: "A revision you have: start with the changes after it instead of a reset.")
    var since: Int?

    @Option(help: "Follow this server's event stream (http://host:port) instead of the local database.")
    var server: String?

    @Option(help: "With --server: the token, when the server protects reads (default: $CATALOG_TOKEN).")
    var token: String?

    @Flag(help: "One JSON object per line.")
    var json = false

    @OptionGroup var view: ViewOptions

    @OptionGroup var global: GlobalOptions

    func run() throws {
        if let since, since < 0 { throw CLIError("--since: expected a revision (an integer ≥ 0), found \(since)") }
        let definition = try view.definition()
        let printer = UpdatePrinter(json: json)
        let follow: @Sendable () async throws -> Void
        if let server {
            guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https", base.host != nil else {
                throw CLIError("--server: expected a URL such as http://127.0.0.1:8080, found \"\(server)\"")
            }
            let (catalog, since) = (self.catalog, self.since)
            let token = self.token ?? ProcessInfo.processInfo.environment["CATALOG_TOKEN"]
            let query = view.query()
            follow = { try await EventStreamFollower(base: base, catalog: catalog, token: token, query: query, printer: printer).run(since: since) }
        } else {
            let store = try global.openDatabase(.read, connections: 2)
            let catalog = self.catalog
            // An unknown catalogue (or a view it cannot show) is an error before anything prints.
            let stored = try waitFor { try await store.catalog(named: catalog) }
            if let definition { _ = try ViewOptions.evaluate(definition, on: stored) }
            let print: @Sendable (CatalogUpdate) -> Void = { printer.print(revision: $0.revision, changeset: $0.changeset, catalog: $0.catalog) }
            let updates = store.updates(of: catalog, from: since, resetThreshold: 10_000)
            let viewUpdates = definition.map { store.updates(of: catalog, view: $0, from: since) }
            follow = {
                do {
                    if let viewUpdates {
                        for try await update in viewUpdates { print(update) }
                    } else {
                        for try await update in updates { print(update) }
                    }
                } catch StoreError.unknownCatalog {
                    printer.printDeleted(catalog)  // the catalogue was deleted: the end of its updates
                } catch let error as ViewError {
                    throw CLIError(ViewOptions.message(error))
                }
            }
        }
        try Interruptible.run(follow)
    }
}

/// Runs async work from a synchronous command until it ends or the process is interrupted
/// (SIGINT or SIGTERM: exit status 0, output flushed).
enum Interruptible {
    static func run(_ work: @escaping @Sendable () async throws -> Void) throws {
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                fflush(nil)
                Foundation.exit(0)
            }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        try waitFor(work)
    }
}

/// How `catalog watch` prints an update, from the local database or a server's stream alike.
struct UpdatePrinter: Sendable {
    let json: Bool

    func print(revision: Int, changeset: Changeset?, catalog: Catalog?) {
        let line: String
        if json {
            var members: [(String, OrderedJSON)] = [("revision", .integer(revision))]
            if let changeset {
                members.append(("changeset", changeset.jsonValue))
            } else {
                members.append(("reset", .bool(true)))
            }
            line = OrderedJSON.object(members).serialized(pretty: false)
        } else if let changeset {
            let from = changeset.fromRevision.map { " (from \($0))" } ?? ""
            line = "revision \(revision)\(from): " + changeset.summary.split(separator: "\n").joined(separator: "; ")
        } else {
            let size = catalog.map { " — \(plural($0.sections.count, "section")), \(plural($0.itemCount, "item"))" } ?? ""
            line = "revision \(revision): reset\(size)"
        }
        write(line)
    }

    /// The last line: the catalogue was deleted (`{"catalog", "deleted": true}` with `--json`).
    func printDeleted(_ catalog: String) {
        write(json ? OrderedJSON.object([("catalog", .string(catalog)), ("deleted", .bool(true))]).serialized(pretty: false)
                   : "catalogue \"\(catalog)\" was deleted")
    }

    private func write(_ line: String) {
        // Straight to the file descriptor: a pipe reading the watcher sees each line as it comes.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Follows `GET /catalogs/{name}/events` with async-http-client, reconnecting with
/// `Last-Event-ID` when the connection drops, and prints each event.
struct EventStreamFollower: Sendable {
    let base: URL
    let catalog: String
    let token: String?
    /// A view's query parameters (``ViewOptions/query()``), if any.
    var query: [(String, String)] = []
    let printer: UpdatePrinter

    func run(since: Int?) async throws {
        var lastID = since
        var failures = 0
        while true {
            do {
                try await follow(from: &lastID)
                failures = 0
            } catch is CatalogDeleted {
                return
            } catch let error as CLIError {
                throw error
            } catch {
                // The server went away: try again, as an EventSource does, from the last event.
                failures += 1
                if failures > 30 { throw CLIError("--server: lost the event stream: \(error)") }
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    private func follow(from lastID: inout Int?) async throws {
        let name = catalog.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? catalog
        let parameters = query.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $1)" }.joined(separator: "&")
        var request = HTTPClientRequest(url: base.absoluteString.trimmingSuffix("/") + "/catalogs/\(name)/events" + (parameters.isEmpty ? "" : "?" + parameters))
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastID { request.headers.add(name: "Last-Event-ID", value: String(lastID)) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .hours(24 * 365))
        guard response.status == .ok else {
            let body = try await response.body.collect(upTo: 1 << 20)
            let detail = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])?["detail"] as? String
            throw CLIError("--server: \(response.status.code) \(detail ?? response.status.reasonPhrase)")
        }
        var parser = ServerSentEventParser()
        for try await chunk in response.body {
            for event in try parser.feed(chunk.readableBytesView) {
                if event.event == "deleted" {
                    printer.printDeleted(catalog)
                    throw CatalogDeleted()
                }
                // A server's numbers are not trusted: an id that is not a revision, or one behind
                // the last, drops the stream, which resumes from the last event taken.
                guard let id = try event.revision() else { continue }
                if let lastID, id < lastID { throw StreamWentBack(from: lastID, to: id) }
                switch event.event {
                case "changes":
                    let changeset = try Documents.changeset(Data(event.data.utf8))
                    printer.print(revision: id, changeset: changeset, catalog: nil)
                default:
                    let catalog = try? CatalogImporter.decode(Data(event.data.utf8), fileName: "event.json").catalog
                    printer.print(revision: id, changeset: nil, catalog: catalog)
                }
                lastID = id
            }
        }
    }
}

/// The server said the catalogue was deleted: the stream's end, not a connection to make again.
private struct CatalogDeleted: Error {}

/// An event id behind the last one taken.
private struct StreamWentBack: Error, CustomStringConvertible {
    var from: Int
    var to: Int
    var description: String { "the server's stream went back from revision \(from) to \(to)" }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
