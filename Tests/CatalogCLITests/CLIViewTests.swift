import CatalogBenchmarks
import Foundation
import Testing

/// `--where`, `--sort`, `--group`, `--limit` and `--offset` on `show`, `changes`, `layout` and
/// `watch` (docs/Views.md), on the demo's video feed.
@Suite("catalog views")
struct CLIViewTests {
    static let view = ["--where", #"status in ["published", "recommended"] and playCount >= 1000"#, "--sort", "-playCount,title", "--group", "status"]

    /// The play counts of a view's JSON document, section by section, and its total.
    static func playCounts(_ output: String) throws -> (sections: [String], counts: [[Int]], total: Int?) {
        let object = try #require(try CLIRunner.json(output) as? [String: Any])
        let sections = try #require(object["sections"] as? [[String: Any]])
        return (sections.compactMap { $0["id"] as? String },
                sections.map { ($0["items"] as? [[String: Any]] ?? []).compactMap { $0["playCount"] as? Int } },
                object["total"] as? Int)
    }

    @Test("show: the view's sections in order, sorted, with total; a window of it")
    func show() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let all = try Self.playCounts(try cli.succeed(["show", "videos", "--json", "--db", cli.db] + Self.view))
        #expect(all.sections == ["published", "recommended"])
        #expect(all.counts.allSatisfy { $0 == $0.sorted(by: >) && $0.allSatisfy { $0 >= 1000 } })
        let total = try #require(all.total)
        #expect(total == all.counts.joined().count)
        let window = try Self.playCounts(try cli.succeed(["show", "videos", "--json", "--limit", "3", "--offset", "1", "--db", cli.db] + Self.view))
        #expect(Array(window.counts.joined()) == Array(all.counts.joined().dropFirst().prefix(3)))
        #expect(window.total == total)
        let text = try cli.succeed(["show", "videos", "--db", cli.db] + Self.view)
        #expect(text.contains("[0] published · videos") && text.hasSuffix("\(total) items match\n"), "\(text)")
    }

    @Test("a bad view is one line naming the option and the position, exit 1")
    func badInput() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        for (arguments, message) in [
            (["--where", #"(title = "a""#], "error: --where, at 13: expected ), found end of text"),
            (["--where", #"playCount contains "x""#], "error: --where, at 11: playCount: contains needs a text field, and playCount is a number"),
            (["--limit", "-1"], #"error: --limit, at 1: expected an integer from 0 to \#(Int.max), found "-1""#),
            (["--offset", "1e30"], #"error: --offset, at 1: expected an integer from 0 to \#(Int.max), found "1e30""#),
            (["--sort", "title,-title"], "error: --sort, at 7: title is already a sort key"),
            (["--sort", "author"], "error: --sort: unknown field author; the catalogue's items have id, title, cover, playCount, likeCount, status, statusText, width, height, kind, section"),
        ] {
            for command in [["show", "videos"], ["changes", "videos", "--since", "1"], ["watch", "videos"]] {
                let result = try cli.run(command + arguments + ["--db", cli.db])
                #expect(result.status == 1, "\(command + arguments)")
                #expect(result.stderrLines == [Substring(message)], "\(command + arguments)")
            }
        }
    }

    @Test("changes and layout of a view")
    func changesAndLayout() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let before = try Self.playCounts(try cli.succeed(["show", "videos", "--json", "--db", cli.db] + Self.view))
        let id = "https://cdn.example.com/videos/1001/cover.jpg"
        let batch = try cli.file("batch.json", #"{"operations": [{"op": "updateItem", "id": "\#(id)", "fields": {"playCount": 99999999}}]}"#)
        _ = try cli.succeed(["apply", "videos", batch, "--db", cli.db])
        let changes = try #require(try CLIRunner.json(try cli.succeed(["changes", "videos", "--since", "1", "--json", "--db", cli.db] + Self.view)) as? [String: Any])
        let stages = try #require(changes["stages"] as? [[String: Any]])
        #expect(!stages.isEmpty && changes["fromRevision"] as? Int == 1)
        let after = try Self.playCounts(try cli.succeed(["show", "videos", "--json", "--db", cli.db] + Self.view))
        #expect(after.counts.first?.first == 99999999 && before.counts.first?.first != 99999999)
        let layout = try #require(try CLIRunner.json(try cli.succeed(["layout", "videos", "--config", #"{"style":"flow","itemSize":[80,120]}"#,
                                                                        "--width", "390", "--height", "600", "--offset", "0,10", "--limit", "4", "--json",
                                                                        "--db", cli.db] + Self.view)) as? [String: Any])
        #expect((layout["elements"] as? [[String: Any]])?.filter { $0["kind"] as? String == "cell" }.count == 4)
    }

    @Test("watch: the view's changes from the local database and from a server")
    func watch() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        _ = try cli.succeed(["demo", "--db", cli.db])
        let server = try ServerProcess(arguments: ["--db", cli.db], folder: cli.folder)
        let local = try CLIWatchTests.Background(["watch", "videos", "--json", "--db", cli.db] + Self.view)
        let remote = try CLIWatchTests.Background(["watch", "videos", "--json", "--server", "http://127.0.0.1:\(server.port)"] + Self.view)
        #expect(try CLIWatchTests.object(try #require(local.await(1).first))["reset"] as? Bool == true)
        #expect(try CLIWatchTests.object(try #require(remote.await(1).first))["reset"] as? Bool == true)
        let id = "https://cdn.example.com/videos/1001/cover.jpg"
        let batch = try cli.file("batch.json", #"{"operations": [{"op": "updateItem", "id": "\#(id)", "fields": {"playCount": 99999999}}]}"#)
        _ = try cli.succeed(["apply", "videos", batch, "--db", cli.db])
        for watch in [local, remote] {
            let lines = watch.await(2)
            #expect(watch.interrupt() == 0)
            #expect(lines.count == 2, "\(lines)")
            let change = try CLIWatchTests.object(try #require(lines.last))
            let changeset = try #require(change["changeset"] as? [String: Any])
            #expect(changeset["fromRevision"] as? Int == 1 && change["revision"] as? Int == 2, "\(lines)")
        }
    }
}
