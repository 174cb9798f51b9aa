import ArgumentParser
import CatalogModel
import Testing
@testable import CatalogCLI

/// The command line parsed in process, as argument-parser's own tests do (beside the runs of the
/// built binary): which command an argument list names, and what it passes it.
@Suite struct CommandParsingTests {
    static func parse<Command: ParsableCommand>(_ arguments: [String], as _: Command.Type) throws -> Command {
        let parsed = try CatalogCommand.parseAsRoot(arguments)
        return try #require(parsed as? Command, "\(arguments) parsed as \(type(of: parsed))")
    }

    @Test func moveTakesItsTargetIndexPolicyAndBase() throws {
        let move = try Self.parse(["move", "shelf", "b3", "--to", "s2", "--index", "0", "--policy", "displace",
                                   "--base-revision", "7", "--json", "--db", "x.sqlite"], as: MoveCommand.self)
        #expect(move.catalog == "shelf" && move.item == "b3" && move.section == "s2")
        #expect(move.index == 0 && move.policy == .displace && move.baseRevision == 7 && move.json)
        #expect(move.global.path == "x.sqlite")
    }

    @Test func moveDefaultsToTheEndAndRejecting() throws {
        let move = try Self.parse(["move", "shelf", "b3", "--to", "s2"], as: MoveCommand.self)
        #expect(move.index == nil && move.policy == .reject && move.baseRevision == nil && !move.json)
    }

    /// `--db` before the command's name works as well as after it.
    @Test func theDatabaseMayComeBeforeTheCommand() throws {
        let before = try Self.parse(["--db", "a.sqlite", "show", "shelf"], as: ShowCommand.self)
        let after = try Self.parse(["show", "shelf", "--db", "a.sqlite"], as: ShowCommand.self)
        #expect(before.global.path == "a.sqlite" && before.catalog == "shelf")
        #expect(after.global.path == "a.sqlite" && after.catalog == "shelf")
    }

    @Test func serveListensOnLocalhostPort8080ByDefault() throws {
        let serve = try Self.parse(["serve"], as: ServeCommand.self)
        #expect(serve.host == "127.0.0.1" && serve.port == 8080)
        #expect(try Self.parse(["serve", "--port", "0"], as: ServeCommand.self).port == 0)
    }

    @Test func badArgumentsAreParseErrorsWithTheirMessage() throws {
        #expect(throws: (any Error).self) { try CatalogCommand.parseAsRoot(["move", "shelf", "b3", "--to", "s2", "--policy", "shove"]) }
        do {
            _ = try CatalogCommand.parseAsRoot(["move", "shelf", "b3", "--to", "s2", "--policy", "shove"])
        } catch {
            #expect(CatalogCommand.message(for: error).contains("shove"))
            #expect(CatalogCommand.exitCode(for: error) != .success)
        }
        #expect(throws: (any Error).self) { try CatalogCommand.parseAsRoot(["move", "shelf", "b3"]) }  // --to is required
        #expect(throws: (any Error).self) { try CatalogCommand.parseAsRoot(["show"]) }
    }
}
