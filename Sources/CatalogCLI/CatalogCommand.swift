import ArgumentParser
import CatalogStore
import Foundation

/// The `catalog` command line: import, inspect, change and serve catalogues in a local SQLite file.
package struct CatalogCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Import, inspect, change and serve CatalogKit catalogues in a local SQLite database.",
        subcommands: [DemoCommand.self, ImportCommand.self, ListCommand.self, ShowCommand.self, ChangesCommand.self, ApplyCommand.self, MoveCommand.self, CheckCommand.self, DeleteCommand.self, CopyCommand.self, ServeCommand.self, DiffCommand.self, ValidateCommand.self,
                      LayoutCommand.self, GenerateCommand.self, WatchCommand.self, SyncCommand.self, OutboxCommand.self, TokenCommand.self]
    )

    /// Accepted here too, so that `catalog --db x.sqlite show shelf` works as well as
    /// `catalog show shelf --db x.sqlite`.
    @OptionGroup package var global: GlobalOptions

    package init() {}

    /// Runs the command line and exits: 0 on success, 1 on any user error with one line on stderr.
    package static func run(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        CommandLineTool.run(Self.self, arguments: arguments)
    }
}

/// How the package's command-line tools (`catalog`, `catalog-bench`) run a command and exit.
package enum CommandLineTool {
    /// Parses `arguments` as `Command` (or one of its subcommands), runs it and exits: 0 on
    /// success; 1 on any user error, with one line on stderr (docs/Command-line.md); 0 after `--help`.
    package static func run<Command: ParsableCommand>(_ command: Command.Type, arguments: [String]) -> Never {
        // Before anything opens a database: SQLite allocates without counting (see
        // `CatalogStore.disableSQLiteMemoryStatistics`).
        CatalogStore.disableSQLiteMemoryStatistics()
        do {
            var command = try Command.parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch {
            if error is CLIError || CLIError.isKnown(error) {
                printError("\(error)")
                Foundation.exit(1)
            }
            if Command.exitCode(for: error) == .success {
                print(Command.fullMessage(for: error))  // --help, --version
                Foundation.exit(0)
            }
            // A usage error: the parser's message on one line, and where the usage is rather
            // than the usage itself.
            let tool = Command.configuration.commandName ?? "catalog"
            let subcommand = arguments.first { name in Command.configuration.subcommands.contains { $0.configuration.commandName == name } }
            printError(Command.message(for: error) + " (see '\(tool) \(subcommand.map { $0 + " " } ?? "")--help')")
            Foundation.exit(1)
        }
    }

    static func printError(_ message: String) {
        // One line: newlines inside a message would split it.
        let line = message.replacingOccurrences(of: "\n", with: " ")
        FileHandle.standardError.write(Data("error: \(line)\n".utf8))
    }
}

/// Options every command accepts, before or after its name.
package struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database: a SQLite file, or a postgres:// URL (default: $CATALOG_DB, else ./catalog.sqlite).", valueName: "path"))
    package var db: String?

    package init() {}
}

extension GlobalOptions {
    /// The database path: `--db`, else `$CATALOG_DB`, else `./catalog.sqlite`.
    var path: String {
        if let db, !db.isEmpty { return db }
        if let env = ProcessInfo.processInfo.environment["CATALOG_DB"], !env.isEmpty { return env }
        return "catalog.sqlite"
    }
}
