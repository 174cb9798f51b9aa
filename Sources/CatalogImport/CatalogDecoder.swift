import CatalogModel

/// Where a value sits in a catalogue file. Kept as numbers while decoding and turned into text
/// (`sections[2].items[5].playCount`) only when an error needs it, so decoding stays cheap.
struct Location {
    enum Layout {
        /// `sections[s].items[i]`
        case native
        /// `[i]`: a flat array of items (icons or videos)
        case flat
        /// `[s][i]`: an array of shelves
        case nested
        /// Below a path of another document (`operations[3].section`), with `.items[i]` under it.
        case prefixed(String)

        /// Whether a section's items sit under an `items` key (not the section value itself).
        var holdsItemsUnderKey: Bool {
            switch self {
            case .native, .prefixed: true
            case .flat, .nested: false
            }
        }
    }

    var layout: Layout
    var section: Int
    /// The item's index, or `nil` for the section itself.
    var item: Int?

    func path(_ key: String? = nil) -> String {
        var text: String
        switch layout {
        case .native:
            text = "sections[\(section)]"
            if let item { text += ".items[\(item)]" }
        case .flat:
            text = item.map { "[\($0)]" } ?? ""
        case .nested:
            text = "[\(section)]" + (item.map { "[\($0)]" } ?? "")
        case .prefixed(let prefix):
            text = prefix + (item.map { ".items[\($0)]" } ?? "")
        }
        if let key { text += text.isEmpty ? key : ".\(key)" }
        return text
    }
}

/// Turns a parsed file into a ``Catalog``: checks every value's type and range, derives ids the
/// file does not give, counts unknown keys and refuses duplicates and overfull shelves.
struct CatalogDecoder {
    let fileName: String
    let options: ImportOptions

    var explicitItemIDs: [String: Location] = [:]
    var explicitSectionIDs: [String: Int] = [:]
    /// Items without an id, in document order.
    var itemsNeedingIDs: [Location] = []
    var sectionsNeedingIDs: [Int] = []
    var ignoredKeys: [String: Int] = [:]
    /// Why the shape was chosen, when it was detected: errors and the report say it.
    var shapeReason: String?
    var detectedShape: CatalogShape?
    var integerIDs = 0
    /// The current item's fields: for each ``ItemField`` slot, the key that held it and its value.
    var slots: [(key: String, value: PropertyValue)?] = Array(repeating: nil, count: ItemField.allCases.count)

    init(fileName: String, options: ImportOptions) {
        self.fileName = fileName
        self.options = options
    }

    mutating func decode(_ document: PropertyValue, format: CatalogFileFormat) throws(ImportError) -> ImportedCatalog {
        let (root, rootPath) = try unwrap(document)
        let shape: CatalogShape
        if let chosen = options.shape {
            shape = chosen
        } else {
            (shape, shapeReason) = try recogniseShape(root, under: rootPath)
            detectedShape = shape
        }
        try checkFieldMap(root, shape: shape)
        if let capacity = options.shelfCapacity, shape != .bookshelf {
            let read = shape == .native ? "a native catalogue, whose sections give their own capacity"
                : "\(shape.rawValue)" + (shapeReason.map { " (\($0))" } ?? "")
            throw error("", .unusableOption("capacity \(capacity) applies to a loose bookshelf (an array of arrays of covers), "
                                            + "but the file is read as \(read); leave the capacity out"))
        }
        var name = options.catalogName
        var sections: [Section]
        switch shape {
        case .native:
            guard case .dictionary(let dictionary) = root else {
                throw error("", .wrongType(expected: "a dictionary with \"sections\" (native catalogue)", found: root.typeDescription))
            }
            if name == nil, let value = dictionary["catalog"] {
                name = try string(value, at: "catalog")
            }
            noteIgnoredKeys(in: dictionary, known: Self.rootKeys)
            guard let sectionsValue = dictionary["sections"] else {
                throw error("sections", .missingField(expected: "an array of sections"))
            }
            guard case .array(let sectionValues) = sectionsValue else {
                throw error("sections", .wrongType(expected: "an array of sections", found: sectionsValue.typeDescription))
            }
            sections = []
            sections.reserveCapacity(sectionValues.count)
            for (s, value) in sectionValues.enumerated() {
                sections.append(try nativeSection(value, at: Location(layout: .native, section: s, item: nil)))
            }
        case .icons, .videos:
            let kind: SectionKind = shape == .icons ? .icons : .videos
            let values = try rootArray(root, of: shape)
            var items: [Item] = []
            items.reserveCapacity(values.count)
            for (i, value) in values.enumerated() {
                items.append(try item(value, kind: kind.itemKind, at: Location(layout: .flat, section: 0, item: i)))
            }
            sections = [Section(id: "", kind: kind, items: items)]
            sectionsNeedingIDs.append(0)
        case .bookshelf:
            let shelves = try rootArray(root, of: shape)
            sections = []
            sections.reserveCapacity(shelves.count)
            for (s, shelf) in shelves.enumerated() {
                sections.append(try looseShelf(shelf, at: s))
                sectionsNeedingIDs.append(s)
            }
        }

        if let (what, limit) = options.limits.excess(items: sections.reduce(0) { $0 + $1.items.count }, sections: sections.count) {
            throw error("", .tooLarge("more than \(limit) \(what) in one catalogue"))
        }
        deriveSectionIDs(in: &sections)
        // After the section ids, so that a shelf over its capacity is named by its id.
        if shape == .native || shape == .bookshelf {
            for (s, section) in sections.enumerated() {
                try checkCapacity(of: section, at: Location(layout: shape == .native ? .native : .nested, section: s, item: nil))
            }
        }
        let (derived, duplicates) = try deriveItemIDs(in: &sections)
        let catalog = Catalog(name: name ?? Self.baseName(of: fileName), sections: sections)
        if catalog.name.isEmpty {
            throw error("catalog", .invalidValue(expected: "a non-empty catalogue name", found: "an empty string"))
        }
        if let expected = Catalog.nameProblem(catalog.name) {
            throw error("catalog", .invalidValue(expected: "a catalogue name of \(expected)", found: catalog.name.debugDescription))
        }
        #if DEBUG
        catalog.checkInvariants()
        #endif
        let report = ImportReport(
            file: fileName, format: format, shape: shape,
            sections: sections.count, items: catalog.itemCount,
            derivedIDs: derived, duplicates: duplicates, ignoredKeys: ignoredKeys,
            root: rootPath, shapeReason: shapeReason, integerIDs: integerIDs
        )
        return ImportedCatalog(catalog: catalog, report: report)
    }

    static let sectionKindList = "one of videos, bookshelf, icons"
    static let rootKeys: Set<String> = ["catalog", "sections", "revision"]
    static let sectionKeys: Set<String> = ["id", "kind", "title", "capacity", "items"]
}
