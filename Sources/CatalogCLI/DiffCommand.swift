import ArgumentParser
import CatalogDiff
import CatalogImport
import CatalogJSON
import CatalogModel
import Foundation

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Print the staged changeset between two catalogue files.",
        discussion: """
            The changeset turns the first file's catalogue into the second's, in stages that \
            UICollectionView's performBatchUpdates accepts (docs/Changesets.md). With --json it is the \
            changeset JSON that `catalog validate` reads.
            """
    )

    @Argument(help: "The catalogue before (.json or .plist).")
    var from: String

    @Argument(help: "The catalogue after.")
    var to: String

    @Flag(help: "Print the changeset JSON.")
    var json = false

    func run() throws {
        let (a, b) = try readCatalogs(from, to)
        var changeset = try Changeset(from: a, to: b)
        // Files carry no revisions.
        changeset.fromRevision = nil
        changeset.toRevision = nil
        if json {
            Output.json(changeset.jsonValue)
        } else {
            print("\(from) → \(to): \(plural(changeset.stages.count, "stage"))")
            print(changeset.summary)
        }
    }
}

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a changeset against the changeset rules (docs/Changesets.md) and replay it from one catalogue to another.",
        discussion: "Exit status 0 when the changeset is valid; 1 with every violation listed."
    )

    @Argument(help: "The changeset JSON file.")
    var changeset: String

    @Option(help: "The catalogue before (.json or .plist).")
    var from: String

    @Option(help: "The catalogue after.")
    var to: String

    @Flag(help: "Print JSON: {\"valid\", \"stages\", \"violations\": [{\"stage\", \"message\"}]}.")
    var json = false

    func run() throws {
        let (a, b) = try readCatalogs(from, to)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: changeset))
        } catch {
            throw CLIError("\(changeset): cannot read the file: \(error.localizedDescription)")
        }
        let decoded: Changeset
        do {
            decoded = try Documents.changeset(data)
        } catch {
            throw CLIError("\(changeset): not a changeset (docs/Changesets.md): \(Self.describe(error))")
        }
        let violations = decoded.violations(from: a, to: b)
        if json {
            Output.json(.object([
                ("valid", .bool(violations.isEmpty)), ("stages", .integer(decoded.stages.count)),
                ("violations", .array(violations.map { .object([("stage", .integer($0.stage)), ("message", .string($0.message))]) })),
            ]))
        } else if violations.isEmpty {
            print("valid: \(plural(decoded.stages.count, "stage")) replay \(from) into \(to)")
        } else {
            for violation in violations { print(violation) }
        }
        if !violations.isEmpty {
            throw CLIError("\(changeset): \(plural(violations.count, "violation")) of the changeset rules (docs/Changesets.md)")
        }
    }

    /// A decoding error as "path: problem".
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let (context, problem): (DecodingError.Context, String) = switch error {
        case .typeMismatch(_, let c): (c, c.debugDescription)
        case .valueNotFound(_, let c): (c, c.debugDescription)
        case .keyNotFound(let key, let c): (c, "missing key \"\(key.stringValue)\"")
        case .dataCorrupted(let c): (c, c.debugDescription)
        @unknown default: (DecodingError.Context(codingPath: [], debugDescription: ""), "\(error)")
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? problem : "\(path.hasPrefix(".") ? String(path.dropFirst()) : path): \(problem)"
    }
}

/// Reads the two catalogue files a diff or a validation compares.
func readCatalogs(_ from: String, _ to: String) throws -> (Catalog, Catalog) {
    (try CatalogImporter.read(contentsOf: URL(fileURLWithPath: from)).catalog,
     try CatalogImporter.read(contentsOf: URL(fileURLWithPath: to)).catalog)
}
