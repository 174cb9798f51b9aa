import CatalogModel
import Foundation

/// Reads batch files (docs/Batches-and-moves.md) — `{"baseRevision": 12, "operations": [{"op": "moveItem", …}]}` —
/// into a ``Batch``, with the same errors as catalogue files: the file, the path inside it
/// (`operations[3].index`) and what was expected. Items and sections are read by the catalogue
/// decoder, so they follow exactly the catalogue format's rules; batch items and sections must
/// carry their `id`.
public enum BatchReader {
    public static func read(contentsOf url: URL) throws(ImportError) -> Batch {
        let name = url.relativePath
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImportError(file: name, reason: .unreadable(FileManager.default.fileExists(atPath: url.path)
                ? error.localizedDescription : "no such file"))
        }
        return try decode(data, fileName: name)
    }

    /// Decodes a batch from JSON (or a property list of the same shape) bytes, within `limits`:
    /// the operations and the items they insert are at most `maxItems`, the sections they insert
    /// at most `maxSections`.
    public static func decode(_ data: Data, fileName: String, limits: DocumentLimits = .files) throws(ImportError) -> Batch {
        if data.isEmpty { throw ImportError(file: fileName, reason: .empty) }
        let format: CatalogFileFormat = CatalogFileFormat(fileName: fileName) ?? (data.starts(with: Data("bplist".utf8)) ? .plist : .json)
        let root = try CatalogImporter.parse(data, format: format, fileName: fileName, limits: limits)
        let batch = try BatchDecoding(fileName: fileName).batch(root)
        var (items, sections) = (batch.operations.count, 0)
        for operation in batch.operations {
            switch operation {
            case .insertItem: items += 1
            case .insertSection(_, let section): (items, sections) = (items + section.items.count, sections + 1)
            default: break
            }
        }
        if let (what, limit) = limits.excess(items: items, sections: sections) {
            throw ImportError(file: fileName, path: "operations", reason: .tooLarge("more than \(limit) \(what) in one batch"))
        }
        return batch
    }

    /// Decodes a JSON array of batches (a client's numbered writes sent together, each a batch
    /// document), within `limits` counted over all of them and at most `maxBatches` batches.
    /// Errors name the batch: `[2].operations[0].id`.
    public static func decodeList(_ data: Data, fileName: String, limits: DocumentLimits = .files, maxBatches: Int) throws(ImportError) -> [Batch] {
        if data.isEmpty { throw ImportError(file: fileName, reason: .empty) }
        let root = try CatalogImporter.parse(data, format: .json, fileName: fileName, limits: limits)
        guard case .array(let elements) = root, !elements.isEmpty else {
            throw ImportError(file: fileName, reason: .wrongType(expected: "a non-empty array of batches [{\"operations\": […]}, …]",
                                                                 found: root.typeDescription))
        }
        guard elements.count <= maxBatches else {
            throw ImportError(file: fileName, reason: .tooLarge("more than \(maxBatches) batches in one request"))
        }
        var batches: [Batch] = []
        var (items, sections) = (0, 0)
        for (index, element) in elements.enumerated() {
            do {
                let batch = try BatchDecoding(fileName: fileName).batch(element)
                for operation in batch.operations {
                    switch operation {
                    case .insertSection(_, let section): (items, sections) = (items + section.items.count + 1, sections + 1)
                    default: items += 1
                    }
                }
                batches.append(batch)
            } catch {
                var located = error
                located.path = located.path.isEmpty ? "[\(index)]" : "[\(index)].\(located.path)"
                throw located
            }
        }
        if let (what, limit) = limits.excess(items: items, sections: sections) {
            throw ImportError(file: fileName, reason: .tooLarge("more than \(limit) \(what) in one request"))
        }
        return batches
    }

    /// Decodes the JSON body of a single move — `{"item": ID, "toSection": ID, "index": N,
    /// "policy": "reject"|"displace"|"swap", "baseRevision": N}`, index, policy and base revision
    /// optional — into a batch of one `moveItem`, with the same errors as a batch file.
    public static func decodeMove(_ data: Data, fileName: String) throws(ImportError) -> Batch {
        if data.isEmpty { throw ImportError(file: fileName, reason: .empty) }
        return try BatchDecoding(fileName: fileName).move(try CatalogImporter.parse(data, format: .json, fileName: fileName, limits: .files))
    }
}

/// The walk over a parsed batch file.
private struct BatchDecoding {
    let fileName: String

    func error(_ path: String, _ reason: ImportError.Reason) -> ImportError {
        ImportError(file: fileName, path: path, reason: reason)
    }

    func batch(_ root: PropertyValue) throws(ImportError) -> Batch {
        let fields = try dictionary(root, at: "", expected: "a batch: {\"baseRevision\": N, \"operations\": […]}")
        try refuseUnknownKeys(fields, known: ["baseRevision", "operations"], at: "")
        let base = try fields["baseRevision"].map { v throws(ImportError) in try integer(v, at: "baseRevision") }
        guard let operationsValue = fields["operations"] else {
            throw error("operations", .missingField(expected: "an array of operations"))
        }
        guard case .array(let values) = operationsValue else {
            throw error("operations", .wrongType(expected: "an array of operations", found: operationsValue.typeDescription))
        }
        var operations: [BatchOperation] = []
        for (index, value) in values.enumerated() {
            operations.append(try operation(value, at: "operations[\(index)]"))
        }
        return Batch(baseRevision: base, operations: operations)
    }

    static let keys: [String: Set<String>] = [
        "insertItem": ["op", "section", "index", "item"],
        "deleteItem": ["op", "id"],
        "updateItem": ["op", "id", "fields"],
        "moveItem": ["op", "id", "toSection", "index", "policy"],
        "insertSection": ["op", "index", "section"],
        "deleteSection": ["op", "id"],
        "moveSection": ["op", "id", "index"],
        "updateSection": ["op", "id", "fields"],
    ]
    static let moveKeys: Set<String> = ["item", "toSection", "index", "policy", "baseRevision"]
    static let names = ["insertItem", "deleteItem", "updateItem", "moveItem", "insertSection", "deleteSection", "moveSection", "updateSection"]

    func operation(_ value: PropertyValue, at path: String) throws(ImportError) -> BatchOperation {
        let fields = try dictionary(value, at: path, expected: "an operation dictionary with \"op\"")
        guard let opValue = fields["op"] else {
            throw error(path + ".op", .missingField(expected: "one of " + Self.names.joined(separator: ", ")))
        }
        let op = try string(opValue, at: path + ".op")
        guard let known = Self.keys[op] else {
            throw error(path + ".op", .invalidValue(expected: "one of " + Self.names.joined(separator: ", "), found: "\"\(op)\""))
        }
        try refuseUnknownKeys(fields, known: known, at: path)
        func required(_ key: String) throws(ImportError) -> PropertyValue {
            guard let value = fields[key] else { throw error("\(path).\(key)", .missingField(expected: key == "index" ? "an integer" : "a value")) }
            return value
        }
        func id(_ key: String = "id") throws(ImportError) -> String {
            try nonEmptyString(try required(key), at: "\(path).\(key)")
        }
        func index() throws(ImportError) -> Int {
            try integer(try required("index"), at: "\(path).index")
        }
        switch op {
        case "insertItem":
            return .insertItem(section: try id("section"), index: try index(), item: try item(try required("item"), at: "\(path).item"))
        case "deleteItem":
            return .deleteItem(id: try id())
        case "updateItem":
            return .updateItem(id: try id(), fields: try itemFields(try required("fields"), at: "\(path).fields"))
        case "moveItem":
            return try moveItem(fields, itemKey: "id", at: path)
        case "insertSection":
            return .insertSection(index: try index(), section: try section(try required("section"), at: "\(path).section"))
        case "deleteSection":
            return .deleteSection(id: try id())
        case "moveSection":
            return .moveSection(id: try id(), index: try index())
        default:
            return .updateSection(id: try id(), fields: try sectionFields(try required("fields"), at: "\(path).fields"))
        }
    }

    /// A `moveItem` operation from its fields: the book under `itemKey` ("id" in a batch, "item"
    /// in a move request), `toSection`, and optionally `index` and `policy`.
    func moveItem(_ fields: [String: PropertyValue], itemKey: String, at path: String) throws(ImportError) -> BatchOperation {
        func at(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        func id(_ key: String) throws(ImportError) -> String {
            guard let value = fields[key] else { throw error(at(key), .missingField(expected: "a string")) }
            return try nonEmptyString(value, at: at(key))
        }
        var policy = MovePolicy.reject
        if let value = fields["policy"] {
            let name = try string(value, at: at("policy"))
            guard let parsed = MovePolicy(rawValue: name) else {
                throw error(at("policy"), .invalidValue(expected: "one of reject, displace, swap", found: "\"\(name)\""))
            }
            policy = parsed
        }
        // Without an index, the book goes to the end of the shelf.
        let index = try fields["index"].map { v throws(ImportError) in try integer(v, at: at("index")) }
        return .moveItem(id: try id(itemKey), toSection: try id("toSection"), index: index, policy: policy)
    }

    /// The body of a move request: `{"item", "toSection", "index"?, "policy"?, "baseRevision"?}`.
    func move(_ root: PropertyValue) throws(ImportError) -> Batch {
        let fields = try dictionary(root, at: "", expected: "a move: {\"item\": ID, \"toSection\": ID, \"index\": N, \"policy\": P}")
        try refuseUnknownKeys(fields, known: Self.moveKeys, at: "")
        let base = try fields["baseRevision"].map { v throws(ImportError) in try integer(v, at: "baseRevision") }
        return Batch(baseRevision: base, operations: [try moveItem(fields, itemKey: "item", at: "")])
    }

    /// An item with its own `kind` and `id` (a batch item has no section to imply them).
    func item(_ value: PropertyValue, at path: String) throws(ImportError) -> Item {
        let fields = try dictionary(value, at: path, expected: "an item dictionary")
        guard let kindValue = fields["kind"] else { throw error(path + ".kind", .missingField(expected: "one of video, book, icon")) }
        let kindName = try string(kindValue, at: path + ".kind")
        guard let kind = ItemKind(rawValue: kindName) else {
            throw error(path + ".kind", .invalidValue(expected: "one of video, book, icon", found: "\"\(kindName)\""))
        }
        guard fields["id"] != nil else { throw error(path + ".id", .missingField(expected: "a string (batch items need an id)")) }
        var decoder = CatalogDecoder(fileName: fileName, options: ImportOptions())
        return try decoder.item(value, kind: kind, at: Location(layout: .prefixed(path), section: 0, item: nil))
    }

    func section(_ value: PropertyValue, at path: String) throws(ImportError) -> Section {
        let fields = try dictionary(value, at: path, expected: "a section dictionary")
        guard fields["id"] != nil else { throw error(path + ".id", .missingField(expected: "a string (batch sections need an id)")) }
        if case .array(let items)? = fields["items"] {
            for (i, item) in items.enumerated() {
                if case .dictionary(let itemFields) = item, itemFields["id"] == nil {
                    throw error("\(path).items[\(i)].id", .missingField(expected: "a string (batch items need an id)"))
                }
            }
        }
        var decoder = CatalogDecoder(fileName: fileName, options: ImportOptions())
        return try decoder.nativeSection(value, at: Location(layout: .prefixed(path), section: 0, item: nil))
    }

    /// The keys an `updateItem` may change: every content field of the field table, by its own
    /// name, and the size as one `[width, height]`.
    static let updatableItemKeys = Set(ItemKind.allCases.flatMap { ItemField.content(of: $0).map(\.rawValue) } + ["size"])

    func itemFields(_ value: PropertyValue, at path: String) throws(ImportError) -> ItemFields {
        let fields = try dictionary(value, at: path, expected: "a dictionary of item fields")
        try refuseUnknownKeys(fields, known: Self.updatableItemKeys, at: path)
        var result = ItemFields()
        for field in ItemField.allCases {
            guard let type = field.contentType, let value = fields[field.rawValue] else { continue }
            let at = "\(path).\(field.rawValue)"
            switch type {
            case .text:
                result.content[field] = .some(.text(try nonEmptyString(value, at: at)))
            case .optionalText:
                if case .null = value { result.content[field] = .some(nil) } else { result.content[field] = .some(.text(try string(value, at: at))) }
            case .count:
                result.content[field] = .some(.count(try CatalogDecoder.counter(fileName, value, at: at)))
            case .status:
                let name = try string(value, at: at)
                guard VideoStatus(rawValue: name) != nil else {
                    throw error(at, .invalidValue(expected: "one of " + VideoStatus.allCases.map(\.rawValue).joined(separator: ", "),
                                                  found: "\"\(name)\""))
                }
                result.content[field] = .some(.text(name))
            }
        }
        if let value = fields["size"] {
            if case .null = value {
                result.size = .some(nil)
            } else {
                let decoder = CatalogDecoder(fileName: fileName, options: ImportOptions())
                result.size = .some(try decoder.size(value, at: "\(path).size"))
            }
        }
        return result
    }

    func sectionFields(_ value: PropertyValue, at path: String) throws(ImportError) -> SectionFields {
        let fields = try dictionary(value, at: path, expected: "a dictionary of section fields")
        try refuseUnknownKeys(fields, known: ["title", "capacity"], at: path)
        var result = SectionFields()
        if let value = fields["title"] {
            if case .null = value { result.title = .some(nil) } else { result.title = .some(try string(value, at: "\(path).title")) }
        }
        if let value = fields["capacity"] {
            if case .null = value {
                result.capacity = .some(nil)
            } else {
                let capacity = try integer(value, at: "\(path).capacity")
                guard Section.capacities.contains(capacity) else {
                    throw error("\(path).capacity", .invalidValue(expected: Section.capacityExpectation, found: "\(capacity)"))
                }
                result.capacity = .some(capacity)
            }
        }
        return result
    }

    // MARK: Values

    func dictionary(_ value: PropertyValue, at path: String, expected: String) throws(ImportError) -> [String: PropertyValue] {
        guard case .dictionary(let fields) = value else { throw error(path, .wrongType(expected: expected, found: value.typeDescription)) }
        return fields
    }

    func refuseUnknownKeys(_ fields: [String: PropertyValue], known: Set<String>, at path: String) throws(ImportError) {
        // Sorted only to name the first unknown key in a stable order, so only when there is one.
        guard fields.keys.contains(where: { !known.contains($0) }) else { return }
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw error(path.isEmpty ? unknown : "\(path).\(unknown)",
                        .invalidValue(expected: "one of the keys " + known.sorted().joined(separator: ", "), found: "the unknown key \"\(unknown)\""))
        }
    }

    func string(_ value: PropertyValue, at path: String) throws(ImportError) -> String {
        try CatalogDecoder.string(fileName, value, at: path)
    }

    func nonEmptyString(_ value: PropertyValue, at path: String) throws(ImportError) -> String {
        try CatalogDecoder.nonEmptyString(fileName, value, at: path)
    }

    func integer(_ value: PropertyValue, at path: String) throws(ImportError) -> Int {
        try CatalogDecoder.integer(fileName, value, at: path)
    }
}
