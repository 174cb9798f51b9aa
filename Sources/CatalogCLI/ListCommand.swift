import ArgumentParser
import CatalogImport
import CatalogJSON
import CatalogModel
import CatalogStore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the catalogues in the database with their revisions and sizes."
    )

    @Flag(help: "Print JSON: [{\"name\", \"revision\", \"sections\", \"items\"}], with \"follows\": {\"server\", \"serverRevision\", \"waiting\"} for a copy of a server's catalogue.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let summaries = try global.withDatabase(.read) { try await $0.summaries() }
        let followed = try Following.of(global)
        if json {
            Output.json(Self.json(summaries, followed))
        } else if summaries.isEmpty {
            print("No catalogues in \(global.displayName).")
        } else {
            print(Self.table(summaries, followed))
        }
    }

    /// The human listing: name, revision, sections, items in aligned columns; for a database that
    /// follows a server, the server, the server revision each copy stands on and the writes
    /// waiting (its own revisions count the device's writes too, so they differ from the server's).
    static func table(_ summaries: [CatalogSummary], _ followed: [String: Following] = [:]) -> String {
        guard !followed.isEmpty else {
            return Output.table(["NAME", "REVISION", "SECTIONS", "ITEMS"],
                                summaries.map { [$0.name, "\($0.revision)", "\($0.sections)", "\($0.items)"] },
                                rightAligned: [1, 2, 3])
        }
        return Output.table(["NAME", "REVISION", "SECTIONS", "ITEMS", "FOLLOWS", "SERVER REVISION", "WAITING"], summaries.map { summary in
            let following = followed[summary.name]
            return [summary.name, "\(summary.revision)", "\(summary.sections)", "\(summary.items)", following?.server ?? "-",
                    following.map { "\($0.serverRevision)" } ?? "-", following.map { "\($0.waiting)" } ?? "-"]
        }, rightAligned: [1, 2, 3, 5, 6])
    }

    static func json(_ summaries: [CatalogSummary], _ followed: [String: Following]) -> OrderedJSON {
        guard case .array(let objects) = Documents.summaries(summaries) else { return .array([]) }
        return .array(zip(summaries, objects).map { summary, object in
            guard let following = followed[summary.name], case .object(var members) = object else { return object }
            members.append(("follows", .object([("server", .string(following.server)), ("serverRevision", .integer(following.serverRevision)),
                                                ("waiting", .integer(following.waiting))])))
            return .object(members)
        })
    }
}

/// What a follower's database says of a copy of a server's catalogue (docs/Following-a-server.md):
/// the server, the server revision the copy stands on, and the device's writes waiting for it
/// (pending or acknowledged, not yet in the copy's server revision).
struct Following {
    var server: String
    var serverRevision: Int
    var waiting: Int

    /// By catalogue name; empty for a database that follows nothing (or a PostgreSQL one).
    static func of(_ global: GlobalOptions) throws -> [String: Following] {
        guard !global.isPostgres else { return [:] }
        let store = try global.openStoreForReading()
        let followed = try store.followedCatalogs()
        guard !followed.isEmpty else { return [:] }
        let waiting = Dictionary(grouping: try store.outbox().filter { $0.state != .rejected }, by: \.catalog)
        return Dictionary(uniqueKeysWithValues: followed.map {
            ($0.name, Following(server: $0.server, serverRevision: $0.serverRevision, waiting: waiting[$0.name]?.count ?? 0))
        })
    }

    /// One line for `catalog show`.
    var line: String {
        "follows \(escapingControlCharacters(server)) · server revision \(serverRevision) · \(plural(waiting, "write")) waiting"
    }
}
