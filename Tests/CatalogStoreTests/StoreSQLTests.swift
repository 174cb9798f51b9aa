import CatalogModel
import CatalogStoreCore
import Foundation
import Testing

/// The SQL both stores share agrees with the model and with the SQLite schema, which carries the
/// same rules in its triggers.
@Suite struct StoreSQLTests {
    static let migrations = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Migrations")

    @Test func theKindOfSectionForEachItemKindIsTheModels() {
        #expect(StoreSQL.sectionKind(ofItemKind: "k") == "CASE k WHEN 'video' THEN 'videos' WHEN 'book' THEN 'bookshelf' ELSE 'icons' END")
        for kind in ItemKind.allCases {
            #expect(StoreSQL.sectionKind(ofItemKind: "k").contains("'\(kind.sectionKind.rawValue)'"))
        }
    }

    /// Every trigger of the SQLite schema that checks an item's kind against its section's uses
    /// exactly the expression the PostgreSQL store's check is made of.
    @Test func theSQLiteTriggersCheckKindsWithTheSameExpression() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.migrations.path).filter { $0.hasSuffix(".sql") }
        var found = 0
        for file in files {
            let text = try String(contentsOf: Self.migrations.appendingPathComponent(file), encoding: .utf8)
            var rest = text[...]
            while let start = rest.range(of: "CASE NEW.kind") {
                let end = try #require(rest[start.lowerBound...].range(of: "END"))
                #expect(String(rest[start.lowerBound..<end.upperBound]) == StoreSQL.sectionKind(ofItemKind: "NEW.kind"), "\(file)")
                found += 1
                rest = rest[end.upperBound...]
            }
        }
        #expect(found >= 2)
    }
}
