import CatalogModel
import CatalogStoreCore
import GRDB
import GRDBSQLite

/// Inserts items through one prepared statement, binding values with SQLite's C API.
///
/// Going through `StatementArguments` boxes every value of a row into existentials; binding
/// them directly is what makes storing 100k items cost about the same as a hand-written GRDB
/// loop (see BENCHMARKS.md). The statement belongs to the caller's transaction; errors come back
/// as GRDB's `DatabaseError`, so a failed insert rolls the transaction back like any other.
struct ItemInserter {
    private let db: Database
    private let statement: Statement

    init(db: Database) throws {
        self.db = db
        let values = Array(repeating: "?", count: 7 + ItemColumns.content.count).joined(separator: ", ")
        statement = try db.cachedStatement(sql: """
            INSERT INTO item (catalog_pk, section_pk, id, position, kind, \(ItemColumns.list()), width, height)
            VALUES (\(values))
            """)
    }

    /// Inserts `item` into a section with `key` as its position (an order key, see ``OrderKeys``).
    func insert(_ item: Item, catalogPK: Int64, sectionPK: Int64, key: Int64) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        sqlite3_bind_int64(handle, 1, catalogPK)
        sqlite3_bind_int64(handle, 2, sectionPK)
        bind(item.id, at: 3)
        sqlite3_bind_int64(handle, 4, key)
        bind(item.kind.rawValue, at: 5)
        // Unbound parameters are NULL after sqlite3_clear_bindings: the fields of other kinds,
        // and optional fields left empty.
        for field in ItemField.content(of: item.kind) {
            let index = Self.contentParameter &+ ItemColumns.offset(of: field)
            switch item.content[field] {
            case .text(let text)?: bind(text, at: index)
            case .count(let count)?: sqlite3_bind_int64(handle, index, Int64(count))
            case nil: break
            }
        }
        if let size = item.size {
            sqlite3_bind_double(handle, Self.sizeParameter, size.width)
            sqlite3_bind_double(handle, Self.sizeParameter &+ 1, size.height)
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                                message: message, sql: statement.sql)
        }
    }

    /// The parameter of the first content column; the width's follows the last.
    private static let contentParameter: Int32 = 6
    private static let sizeParameter = contentParameter + Int32(ItemColumns.content.count)

    private func bind(_ text: String, at index: Int32) {
        RawStatement.bind(text, at: index, of: statement.sqliteStatement)
    }
}
