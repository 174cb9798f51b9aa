import CatalogModel

/// What a view shows of a catalogue (docs/Views.md): the items a filter keeps, sorted, grouped
/// into sections, and a window of them.
///
/// A view of a catalogue is itself a `Catalog` (``evaluate(on:)``), so the diff, changesets, the
/// simulator, layouts and collection-view adapters work on it unchanged; ``LiveView`` keeps one up
/// to date as the catalogue changes.
///
/// ```swift
/// let feed = try ViewDefinition(where: #"status in ["published", "recommended"]"#,
///                               sort: "-playCount,title", group: "status", limit: 50)
/// let result = try feed.evaluate(on: catalog)
/// print(result.total, result.catalog.sections.map(\.id))
/// ```
public struct ViewDefinition: Sendable, Hashable {
    /// The items kept; nil keeps every item.
    public var filter: ViewPredicate?
    /// The order of items within each section; empty keeps the stored order.
    public var sort: [SortKey]
    public var grouping: Grouping
    /// At most this many items, counted over the view's flattened order; nil for all.
    public var limit: Int?
    /// How many items of the flattened order the window skips.
    public var offset: Int

    /// One key of the sort: a field, ascending or descending. Absent values come after every
    /// present one in either direction; ties keep the stored order.
    public struct SortKey: Sendable, Hashable {
        public var field: ViewField
        public var descending: Bool

        public init(_ field: ViewField, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
    }

    /// How the view's items are split into sections.
    public enum Grouping: Sendable, Hashable {
        /// The stored sections, in their order, each with its title and capacity, including
        /// those the filter or the window leaves empty.
        case storedSections
        /// One section per value of the field that occurs, ordered by the value.
        case field(ViewField, descending: Bool)
        /// One section holding every item kept.
        case none
    }

    /// The whole catalogue in its stored order.
    public static let stored = ViewDefinition(filter: nil)

    public init(filter: ViewPredicate?, sort: [SortKey] = [], grouping: Grouping = .storedSections,
                limit: Int? = nil, offset: Int = 0) {
        self.filter = filter
        self.sort = sort
        self.grouping = grouping
        self.limit = limit
        self.offset = offset
    }

    /// A view from its text form, as HTTP's query parameters and the command line's options give
    /// it: `where` (``ViewPredicate/init(parsing:)``), `sort` (`-playCount,title`), `group`
    /// (`section`, `none`, `FIELD` or `-FIELD`), `limit` and `offset` (integers ≥ 0). An absent or
    /// empty parameter takes its default.
    ///
    /// - Throws: ``ViewError`` naming the parameter and the position of the problem.
    public init(where filter: String? = nil, sort: String? = nil, group: String? = nil,
                limit: Int? = nil, offset: Int = 0) throws(ViewError) {
        try self.init(where: filter, sort: sort, group: group,
                      limit: limit.map(String.init), offset: offset == 0 ? nil : String(offset))
    }

    /// A view from the text of each parameter, limit and offset included (`limit=-1` and
    /// `offset=1e30` are errors).
    public init(where filter: String?, sort: String?, group: String?, limit: String?, offset: String?) throws(ViewError) {
        self.init(filter: nil)
        if let filter, !filter.allSatisfy(\.isWhitespace) {
            var parser = try PredicateParser(filter)
            self.filter = try parser.parse()
        }
        if let sort { self.sort = try Self.sortKeys(parsing: sort) }
        if let group { self.grouping = try Self.grouping(parsing: group) }
        if let limit, !limit.isEmpty { self.limit = try Self.count(parsing: limit, .limit) }
        if let offset, !offset.isEmpty { self.offset = try Self.count(parsing: offset, .offset) }
    }

    /// Every field the view reads.
    public var fields: Set<ViewField> {
        var fields = filter?.fields ?? []
        fields.formUnion(sort.map(\.field))
        if case .field(let field, _) = grouping { fields.insert(field) }
        return fields
    }

    /// Whether the view keeps the stored order of items and sections: a filter and a window
    /// allowed, no sort, stored sections. Dragging items in such a view is a move in the
    /// catalogue.
    public var keepsStoredOrder: Bool {
        sort.isEmpty && grouping == .storedSections
    }
}

// MARK: Text forms

extension ViewDefinition {
    /// The text form of each parameter, nil where it has its default: what
    /// `init(where:sort:group:limit:offset:)` parses back to this view.
    public var parameters: [ViewError.Parameter: String] {
        var parameters: [ViewError.Parameter: String] = [:]
        if let filter { parameters[.where] = filter.description }
        if !sort.isEmpty { parameters[.sort] = sort.map { ($0.descending ? "-" : "") + $0.field.name }.joined(separator: ",") }
        switch grouping {
        case .storedSections: break
        case .none: parameters[.group] = "none"
        case .field(let field, let descending): parameters[.group] = (descending ? "-" : "") + field.name
        }
        if let limit { parameters[.limit] = String(limit) }
        if offset != 0 { parameters[.offset] = String(offset) }
        return parameters
    }

    static func sortKeys(parsing text: String) throws(ViewError) -> [SortKey] {
        var keys: [SortKey] = []
        var position = 1
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { position += part.count + 1 }
            let lead = part.prefix(while: \.isWhitespace).count
            var name = part.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed().map { String($0) }.joined()
            if name.isEmpty {
                if text.allSatisfy(\.isWhitespace) { return [] }
                throw ViewError(.sort, at: position + lead, .expected("a field, or -field for descending", found: part.isEmpty ? "nothing" : "spaces"))
            }
            let descending = name.hasPrefix("-")
            if descending { name.removeFirst() }
            guard let field = ViewField(name: name) else {
                throw ViewError(.sort, at: position + lead + (descending ? 1 : 0), .unknownField(name, fields: ViewField.allCases.map(\.name)))
            }
            guard !keys.contains(where: { $0.field == field }) else {
                throw ViewError(.sort, at: position + lead, .repeatedSortKey(name))
            }
            keys.append(SortKey(field, descending: descending))
        }
        return keys
    }

    static func grouping(parsing text: String) throws(ViewError) -> Grouping {
        let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed().map { String($0) }.joined()
        let lead = text.prefix(while: \.isWhitespace).count
        switch trimmed {
        case "", "section": return .storedSections
        case "none": return .none
        default:
            let descending = trimmed.hasPrefix("-")
            let name = descending ? String(trimmed.dropFirst()) : trimmed
            guard let field = ViewField(name: name) else {
                throw ViewError(.group, at: lead + 1 + (descending ? 1 : 0), .unknownField(name, fields: ["section", "none"] + ViewField.allCases.map(\.name).filter { $0 != "section" }))
            }
            if field == .section {
                throw ViewError(.group, at: lead + 1, .notApplicable(field: "section", detail: "the stored sections keep their stored order; write group=section"))
            }
            return .field(field, descending: descending)
        }
    }

    static func count(parsing text: String, _ parameter: ViewError.Parameter) throws(ViewError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw ViewError(parameter, at: 1, .expected("an integer from 0 to \(Int.max)", found: JSONText.quoted(text)))
        }
        return value
    }
}

// MARK: Codable

extension ViewDefinition: Codable {
    /// A view encodes as its parameters' text forms: `{"where": "…", "sort": "-playCount",
    /// "group": "status", "limit": 50, "offset": 0}`, absent where they have their default.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let parameters = self.parameters
        try container.encodeIfPresent(parameters[.where], forKey: .where)
        try container.encodeIfPresent(parameters[.sort], forKey: .sort)
        try container.encodeIfPresent(parameters[.group], forKey: .group)
        try container.encodeIfPresent(limit, forKey: .limit)
        if offset != 0 { try container.encode(offset, forKey: .offset) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let limit = try container.decodeIfPresent(Int.self, forKey: .limit)
        let offset = try container.decodeIfPresent(Int.self, forKey: .offset) ?? 0
        do {
            try self.init(where: container.decodeIfPresent(String.self, forKey: .where),
                          sort: container.decodeIfPresent(String.self, forKey: .sort),
                          group: container.decodeIfPresent(String.self, forKey: .group),
                          limit: limit.map(String.init), offset: String(offset))
        } catch let error as ViewError {
            let key: CodingKeys = switch error.parameter {
            case .where: .where
            case .sort: .sort
            case .group: .group
            case .limit: .limit
            case .offset: .offset
            }
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case `where`, sort, group, limit, offset
    }
}
