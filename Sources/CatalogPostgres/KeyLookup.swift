/// SQL that reaches a catalogue's rows by their keys: one probe of a unique index per key.
///
/// A catalogue imported a moment ago has no statistics yet, and the planner then takes
/// `catalog_pk = …` for a handful of rows: given `catalog_pk = $1 AND id = ANY($2)` it scans the
/// whole catalogue through the index's first column and filters the ids — every item of a
/// million-book catalogue read by each write. A correlated lookup of one key on both columns of
/// a unique index is a probe: for items always (their only index on `catalog_pk` is that one);
/// for sections once the statistics know the catalogue, as the store makes sure after a large
/// import (``PostgresCatalogStore/refreshStatistics(afterWriting:)``), since the
/// section-position index shares the column.
enum KeyLookup {
    /// A query of one column `found`: for each key of the array `keys` (an SQL expression of
    /// type `keyType[]`), the `column` of the row of `table` in catalogue `catalogPK` whose
    /// `keyColumn` is that key, or NULL when there is none.
    static func rows(_ column: String, of table: String, catalogPK: String, where keyColumn: String,
                     in keys: String, keyType: String) -> String {
        """
        SELECT (SELECT \(column) FROM \(table) WHERE catalog_pk = \(catalogPK) AND \(keyColumn) = k.key) AS found \
        FROM unnest(\(keys)::\(keyType)[]) AS k(key)
        """
    }

    /// A condition true of the rows of `table` whose primary key `pk` one of `lookups` (queries
    /// of ``rows(_:of:catalogPK:where:in:keyType:)``) found: the keys become one array first, so
    /// the rows are read by their primary key.
    static func primaryKey(of table: String, in lookups: [String]) -> String {
        "\(table).pk = ANY(ARRAY(\(lookups.joined(separator: " UNION ALL "))))"
    }
}
