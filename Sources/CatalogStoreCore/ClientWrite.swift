import CatalogModel

/// A write that a client numbered: a device sending its queued writes in order, each with its
/// client id and the next sequence number (docs/Following-a-server.md).
///
/// The database records the last number of each client in the same transaction as the write, so
/// a write is applied once however often it is sent: a resend of a write of the client's last
/// request is answered with the answer recorded for it, and any other number but the next is
/// refused (``StoreError/outOfSequence(client:sequence:expected:)``).
public struct ClientWrite: Sendable, Hashable {
    /// The client's id: 1 to ``maximumClientLength`` characters of letters, digits and `-._:`.
    public var client: String
    /// The write's number: 1 for a client's first write, one more for each after it.
    public var sequence: Int
    /// The number of the first write of the request that carries this one (``sequence`` when it
    /// is sent alone). The database keeps the answers to the client's writes from that number
    /// on — its last request's — so a resend of the whole request gets each answer again.
    public var requestStart: Int

    /// The longest client id a database records.
    public static let maximumClientLength = 128

    /// How many of a client's last numbers a database keeps the answers to (and the writes'
    /// fingerprints), at least those of its last request: a resend of any of them gets its
    /// answer again. More than the last request, because a device database copied with writes
    /// waiting sends those writes from both devices; the second to send one is answered as the
    /// write it is — applied once — not taken for another device's.
    package static let answersKept = 100

    /// A numbered write; `requestStart` is the number of the first write of its request, when
    /// the request carries several (no later than `sequence`).
    public init(client: String, sequence: Int, requestStart: Int? = nil) {
        self.client = client
        self.sequence = sequence
        self.requestStart = min(requestStart ?? sequence, sequence)
    }

    /// Why `client` cannot be a client id, in a sentence; nil when it can.
    public static func problem(withClient client: String) -> String? {
        guard !client.isEmpty, client.utf8.count <= maximumClientLength else {
            return "a client id has 1 to \(maximumClientLength) characters, found \(client.utf8.count)"
        }
        let allowed = client.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x3A
        }
        return allowed ? nil : "a client id holds only letters, digits and - . _ :, found \"\(client)\""
    }

    /// Whether the write is the next one after the client's last recorded number `last` (0: none
    /// recorded): only the next number may be applied, or take a refusal as its answer.
    package func follows(_ last: Int) -> Bool { sequence == last + 1 }

    /// Throws ``StoreError/outOfSequence(client:sequence:expected:)`` unless the write
    /// ``follows(_:)`` `last`.
    package func check(last: Int) throws(StoreError) {
        guard follows(last) else {
            throw StoreError.outOfSequence(client: client, sequence: sequence, expected: last + 1)
        }
    }

    /// Whether `error` refused this write because its number is already recorded: a resend, to
    /// be answered with its recorded answer while that is kept.
    package func isResend(refusedWith error: StoreError) -> Bool {
        guard case .outOfSequence(_, let sent, let expected) = error else { return false }
        return sent == sequence && sent < expected
    }

    /// What a resend of this write (``isResend(refusedWith:)``), whose batch has `fingerprint`,
    /// gets, given the answer recorded under its number: that answer, when the recorded write was
    /// this one — or ``StoreError/numberTaken(client:sequence:)`` when another write took the
    /// number (two devices with one client id). A write refused before it could be read has no
    /// fingerprint and is answered as recorded.
    package func replay(_ recorded: RecordedAnswer, fingerprint: String) throws(StoreError) -> ClientWriteOutcome {
        if let taken = recorded.fingerprint, taken != fingerprint {
            throw StoreError.numberTaken(client: client, sequence: sequence)
        }
        // The answer as it was sent; the fingerprint is the server's bookkeeping.
        return .answeredBefore(RecordedAnswer(status: recorded.status, body: recorded.body))
    }

    /// What tells two writes apart under one number: a 64-bit FNV-1a hash of the batch's JSON, in
    /// hex — the same on every backend and in every process. `batch` is canonical
    /// (`Batch.canonicalized()`), as the stores hold it.
    package static func fingerprint(of batch: Batch) -> String {
        FNV1a.hex(of: batch.json.utf8)
    }
}

/// What a server answered a numbered write, kept with its number: a resend gets it again.
public struct RecordedAnswer: Sendable, Hashable {
    /// The HTTP status of the answer.
    public var status: Int
    /// The answer's body (the write's result, or the problem document of a refusal).
    public var body: String
    /// A hash of the write answered (the canonical batch's JSON), when it could be read: a
    /// resend must carry the same write (``StoreError/numberTaken(client:sequence:)``).
    public var fingerprint: String?

    public init(status: Int, body: String, fingerprint: String? = nil) {
        self.status = status
        self.body = body
        self.fingerprint = fingerprint
    }

    /// Whether an answer of `status`, with a problem document of type `kind` (`shelf-full`),
    /// refuses the write for good, so that sending it again gets the same answer: a full shelf,
    /// an unknown id, a malformed body. Not a refusal that may pass later — a stale revision, a
    /// missing token, a number out of sequence, a busy or failing server — nor a success. The
    /// server records the former with the write's number; a client stops resending it.
    public static func refusesForGood(status: Int, kind: String?) -> Bool {
        (400..<500).contains(status) && ![401, 403, 408, 412, 429].contains(status)
            && !["stale-revision", "out-of-sequence", "number-taken"].contains(kind ?? "")
    }
}

/// The outcome of a numbered write: applied now, or answered before.
public enum ClientWriteOutcome: Sendable, Hashable {
    /// The write was applied now, and `answer` recorded with its number (what to answer now).
    case applied(WriteResult, answer: RecordedAnswer)
    /// The write's number is recorded, with its answer, from the client's last request: this is
    /// a resend, answered as the first time and not applied again.
    case answeredBefore(RecordedAnswer)
}

/// What a database knows of a client's numbered writes at one read: its last number, and where
/// its last applied write landed. Read after a snapshot at revision R, it says exactly which of
/// the client's writes that snapshot holds (``acknowledged(in:at:)``) — what the event stream
/// tells a device with its snapshot (docs/Following-a-server.md#what-the-stream-says-of-the-device).
public struct ClientPosition: Sendable, Hashable {
    /// The client's last recorded number (applied or refused for good).
    public var lastSequence: Int
    /// The catalogue of the client's last applied write (nil when none was applied).
    public var catalog: String?
    /// The catalogue's revision after the client's last applied write; 0 when none was applied;
    /// nil when the record is older than the database's keeping it (schema version 12).
    public var revision: Int?

    public init(lastSequence: Int, catalog: String?, revision: Int?) {
        self.lastSequence = lastSequence
        self.catalog = catalog
        self.revision = revision
    }

    /// The client's last number that catalogue `name` at `revision` holds — every number up to it
    /// is settled there (applied in that state, or refused), and the client has no later one —
    /// or nil when this record cannot say: its last applied write landed after `revision` or in
    /// another catalogue, or the record predates what it keeps. A client with no record at all
    /// has 0 (``acknowledged(_:in:at:)``).
    public func acknowledged(in name: String, at revision: Int) -> Int? {
        guard let landed = self.revision else { return nil }
        if landed == 0 { return lastSequence }
        guard catalog == name, landed <= revision else { return nil }
        return lastSequence
    }

    /// ``acknowledged(in:at:)`` for a client that may have no record (then 0: nothing of it is there).
    public static func acknowledged(_ position: ClientPosition?, in name: String, at revision: Int) -> Int? {
        guard let position else { return 0 }
        return position.acknowledged(in: name, at: revision)
    }
}

/// A client's record of numbered writes in a database: its last number and the answers to its
/// last request. A whole copy of a database carries them (``CatalogDatabase/clientRecords()``),
/// so that devices go on numbering where they were and a resend across the move is answered.
public struct ClientRecord: Sendable, Hashable {
    public var client: String
    /// The client's last recorded number.
    public var lastSequence: Int
    /// The answers to the writes of its last request, by number.
    public var answers: [Int: RecordedAnswer]
    /// Where its last applied write landed (``ClientPosition``).
    public var catalog: String?
    public var revision: Int?

    public init(client: String, lastSequence: Int, answers: [Int: RecordedAnswer], catalog: String? = nil, revision: Int? = nil) {
        self.client = client
        self.lastSequence = lastSequence
        self.answers = answers
        self.catalog = catalog
        self.revision = revision
    }

    /// The record, checked before a store writes it: a client id, a number from 1, and answers
    /// only to numbers up to it. Throws ``StoreError/database(_:)`` naming what is wrong.
    package func validated() throws(StoreError) -> ClientRecord {
        if let problem = ClientWrite.problem(withClient: client) { throw StoreError.database("a client record: \(problem)") }
        guard lastSequence >= 1 else { throw StoreError.database("the client record of \(client) has no write number") }
        if let stray = answers.keys.first(where: { !(1...lastSequence).contains($0) }) {
            throw StoreError.database("the client record of \(client) answers write \(stray), outside 1…\(lastSequence)")
        }
        return self
    }
}
