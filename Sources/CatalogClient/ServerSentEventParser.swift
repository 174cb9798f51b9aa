/// The event stream format (the WHATWG's `text/event-stream`): lines of `field: value`, an empty
/// line ending an event, `:` starting a comment; `data` lines joined with line breaks.
package struct ServerSentEventParser {
    package struct Event: Equatable, Sendable {
        package var event = "message"
        package var id: String?
        package var data = ""

        package init(event: String = "message", id: String? = nil, data: String = "") {
            (self.event, self.id, self.data) = (event, id, data)
        }
    }

    package init() {}

    private var line: [UInt8] = []
    private var current = Event()
    private var hasData = false

    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let event = take(String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self)) {
                    events.append(event)
                }
                line.removeAll(keepingCapacity: true)
            } else {
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
            (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        } ?? (line, "")
        switch field {
        case "event": current.event = value
        case "id": current.id = value
        case "data":
            current.data += hasData ? "\n" + value : value
            hasData = true
        default: break
        }
        return nil
    }
}
