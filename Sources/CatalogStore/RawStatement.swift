import CatalogStoreCore
import GRDB
import GRDBSQLite

/// A cached statement run through SQLite's C API, for the quick move path: integers and strings
/// are bound directly and columns read by index, skipping GRDB's `StatementArguments` and `Row`
/// (``ItemReader`` and ``ItemInserter`` do the same for reading and storing whole catalogues).
/// Errors come back as GRDB's `DatabaseError`, so a failure rolls the transaction back like any
/// other; the statement is reset after every use.
struct RawStatement {
    /// A value to bind.
    enum Value {
        case integer(Int64)
        case text(String)
    }

    /// The current row's columns.
    struct Columns {
        fileprivate let handle: OpaquePointer

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
        /// The column as a string, or nil for NULL.
        func text(_ column: Int32) -> String? {
            guard let bytes = sqlite3_column_text(handle, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }
        /// `body` with the column's text as UTF-8 bytes, valid only during the call (empty for NULL):
        /// for a reader that needs no `String`.
        func withText<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            let bytes = sqlite3_column_text(handle, column)
            return try body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
        }
    }

    private let db: Database
    private let statement: Statement

    init(_ db: Database, _ sql: String) throws {
        self.db = db
        // A cache entry of its own: GRDB remembers the arguments it last bound to a cached
        // statement and may skip binding the same ones again, so a statement stepped here must
        // never also run through GRDB (the comment makes the SQL text, the cache's key, unique).
        statement = try db.cachedStatement(sql: "/* RawStatement */ " + sql)
    }

    /// The first row's value made by `read`, or nil when there is no row.
    func first<T>(_ values: Value..., read: (Columns) throws -> T) throws -> T? {
        var result: T?
        try step(values) { columns in
            result = try read(columns)
            return false
        }
        return result
    }

    /// Runs the statement to its end (an UPDATE or INSERT).
    func execute(_ values: Value...) throws {
        try step(values) { _ in true }
    }

    /// Calls `body` with every row; stops early when it returns false.
    func forEach(_ values: Value..., body: (Columns) throws -> Bool) throws {
        try step(values, each: body)
    }

    private func step(_ values: [Value], each body: (Columns) throws -> Bool) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let integer):
                sqlite3_bind_int64(handle, index, integer)
            case .text(let text):
                Self.bind(text, at: index, of: handle)
            }
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
            if try !body(Columns(handle: handle)) { return }
        }
    }

    /// Binds `text` as parameter `index` of a statement; SQLite copies the bytes
    /// (SQLITE_TRANSIENT) before this returns.
    static func bind(_ text: String, at index: Int32, of handle: OpaquePointer) {
        var text = text
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(handle, index, buffer.baseAddress, Int32(buffer.count),
                                  unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }
}
