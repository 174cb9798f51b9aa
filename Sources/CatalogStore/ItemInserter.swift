import CatalogModel
import GRDB
import GRDBSQLite

/// Inserts items through one prepared statement, binding values with SQLite's C API.
///
/// Going through `StatementArguments` boxes sixteen values per row into existentials; binding
/// them directly is what makes storing 100k items cost about the same as a hand-written GRDB
/// loop (see BENCHMARKS.md). The statement belongs to the caller's transaction; errors come back
/// as GRDB's `DatabaseError`, so a failed insert rolls the transaction back like any other.
struct ItemInserter {
    private let db: Database
    private let statement: Statement

    init(db: Database) throws {
        self.db = db
        statement = try db.cachedStatement(sql: """
            INSERT INTO item (catalog_pk, section_pk, id, position, kind, title, cover, play_count, like_count,
                              status, status_text, author, name, icon, width, height)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
        // Unbound parameters are NULL after sqlite3_clear_bindings.
        switch item.content {
        case .video(let video):
            bind("video", at: 5)
            bind(video.title, at: 6)
            bind(video.cover, at: 7)
            sqlite3_bind_int64(handle, 8, Int64(video.playCount))
            sqlite3_bind_int64(handle, 9, Int64(video.likeCount))
            bind(video.status.rawValue, at: 10)
            if let text = video.statusText { bind(text, at: 11) }
        case .book(let book):
            bind("book", at: 5)
            bind(book.title, at: 6)
            bind(book.cover, at: 7)
            if let author = book.author { bind(author, at: 12) }
        case .icon(let icon):
            bind("icon", at: 5)
            bind(icon.name, at: 13)
            bind(icon.icon, at: 14)
        }
        if let size = item.size {
            sqlite3_bind_double(handle, 15, size.width)
            sqlite3_bind_double(handle, 16, size.height)
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                                message: message, sql: statement.sql)
        }
    }

    private func bind(_ text: String, at index: Int32) {
        RawStatement.bind(text, at: index, of: statement.sqliteStatement)
    }
}
