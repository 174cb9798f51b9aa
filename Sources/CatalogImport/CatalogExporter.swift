import CatalogModel
import Foundation

/// Writes catalogues in the native file format of docs/Catalogue-files.md, so that what `catalog show --json`
/// prints (or `catalog generate` writes) imports again unchanged.
public enum CatalogExporter {
    /// The native JSON of `catalog`: keys in the documented order, every item with `id` and `kind`.
    /// - Parameter includeRevision: adds the top-level `revision` (as `show --json` does).
    public static func json(_ catalog: Catalog, includeRevision: Bool = false, pretty: Bool = true) -> Data {
        Data(jsonValue(catalog, includeRevision: includeRevision).serialized(pretty: pretty).utf8)
    }

    /// The native catalogue as an ordered JSON value, for callers that embed it in a larger document.
    /// A hash of the catalogue's content — its sections and items as the native JSON writes
    /// them, not its name or revision — 16 hex digits of FNV-1a (64 bits). Two catalogues with
    /// the same fingerprint hold, as far as a check against a mix-up needs, the same content: a
    /// device resuming a server's event stream sends it for the revision it stands on, and the
    /// server resumes only if its catalogue at that revision has the same one.
    ///
    /// - Complexity: O(n) in the catalogue's size.
    public static func fingerprint(_ catalog: Catalog) -> String {
        FNV1a.hex(of: json(Catalog(name: "", revision: 0, sections: catalog.sections), includeRevision: false, pretty: false))
    }

    public static func jsonValue(_ catalog: Catalog, includeRevision: Bool = false) -> OrderedJSON {
        var members: [(String, OrderedJSON)] = [("catalog", .string(catalog.name))]
        if includeRevision { members.append(("revision", .integer(catalog.revision))) }
        members.append(("sections", .array(catalog.sections.map(jsonValue(section:)))))
        return .object(members)
    }

    private static func jsonValue(section: Section) -> OrderedJSON {
        var members: [(String, OrderedJSON)] = [("id", .string(section.id)), ("kind", .string(section.kind.rawValue))]
        if let title = section.title { members.append(("title", .string(title))) }
        if let capacity = section.capacity { members.append(("capacity", .integer(capacity))) }
        members.append(("items", .array(section.items.map(jsonValue(item:)))))
        return .object(members)
    }

    private static func jsonValue(item: Item) -> OrderedJSON {
        var members: [(String, OrderedJSON)] = [("id", .string(item.id)), ("kind", .string(item.kind.rawValue))]
        // The kind's own fields in the field table's order, each under CatalogKit's own key (the
        // table's first); the size as one `[width, height]` after them.
        for (field, keys) in ItemFieldTable.rows(for: item.kind).dropFirst(ItemFieldTable.common.count) {
            switch item.content[field] {
            case .text(let text)?: members.append((keys[0], .string(text)))
            case .count(let count)?: members.append((keys[0], .integer(count)))
            case nil: break
            }
        }
        if let size = item.size { members.append(("size", [.double(size.width), .double(size.height)])) }
        return .object(members)
    }

    /// The native catalogue as an XML or binary property list.
    public static func propertyList(_ catalog: Catalog, format: PropertyListSerialization.PropertyListFormat = .xml) -> Data {
        // Plain strings, numbers, arrays and dictionaries always serialise.
        try! PropertyListSerialization.data(fromPropertyList: jsonValue(catalog).propertyListObject, format: format, options: 0)
    }

    /// Writes `catalog` to `url` as JSON or property list, by the file's extension (JSON otherwise).
    public static func write(_ catalog: Catalog, to url: URL) throws {
        let data = url.pathExtension.lowercased() == "plist" ? propertyList(catalog) : json(catalog)
        try data.write(to: url, options: .atomic)
    }
}

extension OrderedJSON {
    /// The value as Foundation property-list objects (`null` members are left out: plists have no null).
    var propertyListObject: Any {
        switch self {
        case .object(let members):
            var dictionary: [String: Any] = [:]
            for (key, value) in members where value != .null { dictionary[key] = value.propertyListObject }
            return dictionary
        case .array(let elements): return elements.filter { $0 != .null }.map(\.propertyListObject)
        case .string(let string): return string
        case .integer(let integer): return integer
        case .double(let double): return double
        case .bool(let bool): return bool
        case .null: return ""
        }
    }
}
