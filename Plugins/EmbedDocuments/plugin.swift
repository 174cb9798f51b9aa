import Foundation
import PackagePlugin

/// Embeds the target's `.json` documents (the OpenAPI description of the HTTP API) into the
/// target as Swift source (`EmbeddedDocuments.all`), and the files of its `Console` folder (the
/// browser console's HTML, CSS and JavaScript) as `EmbeddedConsole.all`, named with their
/// extensions: a resource bundle is found only beside the binary or at its build path, and a
/// server must answer from wherever it was copied to.
@main
struct EmbedDocuments: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let files = try FileManager.default
            .contentsOfDirectory(at: target.directoryURL, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedDocuments.swift")
        let consoleFolder = target.directoryURL.appending(path: "Console")
        let consoleFiles = ((try? FileManager.default.contentsOfDirectory(at: consoleFolder, includingPropertiesForKeys: nil)) ?? [])
            .filter { ["html", "css", "js", "svg"].contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let consoleOutput = context.pluginWorkDirectoryURL.appending(path: "EmbeddedConsole.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(consoleFiles.count) console files into \(target.name)",
                executable: try context.tool(named: "EmbedFilesTool").url,
                arguments: ["--keep-extensions", consoleOutput.path, "EmbeddedConsole"] + consoleFiles.map(\.path),
                inputFiles: consoleFiles,
                outputFiles: [consoleOutput]
            ),
            .buildCommand(
                displayName: "Embedding \(files.count) documents into \(target.name)",
                executable: try context.tool(named: "EmbedFilesTool").url,
                arguments: [output.path, "EmbeddedDocuments"] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
