import CatalogModel

/// Choices a caller may force instead of letting the importer infer them.
public struct ImportOptions: Sendable, Hashable {
    /// The catalogue's name; default: the file's `catalog` key, else its base name.
    public var catalogName: String?
    /// The file's syntax; default: from the extension, else sniffed from the first bytes.
    public var format: CatalogFileFormat?
    /// The content's layout; default: recognised from the root value.
    public var shape: CatalogShape?
    /// Capacity for the shelves of a loose nested-array file (native files say it per section);
    /// default: ``SectionKind/defaultCapacity`` (4).
    public var shelfCapacity: Int?
    /// How large the file may be (items, sections, nesting), checked while it is parsed.
    public var limits: DocumentLimits
    /// Where the array of items sits in a wrapped file, as keys joined by dots (`data.list`);
    /// default: found when exactly one array is reachable (docs/Catalogue-files.md).
    public var root: String?
    /// Which key of the file fills each field (`--map FIELD=KEY`); beats every alias.
    public var fieldMap: [ItemField: String]

    public init(catalogName: String? = nil, format: CatalogFileFormat? = nil,
                shape: CatalogShape? = nil, shelfCapacity: Int? = nil, limits: DocumentLimits = .files,
                root: String? = nil, fieldMap: [ItemField: String] = [:]) {
        self.catalogName = catalogName
        self.format = format
        self.shape = shape
        self.shelfCapacity = shelfCapacity
        self.limits = limits
        self.root = root
        self.fieldMap = fieldMap
    }

    /// Refuses options no file could use, with the option's name: a shelf capacity below 1. The
    /// command line, the HTTP API and the importer all ask here.
    public func validate() throws(ImportOptionError) {
        if let shelfCapacity, !Section.capacities.contains(shelfCapacity) {
            throw ImportOptionError(option: "capacity", message: "capacity \(shelfCapacity): expected \(Section.capacityExpectation)")
        }
    }

    /// Reads `FIELD=KEY` pairs (`--map`, `?map=`): each field once, each a field of the model.
    public static func fieldMap(_ pairs: [String]) throws(ImportOptionError) -> [ItemField: String] {
        var map: [ItemField: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex, pair.index(after: equals) != pair.endIndex else {
                throw ImportOptionError(option: "map", message: "map \"\(pair)\": expected FIELD=KEY, e.g. cover=img")
            }
            let name = String(pair[..<equals]), key = String(pair[pair.index(after: equals)...])
            guard let field = ItemField(rawValue: name) else {
                throw ImportOptionError(option: "map", message: "map \"\(pair)\": unknown field \"\(name)\"; expected one of "
                                        + ItemField.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard map.updateValue(key, forKey: field) == nil else {
                throw ImportOptionError(option: "map", message: "map \"\(pair)\": the field \(name) is mapped twice")
            }
        }
        return map
    }
}

/// An import option that cannot be used (a `--map` naming no field of the model, a capacity of 0).
public struct ImportOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option's name without dashes, as the command line and the HTTP query spell it.
    public var option: String
    /// What is wrong, starting with the option's name: `capacity 0: expected a positive integer`.
    public var message: String
    public var description: String { message }
}

/// What an import found besides the catalogue itself: counts and what it had to derive or skip.
public struct ImportReport: Sendable, Hashable {
    public var file: String
    public var format: CatalogFileFormat
    public var shape: CatalogShape
    public var sections: Int
    public var items: Int
    /// Items whose ids the importer derived because the file gave none.
    public var derivedIDs: Int
    /// Items whose natural key (cover, icon) an earlier item already had, so their derived id
    /// carries an occurrence suffix (`11~2`).
    public var duplicates: Int
    /// Keys the importer does not know, with how often each occurred; they are skipped.
    public var ignoredKeys: [String: Int]
    /// Where the items were found in a wrapped file (`data.list`); nil when the root holds them.
    public var root: String? = nil
    /// Why the shape was chosen when it was detected ("items have `title` and `cover`").
    public var shapeReason: String? = nil
    /// Items whose id the file gave as an integer (stored as its decimal string).
    public var integerIDs: Int = 0

    /// How many unknown keys were skipped in all.
    public var ignoredKeyCount: Int { ignoredKeys.values.reduce(0, +) }
}

/// A catalogue read from a file, with its import report.
public struct ImportedCatalog: Sendable, Hashable {
    public var catalog: Catalog
    public var report: ImportReport
}
