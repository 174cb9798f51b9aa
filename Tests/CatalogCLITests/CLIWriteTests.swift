import Foundation
import Testing

/// `catalog apply` and `catalog move`: results as JSON, and every bad batch or move refused with
/// one line on stderr, exit 1, and the database file byte for byte as it was.
@Suite("catalog apply and move")
struct CLIWriteTests {
    /// A database with the demo's catalogues (the bookshelf at revision 2, science full).
    static func demo(_ cli: CLIRunner) throws {
        _ = try cli.succeed(["demo", "--db", cli.db])
    }

    @Test("apply runs every operation of a batch and prints the revision and the changeset")
    func applyBatch() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        try Self.demo(cli)
        let batch = try cli.file("batch.json", #"""
            {"baseRevision": 2, "operations": [
              {"op": "insertItem", "section": "returns", "index": 0, "item": {"id": "b42", "kind": "book", "title": "New", "cover": "42"}},
              {"op": "deleteItem", "id": "b-odyssey"},
              {"op": "updateItem", "id": "b-origin", "fields": {"title": "Origin", "author": null}},
              {"op": "moveItem", "id": "b-karamazov", "toSection": "returns", "index": 1},
              {"op": "insertSection", "index": 1, "section": {"id": "s9", "kind": "bookshelf", "capacity": 2, "title": "New shelf"}},
              {"op": "moveSection", "id": "returns", "index": 0},
              {"op": "updateSection", "id": "poetry", "fields": {"title": "Verse"}},
              {"op": "deleteSection", "id": "to-read"}
            ]}
            """#)
        // A dry run says what would happen and writes nothing.
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        let dry = try cli.succeed(["apply", "bookshelf", batch, "--dry-run", "--db", cli.db])
        #expect(dry.hasPrefix("bookshelf: revision 2 → 3 (dry run: 8 operations, nothing written)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)
        let output = try #require(try CLIRunner.json(cli.succeed(["apply", "bookshelf", batch, "--json", "--db", cli.db])) as? [String: Any])
        #expect(output["revision"] as? Int == 3)
        let changeset = try #require(output["changeset"] as? [String: Any])
        #expect(changeset["fromRevision"] as? Int == 2 && changeset["toRevision"] as? Int == 3)
        let shown = try #require(try CLIRunner.json(cli.succeed(["show", "bookshelf", "--json", "--db", cli.db])) as? [String: Any])
        let sections = try #require(shown["sections"] as? [[String: Any]])
        #expect(sections.compactMap { $0["id"] as? String } == ["returns", "classics", "s9", "science", "cooking", "poetry", "travel"])
        #expect((sections[0]["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["b42", "b-karamazov"])
        #expect(sections.first { $0["id"] as? String == "poetry" }?["title"] as? String == "Verse")

        // The changeset goes through `catalog validate` against the snapshots before and after.
        let human = try cli.succeed(["changes", "bookshelf", "--since", "2", "--db", cli.db])
        #expect(human.contains("stage"))
    }

    @Test("move appends by default, honours the policies and prints what it did")
    func moves() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        try Self.demo(cli)
        let appended = try cli.succeed(["move", "bookshelf", "b-pride", "--to", "returns", "--db", cli.db])
        #expect(appended.hasPrefix("bookshelf: revision 2 → 3 (moved b-pride to returns, at the end)"))
        let displaced = try #require(try CLIRunner.json(cli.succeed([
            "move", "bookshelf", "b-pride", "--to", "classics", "--index", "0", "--policy", "displace", "--json", "--db", cli.db,
        ])) as? [String: Any])
        #expect(displaced["revision"] as? Int == 4)
        let swapped = try cli.succeed(["move", "bookshelf", "b-salt", "--to", "travel", "--index", "0", "--policy", "swap", "--db", cli.db])
        #expect(swapped.contains("revision 4 → 5"))
    }

    @Test("bad batches and moves: exit 1, one line, the database untouched", arguments: [
        (#"{"operations": [{"op": "moveItem", "id": "b-odyssey", "toSection": "science", "index": 0}]}"#,
         #"catalogue "bookshelf": operation 0 (moveItem): shelf "science" is full: it holds at most 4 books"#),
        (#"{"operations": [{"op": "deleteItem", "id": "b-cosmos"}, {"op": "deleteItem", "id": "nope"}]}"#,
         #"catalogue "bookshelf": operation 1 (deleteItem): no item with id "nope""#),
        (#"{"operations": [{"op": "moveItem", "id": "b-cosmos", "toSection": "returns", "index": 5}]}"#,
         #"catalogue "bookshelf": operation 0 (moveItem): index 5 is out of range for section "returns" (0)"#),
        (#"{"baseRevision": 1, "operations": []}"#,
         #"catalogue "bookshelf": the batch was made against revision 1 but the catalogue is at revision 2; reload and try again"#),
        (#"{"operations": [{"op": "teleport", "id": "x"}]}"#,
         #"operations[0].op: expected one of insertItem, deleteItem, updateItem, moveItem, insertSection, deleteSection, moveSection, updateSection, found "teleport""#),
        (#"{"operations": [{"op": "moveItem", "id": "b-moby", "toSection": "science", "index": "first"}]}"#,
         #"operations[0].index: expected an integer, found a string ("first")"#),
        (#"{"operations": [{"op": "insertItem", "section": "returns", "index": 0, "item": {"kind": "book", "title": "x", "cover": "y"}}]}"#,
         #"operations[0].item.id: missing; expected a string (batch items need an id)"#),
        (#"{"operations": [{"op": "moveItem", "id": "b-moby", "toSection": "returns", "index": 0, "policy": "shove"}]}"#,
         #"operations[0].policy: expected one of reject, displace, swap, found "shove""#),
        (#"{"operations": [{"op": "deleteItem", "id": "b-moby"}"#, "not valid JSON"),
        (#"{"operation": []}"#, #"expected one of the keys baseRevision, operations, found the unknown key "operation""#),
    ])
    func badBatches(batch: String, message: String) throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        try Self.demo(cli)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        let file = try cli.file("bad.json", batch)
        let result = try cli.run(["apply", "bookshelf", file, "--db", cli.db])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)
    }

    @Test("bad moves: unknown catalogue, item or shelf, a full shelf, a bad policy")
    func badMoves() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        try Self.demo(cli)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.db))
        let cases: [([String], String)] = [
            (["move", "nope", "b-moby", "--to", "science"], #"error: no catalogue named "nope""#),
            (["move", "bookshelf", "ghost", "--to", "returns"], #"error: catalogue "bookshelf": operation 0 (moveItem): no item with id "ghost""#),
            (["move", "bookshelf", "b-moby", "--to", "attic"], #"error: catalogue "bookshelf": operation 0 (moveItem): no section with id "attic""#),
            (["move", "bookshelf", "b-odyssey", "--to", "science"], #"error: catalogue "bookshelf": operation 0 (moveItem): shelf "science" is full: it holds at most 4 books"#),
            (["move", "bookshelf", "b-odyssey", "--to", "travel", "--index", "0", "--policy", "swap", "--base-revision", "1"],
             #"error: catalogue "bookshelf": the batch was made against revision 1 but the catalogue is at revision 2; reload and try again"#),
            (["move", "bookshelf", "b-odyssey", "--to", "travel", "--index", "9"],
             #"error: catalogue "bookshelf": operation 0 (moveItem): index 9 is out of range for section "travel" (4)"#),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments + ["--db", cli.db])
            #expect(result.status == 1)
            #expect(result.stderrLines == [Substring(message)], "\(arguments)")
        }
        let policy = try cli.run(["move", "bookshelf", "b-moby", "--to", "science", "--policy", "shove", "--db", cli.db])
        #expect(policy.status == 1 && policy.stderr.contains("shove"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.db)) == before)
    }
}
