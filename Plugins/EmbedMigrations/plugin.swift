import Foundation
import PackagePlugin

/// Embeds the numbered SQL files of the package's top-level `Migrations/` folder into the target
/// as Swift source (`EmbeddedMigrations.all`), so that a built `catalog` binary carries its schema
/// wherever it is run from.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // The PostgreSQL store's schema is in its own folder: the two dialects differ.
        let folder = context.package.directoryURL.appending(path: target.name == "CatalogPostgres" ? "Migrations/postgres" : "Migrations")
        let files = try FileManager.default
            .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        // Names start with a number (`0001_initial.sql`), so that their order is explicit.
        if let unnumbered = files.first(where: { $0.lastPathComponent.first?.isNumber != true }) {
            throw EmbedError(message: "migration \(unnumbered.path) must start with a number")
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) SQL migrations from \(folder.lastPathComponent)/",
                executable: try context.tool(named: "EmbedFilesTool").url,
                arguments: [output.path, "EmbeddedMigrations"] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}

struct EmbedError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
