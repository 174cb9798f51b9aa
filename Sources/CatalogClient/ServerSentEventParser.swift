/// The event stream format (the WHATWG's `text/event-stream`): lines of `field: value`, an empty
/// line ending an event, `:` starting a comment; `data` lines joined with line breaks.
///
/// A server is not trusted with the reader's memory: a line, or an event's data, longer than
/// ``limit`` bytes makes ``feed(_:)`` throw ``TooLarge`` (the caller drops the stream), so an
/// endless line costs at most that much.
package struct ServerSentEventParser {
    /// The default bound on one line and on one event's data.
    package static let defaultLimit = 64 << 20

    /// A line or an event past the bound.
    package struct TooLarge: Error, CustomStringConvertible {
        package var limit: Int
        package var description: String { "the server sent an event or a line of more than \(limit) bytes" }
    }

    package struct Event: Equatable, Sendable {
        package var event = "message"
        package var id: String?
        package var data = ""
        /// The catalogue an event of a stream of many (`POST /events`) belongs to: its
        /// `catalog:` line, a field of CatalogKit's that other readers ignore.
        package var catalog: String?

        package init(event: String = "message", id: String? = nil, data: String = "", catalog: String? = nil) {
            (self.event, self.id, self.data, self.catalog) = (event, id, data, catalog)
        }

        /// The revision the event's id names: nil without an id; ``InvalidID`` for an id that is
        /// not a revision (an integer from 0), which no server of CatalogKit sends.
        package func revision() throws(InvalidID) -> Int? {
            guard let id else { return nil }
            guard id.utf8.count <= 19, !id.isEmpty, id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let revision = Int(id) else { throw InvalidID(id: id) }
            return revision
        }
    }

    /// An event id that is not a revision.
    package struct InvalidID: Error, CustomStringConvertible {
        package var id: String
        package var description: String { "the server sent the event id \"\(id.prefix(40))\", which is not a revision" }
    }

    package let limit: Int

    package init(limit: Int = ServerSentEventParser.defaultLimit) { self.limit = max(1, limit) }

    private var line: [UInt8] = []
    private var current = Event()
    private var hasData = false

    package mutating func feed(_ bytes: some Sequence<UInt8>) throws(TooLarge) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let event = take(String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self)) {
                    events.append(event)
                }
                line.removeAll(keepingCapacity: line.count <= 1 << 16)
                if current.data.utf8.count > limit { throw TooLarge(limit: limit) }
            } else {
                guard line.count < limit else { throw TooLarge(limit: limit) }
                line.append(byte)
            }
        }
        return events
    }

    private mutating func take(_ line: String) -> Event? {
        if line.isEmpty {
            defer { (current, hasData) = (Event(), false) }
            return hasData ? current : nil
        }
        if line.hasPrefix(":") { return nil }
        let (field, value) = line.firstIndex(of: ":").map { colon in
            // One space after the colon is not part of the value.
            let value = line[line.index(after: colon)...]
            return (String(line[..<colon]), String(value.first == " " ? value.dropFirst() : value))
        } ?? (line, "")
        switch field {
        case "event": current.event = value
        case "id": current.id = value
        case "catalog": current.catalog = value
        case "data":
            current.data += hasData ? "\n" + value : value
            hasData = true
        default: break
        }
        return nil
    }
}
