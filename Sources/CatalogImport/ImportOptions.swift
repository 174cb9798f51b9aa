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

    public init(catalogName: String? = nil, format: CatalogFileFormat? = nil,
                shape: CatalogShape? = nil, shelfCapacity: Int? = nil, limits: DocumentLimits = .files) {
        self.catalogName = catalogName
        self.format = format
        self.shape = shape
        self.shelfCapacity = shelfCapacity
        self.limits = limits
    }
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

    /// How many unknown keys were skipped in all.
    public var ignoredKeyCount: Int { ignoredKeys.values.reduce(0, +) }
}

/// A catalogue read from a file, with its import report.
public struct ImportedCatalog: Sendable, Hashable {
    public var catalog: Catalog
    public var report: ImportReport
}
