extension Batch {
    /// The batch as the JSON document of docs/Batches-and-moves.md, compact: what the HTTP API
    /// takes, and what reads back as this batch (the importer's `BatchReader`). A follower's
    /// outbox keeps its writes so and sends them so.
    public var json: String {
        var out = "{"
        if let baseRevision { out += "\"baseRevision\":\(baseRevision),"}
        out += "\"operations\":["
        for (index, operation) in operations.enumerated() {
            if index > 0 { out += "," }
            Self.append(operation, to: &out)
        }
        out += "]}"
        return out
    }

    private static func append(_ operation: BatchOperation, to out: inout String) {
        out += "{\"op\":\"\(operation.name)\""
        func key(_ name: String) { out += ",\"\(name)\":" }
        func text(_ name: String, _ value: String) {
            key(name)
            appendJSONString(value, to: &out)
        }
        switch operation {
        case .insertItem(let section, let index, let item):
            text("section", section)
            key("index"); out += String(index)
            key("item"); append(item, to: &out)
        case .deleteItem(let id):
            text("id", id)
        case .updateItem(let id, let fields):
            text("id", id)
            key("fields"); out += "{"
            var first = true
            for field in ItemField.allCases {
                guard let change = fields.content[field] else { continue }
                out += first ? "" : ","
                first = false
                appendJSONString(field.rawValue, to: &out)
                out += ":"
                append(change, to: &out)
            }
            if let size = fields.size {
                out += first ? "" : ","
                out += "\"size\":"
                if let size { append(size, to: &out) } else { out += "null" }
            }
            out += "}"
        case .moveItem(let id, let toSection, let index, let policy):
            text("id", id)
            text("toSection", toSection)
            if let index { key("index"); out += String(index) }
            text("policy", policy.rawValue)
        case .insertSection(let index, let section):
            key("index"); out += String(index)
            key("section"); append(section, to: &out)
        case .deleteSection(let id):
            text("id", id)
        case .moveSection(let id, let index):
            text("id", id)
            key("index"); out += String(index)
        case .updateSection(let id, let fields):
            text("id", id)
            key("fields"); out += "{"
            var parts: [String] = []
            if let title = fields.title {
                var part = "\"title\":"
                if let title { appendJSONString(title, to: &part) } else { part += "null" }
                parts.append(part)
            }
            if let capacity = fields.capacity { parts.append("\"capacity\":" + (capacity.map(String.init) ?? "null")) }
            out += parts.joined(separator: ",") + "}"
        }
        out += "}"
    }

    private static func append(_ section: Section, to out: inout String) {
        out += "{\"id\":"
        appendJSONString(section.id, to: &out)
        out += ",\"kind\":\"\(section.kind.rawValue)\""
        if let title = section.title {
            out += ",\"title\":"
            appendJSONString(title, to: &out)
        }
        if let capacity = section.capacity { out += ",\"capacity\":\(capacity)" }
        out += ",\"items\":["
        for (index, item) in section.items.enumerated() {
            if index > 0 { out += "," }
            append(item, to: &out)
        }
        out += "]}"
    }

    private static func append(_ item: Item, to out: inout String) {
        out += "{\"id\":"
        appendJSONString(item.id, to: &out)
        out += ",\"kind\":\"\(item.kind.rawValue)\""
        for field in ItemField.content(of: item.kind) {
            guard let value = item.content[field] else { continue }
            out += ","
            appendJSONString(field.rawValue, to: &out)
            out += ":"
            append(value, to: &out)
        }
        if let size = item.size {
            out += ",\"size\":"
            append(size, to: &out)
        }
        out += "}"
    }

    private static func append(_ value: ItemFieldValue?, to out: inout String) {
        switch value {
        case .text(let text)?: appendJSONString(text, to: &out)
        case .count(let count)?: out += String(count)
        case nil: out += "null"
        }
    }

    private static func append(_ size: Size, to out: inout String) {
        out += "[\(number(size.width)),\(number(size.height))]"
    }

    /// A finite number as JSON writes it (an integral one without a fraction).
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
