import Foundation
import PackagePlugin

/// Embeds the target's `.json` documents (the OpenAPI description of the HTTP API) into the
/// target as Swift source (`EmbeddedDocuments.all`): a resource bundle is found only beside the
/// binary or at its build path, and a server must answer from wherever it was copied to.
@main
struct EmbedDocuments: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let files = try FileManager.default
            .contentsOfDirectory(at: target.directoryURL, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedDocuments.swift")
        return [
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
