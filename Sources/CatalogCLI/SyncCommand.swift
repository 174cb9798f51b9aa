import ArgumentParser
import CatalogClient
import CatalogImport
import CatalogStore
import Foundation
import Logging

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Follow catalogues of a server into the local database, and send its queued writes, until interrupted.",
        discussion: """
            Keeps a copy of each catalogue in --db (created when missing), taking in every change of \
            the server's as one local update, and resuming where it stood after a restart \
            (docs/Following-a-server.md). While it follows them, every write to those catalogues on \
            this database — `catalog move`, `catalog apply`, from any process — is queued in the \
            outbox in the same transaction and sent to the server in order, each applied there once; \
            `catalog outbox` lists what waits and what was refused. An unreachable server is tried \
            again with growing, jittered waits; an unknown catalogue, a bad URL or a refused token \
            ends it with exit status 1. Ctrl-C ends it with exit status 0.
            """
    )

    @Option(help: "The server's URL (http://host:port).")
    var server: String

    @Argument(help: "The catalogues to follow.")
    var catalogs: [String]

    @Option(help: "The server's token (default: $CATALOG_TOKEN).")
    var token: String?

    @Option(help: ArgumentHelp("A file holding the token (or a JWT), read at the start and again whenever the server refuses it, so that another program may renew it.", valueName: "file"))
    var tokenFile: String?

    @Option(name: .customLong("moved-from"),
            help: ArgumentHelp("The server's old URL: its database was copied whole to --server (catalog copy); the catalogues that followed it follow --server from now on.",
                               valueName: "url"))
    var movedFrom: String?

    @Option(help: ArgumentHelp("The first wait after a failure to reach the server, in milliseconds; each wait after it doubles.", valueName: "ms"))
    var retryAfter = 250

    @Option(help: ArgumentHelp("The longest wait between tries, in milliseconds.", valueName: "ms"))
    var retryAtMost = 30_000

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...3_600_000).contains(retryAfter) else { throw ValidationError("--retry-after: expected milliseconds from 1 to 3600000, found \(retryAfter)") }
        guard (retryAfter...3_600_000).contains(retryAtMost) else {
            throw ValidationError("--retry-at-most: expected milliseconds from --retry-after (\(retryAfter)) to 3600000, found \(retryAtMost)")
        }
    }

    func run() throws {
        guard !global.isPostgres else { throw CLIError("--db: a follower keeps its copy in a SQLite file, not in PostgreSQL") }
        guard let url = URL(string: server) else { throw CLIError("--server: expected a URL such as http://127.0.0.1:8080, found \"\(server)\"") }
        let store = try global.openStore()
        let client: CatalogClient
        do {
            // Retries are told on stderr, one line each; standard output stays empty.
            if let tokenFile {
                guard token == nil else { throw CLIError("--token and --token-file: give one of them") }
                _ = try Self.readToken(tokenFile)
                client = try CatalogClient(store: store, server: url, tokenProvider: { _ in try Self.readToken(tokenFile) },
                                           retryingAfter: .milliseconds(retryAfter), atMost: .milliseconds(retryAtMost))
            } else {
                client = try CatalogClient(store: store, server: url, token: token ?? ProcessInfo.processInfo.environment["CATALOG_TOKEN"],
                                           retryingAfter: .milliseconds(retryAfter), atMost: .milliseconds(retryAtMost))
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("--server: \(error)")
        }
        if let movedFrom {
            guard let previous = URL(string: movedFrom) else {
                throw CLIError("--moved-from: expected a URL such as http://127.0.0.1:8080, found \"\(movedFrom)\"")
            }
            do {
                let moved = try client.serverMoved(from: previous)
                guard !moved.isEmpty else { throw CLIError("--moved-from: no catalogue of \(global.path) follows \(movedFrom)") }
            } catch let error as CatalogClientError {
                throw CLIError("--moved-from: \(error)")
            }
        }
        let catalogs = self.catalogs
        try Interruptible.run {
            do {
                try await client.run(following: catalogs)
            } catch let error as CatalogClientError {
                throw CLIError(error.description)
            }
        }
    }
}

extension SyncCommand {
    /// The token in `file`: its first line, spaces around it left out.
    static func readToken(_ file: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw CLIError("--token-file \(file): \(FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file")")
        }
        let token = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw CLIError("--token-file \(file): holds no token") }
        return token
    }
}

struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List the writes queued for the server: pending, acknowledged, and rejected with the server's reason.",
        discussion: """
            The outbox of a database that follows a server (`catalog sync`), oldest first; \
            --forget-rejected then drops the rejected ones. With --json, \
            an array of {"sequence", "catalog", "state", "batch"} with "serverRevision" when acknowledged \
            and "status" and "problem" (the server's problem document, or its answer as a string when \
            that was not JSON) when rejected.
            """
    )

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Forget the rejected writes (after listing them).")
    var forgetRejected = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        guard !global.isPostgres else { throw CLIError("--db: the outbox is a follower's, kept in a SQLite file") }
        let store = forgetRejected ? try global.openExistingStore() : try global.openStoreForReading()
        let entries = try store.outbox()
        print(json ? Self.json(entries) : Self.table(entries))
        if forgetRejected, let last = entries.last(where: { $0.state == .rejected }) {
            try store.removeRejected(upTo: last.sequence)
        }
    }

    /// An array of objects; the batch and the problem are JSON documents already, written as they are.
    static func json(_ entries: [OutboxEntry]) -> String {
        let objects = entries.map { entry in
            var members: [(String, OrderedJSON)] = [
                ("sequence", .integer(entry.sequence)), ("catalog", .string(entry.catalog)), ("state", .string(entry.state.rawValue)),
            ]
            if let revision = entry.serverRevision, entry.state == .acknowledged { members.append(("serverRevision", .integer(revision))) }
            if let status = entry.status { members.append(("status", .integer(status))) }
            var text = String(OrderedJSON.object(members).serialized(pretty: false).dropLast())
            text += ",\"batch\":" + Self.document(entry.batch)
            if let answer = entry.answer { text += ",\"problem\":" + Self.document(answer) }
            return text + "}"
        }
        return "[" + objects.joined(separator: ",\n") + "]"
    }

    /// `text` as it is when it is a JSON document, else as a JSON string (a proxy's page).
    static func document(_ text: String) -> String {
        if (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil { return text }
        return OrderedJSON.string(text).serialized(pretty: false)
    }

    static func table(_ entries: [OutboxEntry]) -> String {
        guard !entries.isEmpty else { return "the outbox is empty" }
        return Output.table(["write", "catalogue", "state", "detail"], entries.map { entry in
            let detail: String = switch entry.state {
            case .pending: entry.batch
            case .acknowledged: "applied at server revision \(entry.serverRevision ?? 0)"
            case .rejected: reason(entry)
            }
            return [String(entry.sequence), entry.catalog, entry.state.rawValue, detail]
        }, rightAligned: [0])
    }

    /// The problem document's detail, or the status.
    static func reason(_ entry: OutboxEntry) -> String {
        let detail = entry.answer.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }?["detail"] as? String
        return "\(entry.status ?? 0): \(detail ?? "refused")"
    }
}
