import CatalogDiff
import CatalogModel
import CatalogStoreCore
import Foundation
import GRDB

/// A catalogue this database follows: a copy of a server's catalogue (docs/Following-a-server.md).
public struct FollowedCatalog: Sendable, Hashable {
    /// The catalogue's name, here and on the server.
    public var name: String
    /// The server's base URL.
    public var server: String
    /// The server revision the copy has taken in (0: none yet).
    public var serverRevision: Int
    /// A refusal of one of its writes was recorded and the copy not yet brought back to the
    /// server's catalogue without it (the device stopped in between): the copy is not to be
    /// trusted until it takes the server's snapshot.
    public var isUnrepaired: Bool

    public init(name: String, server: String, serverRevision: Int, isUnrepaired: Bool = false) {
        self.name = name
        self.server = server
        self.serverRevision = serverRevision
        self.isUnrepaired = isUnrepaired
    }
}

extension CatalogStore {
    /// The catalogues this database follows, by name.
    public func followedCatalogs() throws(StoreError) -> [FollowedCatalog] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT name, server, server_revision, unrepaired FROM followed_catalog ORDER BY name").map {
                FollowedCatalog(name: $0[0], server: $0[1], serverRevision: $0[2], isUnrepaired: $0[3])
            }
        }
    }

    /// What catalogue `name` follows its server as: the client id its writes are sent under,
    /// the last number given under it, the server database's identity last seen, and the
    /// latest revision that server is known to have reached — the copy's, or a later one that
    /// acknowledged a write of the device. A server whose catalogue is later found at an
    /// earlier revision went back (a restored backup).
    package func following(_ name: String) throws(StoreError)
        -> (client: String?, lastNumber: Int, serverIdentity: String?, reached: Int)? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT client, last_number, server_identity,
                       max(server_revision, coalesce((SELECT max(server_revision) FROM outbox
                                                      WHERE catalog = ?1 AND state = 'acknowledged'), 0))
                FROM followed_catalog WHERE name = ?1
                """, arguments: [name])
                .map { ($0[0], $0[1], $0[2], $0[3]) }
        }
    }

    /// Records `identity` as the server database the catalogues `names` follow, in one
    /// transaction. Where it replaces another, the copy is not trusted until it takes the new
    /// server's snapshot (the mark a recorded refusal sets), should the device stop first, and the
    /// writes the other confirmed are forgotten: they are never sent to this one again.
    package func recordServerIdentity(_ identity: String, of names: [String]) throws(StoreError) {
        try writeWithoutRevision { db in
            for name in names {
                // The confirmed writes were the other database's: nothing to send this one again.
                try db.execute(sql: """
                    DELETE FROM confirmed_write WHERE catalog = ?1
                    AND EXISTS (SELECT 1 FROM followed_catalog WHERE name = ?1 AND server_identity IS NOT NULL AND server_identity <> ?2)
                    """, arguments: [name, identity])
                try db.execute(sql: """
                    UPDATE followed_catalog SET unrepaired = CASE WHEN server_identity IS NULL OR server_identity = ?1 THEN unrepaired ELSE 1 END,
                        server_identity = ?1, identity_checked = 1
                    WHERE name = ?2 AND (server_identity IS NOT ?1 OR identity_checked = 0)
                    """, arguments: [identity, name])
            }
        }
    }

    /// Whether the database at `path` is the file it was when last opened (its device and inode,
    /// `device_file`); if it is another — a copy on another device, a backup restored — every
    /// followed catalogue takes a new client id for the writes made from now on, so that the two
    /// devices never number new writes alike. The writes waiting keep their ids and numbers (both
    /// devices hold them; the server answers the second to send one as the one write it is). A
    /// store in memory has no file. One transaction, written only when the file is new or other.
    static func noticeCopy(of path: String, in writer: any DatabaseWriter) throws {
        guard path != ":memory:", !path.isEmpty else { return }
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let file = (device: Int64(bitPattern: UInt64(info.st_dev)), inode: Int64(bitPattern: UInt64(info.st_ino)))
        func record(_ known: (device: Int64, inode: Int64)?, in db: Database) throws {
            try db.execute(sql: "DELETE FROM device_file")
            try db.execute(sql: "INSERT INTO device_file (device, inode) VALUES (?, ?)", arguments: [file.device, file.inode])
            guard known != nil else { return }   // first opened since the schema knows its file
            for name in try String.fetchAll(db, sql: "SELECT name FROM followed_catalog") {
                try db.execute(sql: "UPDATE followed_catalog SET client = ?, last_number = 0 WHERE name = ?", arguments: [newClientID(), name])
            }
        }
        // On the writer's connection, as the migrations: a reader opened here would outlive the
        // writer at close, and only the last connection to close folds the log into the file.
        try writer.writeWithoutTransaction { db in
            let known = try Row.fetchOne(db, sql: "SELECT device, inode FROM device_file").map { (device: $0[0] as Int64, inode: $0[1] as Int64) }
            guard known?.device != file.device || known?.inode != file.inode else { return }
            try db.inTransaction {
                try record(known, in: db)
                return .commit
            }
        }
    }

    /// Forgets which file the database is, as one made before schema 14 has it: the next open
    /// records the file without taking it for a copy (for tests of copies that only the server
    /// notices).
    package func forgetFileIdentity() throws(StoreError) {
        try writeWithoutRevision { db in try db.execute(sql: "DELETE FROM device_file") }
    }

    /// A random client id (a UUID's hex digits).
    static func newClientID() -> String {
        UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The id that goes on from write `number` of `client`, whose batch is `batch`: 128 bits of
    /// two FNV-1a hashes, the same on every device that holds that write under that number.
    static func derivedClientID(from client: String, number: Int, batch: String) -> String {
        let history = Array("\(client)\n\(number)\n\(batch)".utf8)
        return FNV1a.hex(of: [0x31] + history) + FNV1a.hex(of: [0x32] + history)
    }

    static func entry(_ row: Row) -> OutboxEntry {
        OutboxEntry(sequence: row["sequence"], catalog: row["catalog"], client: row["client"], number: row["number"], batch: row["batch"],
                    state: OutboxEntry.State(rawValue: row["state"]) ?? .pending,
                    serverRevision: row["server_revision"], status: row["status"], answer: row["answer"])
    }

    /// The database's client id (made the first time: a random UUID), sent with its writes.
    package func clientID() throws(StoreError) -> String {
        try writeWithoutRevision { db in
            if let id = try String.fetchOne(db, sql: "SELECT client FROM follower_identity") { return id }
            let id = UUID().uuidString.lowercased()
            try db.execute(sql: "INSERT INTO follower_identity (client) VALUES (?)", arguments: [id])
            return id
        }
    }

    /// Marks catalogue `name` as following `server`; its writes are queued from now on. Refused
    /// when it already follows another server.
    package func follow(_ name: String, server: String) throws(StoreError) -> FollowedCatalog {
        _ = try clientID()
        return try writeWithoutRevision { db in
            try db.execute(sql: "INSERT INTO followed_catalog (name, server, client) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                           arguments: [name, server, Self.newClientID()])
            let row = try Row.fetchOne(db, sql: "SELECT name, server, server_revision FROM followed_catalog WHERE name = ?", arguments: [name])!
            let followed = FollowedCatalog(name: row[0], server: row[1], serverRevision: row[2])
            guard followed.server == server else {
                throw StoreError.invalidSetting("the catalogue \"\(name)\" follows \(followed.server), not \(server)")
            }
            return followed
        }
    }

    /// The catalogues that follow `old` follow `new` from now on: the same server's database at
    /// another address (`catalog copy` of the whole database carries its revisions, journals and
    /// the devices' write numbers). Each takes the new server's snapshot on its next connection,
    /// with the writes still waiting replayed on top — a copy is never taken to stand where it
    /// stood on another server — and the waiting writes keep their numbers. All in one
    /// transaction; the names moved, in order.
    package func refollow(from old: String, to new: String) throws(StoreError) -> [String] {
        try writeWithoutRevision { db in
            let names = try String.fetchAll(db, sql: "SELECT name FROM followed_catalog WHERE server = ? ORDER BY name", arguments: [old])
            try db.execute(sql: "UPDATE followed_catalog SET server = ?, server_revision = 0, identity_checked = 0 WHERE server = ?", arguments: [new, old])
            return names
        }
    }

    /// A followed catalogue the server deleted: the copy is deleted too, the writes still waiting
    /// for it are marked rejected with `answer` (the server's catalogue is gone), and the database
    /// no longer follows it — all in one transaction.
    package func unfollowDeleted(_ name: String, answer: RecordedAnswer) throws(StoreError) {
        let deleted = try writeWithoutRevision { db -> Int64? in
            try db.execute(sql: "UPDATE outbox SET state = 'rejected', status = ?, answer = ? WHERE catalog = ? AND state = 'pending'",
                           arguments: [answer.status, answer.body, name])
            try db.execute(sql: "DELETE FROM outbox WHERE catalog = ? AND state = 'acknowledged'", arguments: [name])
            try db.execute(sql: "DELETE FROM confirmed_write WHERE catalog = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM followed_catalog WHERE name = ?", arguments: [name])
            return try Self.catalogRow(named: name, in: db) != nil ? try Self.delete(name, ifRevision: nil, in: db).pk : nil
        }
        if let pk = deleted { snapshots.forget(pk: pk, named: name) }
        notifier.didDelete([name])
    }

    /// Queues `batch`, just applied to a followed catalogue in `db`'s transaction, in the
    /// outbox; does nothing for a catalogue no server is followed for, or a write that changed
    /// nothing. The base revision is left out: it is the copy's, which the server does not know.
    static func queueIfFollowed(_ batch: Batch, result: WriteResult, in db: Database) throws {
        guard result.revision != result.previousRevision,
              try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM followed_catalog WHERE name = ?"), arguments: [result.catalog]) == true
        else { return }
        let sequence = try Int.fetchOne(db, sql: "UPDATE follower_identity SET last_sequence = last_sequence + 1 RETURNING last_sequence")
        let numbered = try Row.fetchOne(db, sql: "UPDATE followed_catalog SET last_number = last_number + 1 WHERE name = ? RETURNING client, last_number",
                                        arguments: [result.catalog])
        guard let sequence, let numbered, let client = numbered[0] as String? else { throw StoreError.database("a followed catalogue without a client id") }
        try db.execute(sql: "INSERT INTO outbox (sequence, catalog, batch, client, number) VALUES (?, ?, ?, ?, ?)",
                       arguments: [sequence, result.catalog, Batch(operations: batch.operations).json, client, numbered[1] as Int])
    }

    /// Takes a server's catalogue in: the copy of catalogue `name` is brought by `patch` from
    /// local revision `expecting` (nil: no copy yet, and `patch` holds every section) in one
    /// transaction that also records `serverRevision` and removes the acknowledged writes that
    /// revision holds (acknowledged at it or before). Throws ``/CatalogStoreCore/StoreError/rejected(catalog:_:)``
    /// with a stale revision when the copy is no longer at `expecting` (a write of the app's
    /// landed first: compute again).
    package func takeIn(_ name: String, patch: SectionPatch, expecting: Int?, serverRevision: Int) throws(StoreError) -> WriteResult {
        let result = try write { db in
            let current = try Self.catalogRow(named: name, in: db)?.revision
            guard current == expecting else {
                throw StoreError.rejected(catalog: name, BatchError(reason: .staleRevision(base: expecting ?? 0, current: current ?? 0)))
            }
            let result: WriteResult
            if expecting == nil {
                let catalog = try Catalog(name: name).applying(patch)
                var writer = CatalogWriter(db: db, total: catalog.itemCount, progress: nil)
                result = try writer.replace(catalog, record: nil)
            } else if patch.isEmpty {
                result = .unchanged(catalog: name, revision: current!)
            } else {
                var editor = CatalogEditor(source: try DatabaseCatalogSource(db: db, name: name))
                do {
                    try editor.apply(patch)
                } catch let error as BatchError {
                    throw StoreError.rejected(catalog: name, error)
                }
                result = try Self.commit(editor, catalog: name, in: db)
            }
            try Self.stand(name, on: serverRevision, in: db, repaired: true)
            return [result]
        }
        return result[0]
    }

    /// Records that the copy of `name`, as it is, stands on server revision `serverRevision` (a
    /// change the copy already showed: the device's own writes), with ``takeIn(_:patch:expecting:serverRevision:)``'s
    /// bookkeeping and no write to the catalogue.
    package func stand(_ name: String, on serverRevision: Int) throws(StoreError) {
        try writeWithoutRevision { db in try Self.stand(name, on: serverRevision, in: db) }
    }

    /// The server revision the copy stands on, recorded; the acknowledged writes it holds leave
    /// the outbox.
    /// `repaired`: the copy was just written as the server's catalogue with the waiting writes on
    /// top, so it no longer shows a refused write.
    static func stand(_ name: String, on serverRevision: Int, in db: Database, repaired: Bool = false) throws {
        try db.execute(sql: repaired ? "UPDATE followed_catalog SET server_revision = ?, unrepaired = 0 WHERE name = ?"
                                     : "UPDATE followed_catalog SET server_revision = ? WHERE name = ?", arguments: [serverRevision, name])
        // Kept as confirmed (the last ``confirmedWritesKept``), for a server that loses them later.
        let held = "catalog = ?1 AND state = 'acknowledged' AND server_revision <= ?2"
        try db.execute(sql: """
            INSERT OR REPLACE INTO confirmed_write (sequence, catalog, client, number, batch, server_revision)
            SELECT sequence, catalog, client, number, batch, server_revision FROM outbox WHERE \(held)
            """, arguments: [name, serverRevision])
        guard db.changesCount > 0 else { return }
        try db.execute(sql: "DELETE FROM outbox WHERE \(held)", arguments: [name, serverRevision])
        try db.execute(sql: """
            DELETE FROM confirmed_write WHERE catalog = ?1 AND sequence <= (
                SELECT sequence FROM confirmed_write WHERE catalog = ?1 ORDER BY sequence DESC LIMIT 1 OFFSET ?2)
            """, arguments: [name, confirmedWritesKept])
    }
}
