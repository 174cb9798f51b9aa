import CatalogDiff
import CatalogModel
import CatalogStoreCore
import Foundation
import GRDB

/// A write made to a followed catalogue, queued for its server (docs/Following-a-server.md#the-outbox).
public struct OutboxEntry: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Not yet answered by the server: the copy shows it, and it is sent (again) in turn.
        case pending
        /// Applied by the server at ``OutboxEntry/serverRevision``; kept until the copy has taken
        /// that revision in.
        case acknowledged
        /// Refused by the server for good; the copy no longer shows it. ``OutboxEntry/answer``
        /// is the server's problem document.
        case rejected
    }

    /// The order the device made its writes in (across catalogues); what the outbox lists by.
    public var sequence: Int
    public var catalog: String
    /// The client id and number the write is sent with: each followed catalogue numbers its
    /// writes 1, 2, 3… under an id of its own (nil for a write answered before the device
    /// numbered per catalogue).
    public var client: String?
    public var number: Int?
    /// The batch as JSON (docs/Batches-and-moves.md), as it is sent.
    public var batch: String
    public var state: State
    /// The server revision of an acknowledged write.
    public var serverRevision: Int?
    /// The HTTP status and body of the server's refusal, for a rejected write.
    public var status: Int?
    public var answer: String?
}

/// The outbox: a device's writes waiting for the server, their numbers, and how the server's
/// answers settle them (docs/Following-a-server.md).
extension CatalogStore {
    /// The queued writes, oldest first: every one still pending or acknowledged, and the
    /// rejected ones until ``removeRejected(upTo:)``; only those of `catalog` when given.
    public func outbox(of catalog: String? = nil) throws(StoreError) -> [OutboxEntry] {
        try read { db in try Self.outbox(of: catalog, in: db) }
    }

    /// The oldest pending write to one of `catalogs` and the pending writes after it to the same
    /// catalogue under the same client id, numbers consecutive, up to `limit` in all: what one
    /// request sends. Writes to other catalogues in between do not matter: each catalogue's
    /// writes are numbered on their own.
    package func nextPending(in catalogs: [String], limit: Int) throws(StoreError) -> [OutboxEntry] {
        guard !catalogs.isEmpty else { return [] }
        let places = catalogs.map { _ in "?" }.joined(separator: ", ")
        return try read { db in
            guard let head = try Row.fetchOne(db, sql: """
                SELECT * FROM outbox WHERE state = 'pending' AND number IS NOT NULL AND catalog IN (\(places)) ORDER BY sequence LIMIT 1
                """, arguments: StatementArguments(catalogs)).map(Self.entry), let client = head.client, let number = head.number else { return [] }
            var run: [OutboxEntry] = []
            for row in try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE client = ? AND number >= ? ORDER BY number LIMIT ?",
                                        arguments: [client, number, limit]) {
                let entry = Self.entry(row)
                guard entry.number == number + run.count, entry.state == .pending else { break }
                run.append(entry)
            }
            return run
        }
    }

    /// Gives catalogue `name` a new client id and numbers its pending writes afresh under it, in
    /// the order they were made — when the server shows that another device shares the id (a
    /// copied database), or that it lost its record of the id: a new id has no history on any
    /// server, so each waiting write is applied once — and devices that share the waiting writes
    /// take the same one (`derivedClientID`). Returns the new id.
    package func renumber(_ name: String) throws(StoreError) -> String {
        try writeWithoutRevision { db in try Self.renumber(name, in: db) }
    }

    /// Why a server's record of a client id does not fit the device's.
    package enum ForeignRecord: Sendable {
        /// The server's last number of `client` is `number`: it lost the writes numbered after it
        /// (restored from a backup). Those this device had acknowledged wait again — and those it
        /// confirmed, unless the catalogue moved to another address the stream has not checked yet.
        case lostAfter(client: String, number: Int)
        /// Another device writes under `client` (a copy of this database): its acknowledged and
        /// confirmed writes are the other device's history as much as this one's, and this
        /// device, taking a new id, leaves them to it — two devices never send one write twice.
        case sharedWithAnotherDevice(client: String)
    }

    /// ``renumber(_:)``, in the same transaction as what `record` calls for first; for a server that
    /// lost its record, only when the writes waiting do not follow it under their numbers (then
    /// the id is returned unchanged).
    package func renumber(_ name: String, because record: ForeignRecord) throws(StoreError) -> String {
        try writeWithoutRevision { db in
            switch record {
            case .lostAfter(let client, let number):
                // The confirmed ones too, once the stream has seen that the server is the
                // database that confirmed them (not a copy of chosen catalogues, which has them
                // without their records).
                let checked = try Bool.fetchOne(db, sql: "SELECT identity_checked = 1 FROM followed_catalog WHERE name = ?", arguments: [name])
                _ = try Self.resendLost(name, client: client, after: number, confirmedToo: checked == true, in: db)
                // Waiting now under their numbers from the server's next one on, the writes follow
                // its record as they are: sent so, each is applied once — also when another device
                // holds it (a copy), whose resend the server answers as the write it is. A new id
                // would make a write two devices hold two writes.
                let waiting = try Row.fetchAll(db, sql: "SELECT client, number FROM outbox WHERE catalog = ? AND state = 'pending' ORDER BY sequence",
                                               arguments: [name])
                let leading = waiting.prefix { $0["client"] as String? == client }
                if !leading.isEmpty,
                   leading.enumerated().allSatisfy({ $0.element["number"] as Int? == number + 1 + $0.offset }),
                   !waiting.dropFirst(leading.count).contains(where: { $0["client"] as String? == client }) {
                    return client
                }
            case .sharedWithAnotherDevice(let client):
                try db.execute(sql: "DELETE FROM confirmed_write WHERE catalog = ? AND client = ?", arguments: [name, client])
            }
            return try Self.renumber(name, in: db)
        }
    }

    /// The writes of `client` numbered after `number` that this device had acknowledged (and,
    /// with `confirmedToo`, confirmed) wait again, in their places and under their numbers; how many.
    static func resendLost(_ name: String, client: String, after number: Int, confirmedToo: Bool = true,
                                   in db: Database) throws -> Int {
        let later: StatementArguments = [name, client, number]
        try db.execute(sql: """
            UPDATE outbox SET state = 'pending', server_revision = NULL
            WHERE catalog = ?1 AND client = ?2 AND state = 'acknowledged' AND number > ?3
            """, arguments: later)
        var resent = db.changesCount
        guard confirmedToo else { return resent }
        try db.execute(sql: """
            INSERT INTO outbox (sequence, catalog, client, number, batch, state)
            SELECT sequence, catalog, client, number, batch, 'pending' FROM confirmed_write
            WHERE catalog = ?1 AND client = ?2 AND number > ?3
            """, arguments: later)
        resent += db.changesCount
        try db.execute(sql: "DELETE FROM confirmed_write WHERE catalog = ?1 AND client = ?2 AND number > ?3", arguments: later)
        return resent
    }

    static func renumber(_ name: String, in db: Database) throws -> String {
        let rows = try Row.fetchAll(db, sql: "SELECT sequence, client, number, batch FROM outbox WHERE catalog = ? AND state = 'pending' ORDER BY sequence",
                                    arguments: [name])
        let pending = rows.map { $0["sequence"] as Int }
        // The new id is named by the history it goes on from: the first waiting write under its
        // old id and number. Two devices seeded from one file that both number afresh the writes
        // they share (made before the copy, waiting on both) take the same id, so the server
        // answers the second device's as the one write each is; from where their writes differ,
        // the ids differ. With nothing waiting, nothing is shared: a random id.
        let client = rows.first.map { row in
            derivedClientID(from: row["client"] ?? "", number: row["number"] ?? 0, batch: row["batch"] ?? "")
        } ?? newClientID()
        // Out of the way of the unique numbers first, then numbered.
        try db.execute(sql: "UPDATE outbox SET client = NULL, number = NULL WHERE catalog = ? AND state = 'pending'", arguments: [name])
        for (index, sequence) in pending.enumerated() {
            try db.execute(sql: "UPDATE outbox SET client = ?, number = ? WHERE sequence = ?", arguments: [client, index + 1, sequence])
        }
        try db.execute(sql: "UPDATE followed_catalog SET client = ?, last_number = ? WHERE name = ?", arguments: [client, pending.count, name])
        return client
    }

    /// The server's history of `name` went back to revision `revision` (a restored backup): the
    /// writes acknowledged at a later revision are no longer on it, and wait again under their
    /// numbers (the server's record of the client went back with it; when the numbers no longer
    /// follow it, the server says so and they are numbered afresh). One transaction; the number
    /// of writes sent again.
    package func resend(acknowledgedAfter revision: Int, in name: String) throws(StoreError) -> Int {
        try writeWithoutRevision { db in
            try db.execute(sql: "UPDATE outbox SET state = 'pending', server_revision = NULL WHERE catalog = ? AND state = 'acknowledged' AND server_revision > ?",
                           arguments: [name, revision])
            return db.changesCount
        }
    }

    /// What the server's stream said of the device's writes before a whole catalogue at revision
    /// `revision`: under `client`, every number up to `number` is settled there and none later
    /// exists. In one transaction:
    /// - the writes acknowledged at a revision up to `revision` with a later number are not on the
    ///   server (its history is not the one that acknowledged them): they wait again, under their
    ///   numbers, which follow the server's record — and so do those acknowledged at a later
    ///   revision with a later number, once the history is known to have changed (one such write,
    ///   or `historyChanged`). Without that, a later write may just have been applied after the
    ///   server read its record, and is left as it is;
    /// - a `number` past the last this device gave under the id means another device writes under
    ///   it (a copied or restored database): the device takes a new id — at once when no write of
    ///   it waits, else once the server has answered the waiting ones (those made before the copy
    ///   wait on both devices, and are one write each).
    /// An acknowledgement for another id than the catalogue's changes nothing.
    package func reconcile(_ name: String, client: String, number: Int, revision: Int,
                           historyChanged: Bool = false) throws(StoreError) -> (resent: Int, newClient: String?) {
        try writeWithoutRevision { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT client, last_number FROM followed_catalog WHERE name = ?", arguments: [name]),
                  row[0] as String? == client else { return (0, nil) }
            if number > row[1] as Int {
                // Its acknowledged and confirmed writes are the other device's history too.
                try db.execute(sql: "DELETE FROM confirmed_write WHERE catalog = ? AND client = ?", arguments: [name, client])
                // A write waiting since before the copy is waiting on the other device as well:
                // sent under its number, it is answered as the one write it is (or refused as
                // "number taken" when the other device's write has the number, and then numbered
                // afresh). Only with none waiting does the device take a new id at once.
                let waiting = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM outbox WHERE catalog = ? AND client = ? AND state = 'pending')",
                                                arguments: [name, client]) ?? false
                return (0, waiting ? nil : try Self.renumber(name, in: db))
            }
            let arguments: StatementArguments = [name, client, number, revision]
            let lost = try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM outbox
                        WHERE catalog = ?1 AND client = ?2 AND state = 'acknowledged' AND number > ?3 AND server_revision <= ?4)
                     + (SELECT count(*) FROM confirmed_write WHERE catalog = ?1 AND client = ?2 AND number > ?3 AND server_revision <= ?4)
                """, arguments: arguments) ?? 0
            guard lost > 0 || historyChanged else { return (0, nil) }
            return (try Self.resendLost(name, client: client, after: number, in: db), nil)
        }
    }

    /// How many of each followed catalogue's confirmed writes the device keeps, to send again to
    /// a server that loses them (restored from an older backup).
    package static let confirmedWritesKept = 1_000

    /// The oldest writes to `catalog` that server revision `revision` does not hold yet (pending,
    /// or acknowledged at a later revision), leaving out `excluded`, at most `limit`.
    package func waiting(in catalog: String, after revision: Int, excluding excluded: Set<Int>, limit: Int) throws(StoreError) -> [OutboxEntry] {
        let list = "[" + excluded.map(String.init).joined(separator: ",") + "]"
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM outbox WHERE catalog = ? AND (state = 'pending' OR (state = 'acknowledged' AND server_revision > ?))
                AND sequence NOT IN (SELECT value FROM json_each(?)) ORDER BY sequence LIMIT ?
                """, arguments: [catalog, revision, list, limit]).map(Self.entry)
        }
    }

    /// Forgets rejected writes up to `sequence` (the app has shown them).
    public func removeRejected(upTo sequence: Int) throws(StoreError) {
        try writeWithoutRevision { db in
            try db.execute(sql: "DELETE FROM outbox WHERE state = 'rejected' AND sequence <= ?", arguments: [sequence])
        }
    }

    static func outbox(of catalog: String?, in db: Database) throws -> [OutboxEntry] {
        let rows = if let catalog {
            try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE catalog = ? ORDER BY sequence", arguments: [catalog])
        } else {
            try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY sequence")
        }
        return rows.map(entry)
    }

    /// Records the server's answers to queued writes (those of one request) in one transaction:
    /// each applied at its `serverRevision`, or refused for good with its `refusal`.
    package func settle(_ answers: [(sequence: Int, serverRevision: Int?, refusal: RecordedAnswer?)]) throws(StoreError) {
        guard !answers.isEmpty else { return }
        try writeWithoutRevision { db in
            for (sequence, serverRevision, refusal) in answers {
                if let refusal {
                    try db.execute(sql: "UPDATE outbox SET state = 'rejected', status = ?, answer = ? WHERE sequence = ? AND state = 'pending'",
                                   arguments: [refusal.status, refusal.body, sequence])
                    // Until the copy is repaired (`takeIn`), it is not to be trusted.
                    try db.execute(sql: "UPDATE followed_catalog SET unrepaired = 1 WHERE name = (SELECT catalog FROM outbox WHERE sequence = ?)",
                                   arguments: [sequence])
                } else {
                    try db.execute(sql: "UPDATE outbox SET state = 'acknowledged', server_revision = ? WHERE sequence = ? AND state = 'pending'",
                                   arguments: [serverRevision, sequence])
                }
            }
        }
    }
}
