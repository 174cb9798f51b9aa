import CatalogModel

/// The SQL both stores run where SQL must hold a rule (a check inside the write's transaction),
/// written once: SQLite and PostgreSQL read these statements alike, and each store only says how
/// its driver marks a parameter (`?` or `$1`).
package enum StoreSQL {
    /// True when the sections of catalogue `catalogPK` (a parameter) sit at positions exactly
    /// 0..<n. Section positions have a UNIQUE index, so their least and greatest prove it: after
    /// every import, and after every edit that reorders sections.
    package static func sectionOrderHolds(catalogPK parameter: String) -> String {
        "SELECT count(*) = 0 OR (min(position) = 0 AND max(position) = count(*) - 1) FROM section WHERE catalog_pk = \(parameter)"
    }

    /// The kind of section that holds items of the kind in `column`, from the model's own table
    /// (`ItemKind.sectionKind`): a `CASE` over every item kind. The SQLite schema's triggers
    /// carry the same expression (a test compares them).
    package static func sectionKind(ofItemKind column: String) -> String {
        let kinds = ItemKind.allCases
        let last = kinds[kinds.index(before: kinds.endIndex)]
        let whens = kinds.dropLast().map { "WHEN '\($0.rawValue)' THEN '\($0.sectionKind.rawValue)'" }
        return "CASE \(column) \(whens.joined(separator: " ")) ELSE '\(last.sectionKind.rawValue)' END"
    }

    /// Makes the row of the catalogue named by `parameter` unless it is there. A catalogue made
    /// under the name of a deleted one goes on from the revision its deletion counts as (the
    /// retired revision plus one; migration 0007 of each backend), so a name's revisions never
    /// repeat; a name never used starts at 0.
    package static func insertCatalog(name parameter: String) -> String {
        """
        INSERT INTO catalog (name, revision)
        VALUES (\(parameter), coalesce((SELECT revision + 1 FROM retired_catalog WHERE name = \(parameter)), 0))
        ON CONFLICT (name) DO NOTHING
        """
    }
}
