import ArgumentParser
import CatalogServer
import Foundation

/// `catalog token new`: a token for `serve --token-file`, printed once, its hash added to the file.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make tokens for `catalog serve --token-file`.",
        subcommands: [New.self]
    )

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Make a random token, add its name, SHA-256, scope and catalogues to FILE, and print the token (only this once).",
            discussion: "Send SIGHUP to a running `catalog serve --token-file FILE` to put the token in force."
        )

        @Argument(help: "The token's name (letters, digits, - _ .), unique in the file; the server's log names it.")
        var name: String

        @Option(help: "read, write or admin (each includes the ones before it).")
        var scope: String

        @Option(help: ArgumentHelp("A catalogue the token reaches (repeatable; default: every catalogue).", valueName: "name"))
        var catalog: [String] = []

        @Option(help: ArgumentHelp("The token file (made, readable by its owner only, when missing).", valueName: "file"))
        var file: String

        func run() throws {
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                throw CLIError("the name must be letters, digits, -, _ or ., found \(visible(name))")
            }
            guard let scope = AccessScope(name: scope) else { throw CLIError("--scope: expected read, write or admin, found \(visible(scope))") }
            let (token, line) = TokenFile.newToken(name: name, scope: scope, catalogs: catalog.isEmpty ? nil : catalog)
            if FileManager.default.fileExists(atPath: file) {
                guard let data = FileManager.default.contents(atPath: file), let existing = String(data: data, encoding: .utf8) else {
                    throw CLIError("\(file): cannot be read")
                }
                do {
                    let tokens = try TokenFile(parsing: existing)
                    if tokens.grants.values.contains(where: { $0.holder == name }) { throw CLIError("\(file): a token named \(name) is there already") }
                } catch let error as TokenFileError {
                    throw CLIError("\(file): \(error)")
                }
                // Appended, so the file keeps its owner and permissions.
                guard let handle = FileHandle(forWritingAtPath: file) else { throw CLIError("\(file): cannot be written") }
                defer { try? handle.close() }
                handle.seekToEndOfFile()
                handle.write(Data(((existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n") + line + "\n").utf8))
            } else {
                let header = "# catalog serve --token-file: NAME SHA256 SCOPE CATALOGUES (made by catalog token new)\n"
                guard FileManager.default.createFile(atPath: file, contents: Data((header + line + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600]) else {
                    throw CLIError("\(file): cannot be written")
                }
                // The hashes are no secrets, but nobody else needs them.
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            }
            print(token)
        }
    }
}
