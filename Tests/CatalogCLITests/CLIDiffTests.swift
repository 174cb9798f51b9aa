import CatalogDiff
import Foundation
import Testing

@Suite("catalog diff, validate and import changesets")
struct CLIDiffTests {
    /// The sample bookshelf with a book moved across shelves, a shelf reversed, a title edited,
    /// a book removed and a shelf added.
    private func editedBookshelf(_ cli: CLIRunner) throws -> String {
        let original = CLIRunner.packageRoot.appendingPathComponent("SampleData/bookshelf.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: original)) as? [String: Any])
        var sections = try #require(root["sections"] as? [[String: Any]])
        var science = try #require(sections[1]["items"] as? [[String: Any]])
        var poetry = try #require(sections[3]["items"] as? [[String: Any]])
        poetry.append(science.removeFirst())
        sections[1]["items"] = science
        sections[3]["items"] = poetry
        sections[0]["items"] = Array(try #require(sections[0]["items"] as? [[String: Any]]).reversed())
        var cooking = try #require(sections[2]["items"] as? [[String: Any]])
        cooking[1]["title"] = "The Joy of Cooking (75th anniversary)"
        sections[2]["items"] = cooking
        sections[5]["items"] = []
        sections.insert(["id": "new", "kind": "bookshelf", "title": "New arrivals",
                         "items": [["id": "b-hail", "title": "Project Hail Mary", "cover": "hail"]]], at: 2)
        root["sections"] = sections
        return try cli.file("bookshelf-v2.json", JSONSerialization.data(withJSONObject: root))
    }

    @Test("diff prints stages; its JSON validates against the same files and fails against others")
    func diffAndValidate() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let before = CLIRunner.packageRoot.appendingPathComponent("SampleData/bookshelf.json").path
        let after = try editedBookshelf(cli)
        let human = try cli.succeed(["diff", before, after])
        #expect(human.contains("stage 1:"))
        #expect(human.contains("1 item reloaded"))
        let json = try cli.succeed(["diff", before, after, "--json"])
        let changeset = try JSONDecoder().decode(Changeset.self, from: Data(json.utf8))
        #expect(changeset.stages.flatMap(\.items.moved).contains(Move(from: ItemPath(section: 1, item: 0), to: ItemPath(section: 3, item: 2))),
                "the book moved across shelves is a move")
        let file = try cli.file("changes.json", json)
        #expect(try cli.succeed(["validate", file, "--from", before, "--to", after]).hasPrefix("valid: "))

        let wrong = try cli.run(["validate", file, "--from", before, "--to", before])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("invalid number of sections"))
        #expect(wrong.stderrLines.count == 1 && wrong.stderr.contains("violations of the changeset rules (docs/Changesets.md)"))

        let report = try #require(try CLIRunner.json(cli.run(["validate", file, "--from", before, "--to", before, "--json"]).stdout) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        #expect((report["violations"] as? [[String: Any]])?.isEmpty == false)
    }

    @Test("validate refuses a file that is not a changeset, naming the path inside it")
    func notAChangeset() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData/icons.plist").path
        let bad = try cli.file("bad.json", #"{"stages": [{"items": {"moved": [[[0, 0]]]}}]}"#)
        let result = try cli.run(["validate", bad, "--from", sample, "--to", sample])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("bad.json: not a changeset (docs/Changesets.md): stages[0].items.moved[0]"))
    }

    @Test("validate reads changeset files as strict JSON: a name twice in one object, or broken syntax, is refused with where")
    func strictChangesetJSON() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData/icons.plist").path
        for (text, expected) in [
            (#"{"stages": [], "stages": [{"items": {"moved": [[[0, 0], [1, 0]]]}}]}"#,
             #"not a changeset (docs/Changesets.md): line 1, column 69: the member name "stages" appears twice in one object"#),
            ("{\"stages\": [\n  {\"items\": }]}", "not a changeset (docs/Changesets.md): line 2, column 13: unexpected '}', expected a value"),
        ] {
            let file = try cli.file("changes.json", text)
            let result = try cli.run(["validate", file, "--from", sample, "--to", sample])
            #expect(result.status == 1)
            #expect(result.stderrLines.count == 1 && result.stderr.contains(expected), "\(result.stderr)")
        }
    }

    @Test("re-importing prints the changeset from the old content, valid under the simulator")
    func reimportChangeset() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let before = CLIRunner.packageRoot.appendingPathComponent("SampleData/bookshelf.json").path
        let after = try editedBookshelf(cli)
        _ = try cli.succeed(["import", before, "--db", cli.db])
        let human = try cli.succeed(["import", after, "--db", cli.db])
        #expect(human.contains("changes from revision 1:"))
        let result = try #require(try CLIRunner.json(cli.succeed(["import", before, "--json", "--db", cli.db])) as? [String: Any])
        #expect(result["revision"] as? Int == 3)
        let changesetJSON = try JSONSerialization.data(withJSONObject: try #require(result["changeset"]))
        let changeset = try JSONDecoder().decode(Changeset.self, from: changesetJSON)
        #expect(changeset.fromRevision == 2 && changeset.toRevision == 3)
        #expect(!changeset.isEmpty)
        let file = try cli.file("back.json", changesetJSON)
        #expect(try cli.succeed(["validate", file, "--from", after, "--to", before]).hasPrefix("valid: "))
    }

    @Test("changes --since prints one changeset from that revision to now; out-of-reach revisions exit 1")
    func changesSince() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let before = CLIRunner.packageRoot.appendingPathComponent("SampleData/bookshelf.json").path
        let after = try editedBookshelf(cli)
        _ = try cli.succeed(["import", before, "--db", cli.db])
        _ = try cli.succeed(["import", after, "--catalog", "bookshelf", "--db", cli.db])
        _ = try cli.succeed(["import", after, "--catalog", "bookshelf", "--db", cli.db])
        let json = try cli.succeed(["changes", "bookshelf", "--since", "1", "--json", "--db", cli.db])
        let changeset = try JSONDecoder().decode(Changeset.self, from: Data(json.utf8))
        #expect(changeset.fromRevision == 1 && changeset.toRevision == 3)
        let file = try cli.file("since1.json", json)
        #expect(try cli.succeed(["validate", file, "--from", before, "--to", after]).hasPrefix("valid: "))
        #expect(try cli.succeed(["changes", "bookshelf", "--since", "3", "--db", cli.db]).contains("0 stages"))
        let future = try cli.run(["changes", "bookshelf", "--since", "9", "--db", cli.db])
        #expect(future.status == 1)
        #expect(future.stderrLines == ["error: catalogue \"bookshelf\" has no revision 9: it is at revision 3"])
    }
}
