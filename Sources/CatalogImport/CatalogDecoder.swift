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

    private var explicitItemIDs: [String: Location] = [:]
    private var explicitSectionIDs: [String: Int] = [:]
    /// Items without an id, in document order.
    private var itemsNeedingIDs: [Location] = []
    private var sectionsNeedingIDs: [Int] = []
    private var ignoredKeys: [String: Int] = [:]

    init(fileName: String, options: ImportOptions) {
        self.fileName = fileName
        self.options = options
    }

    mutating func decode(_ root: PropertyValue, format: CatalogFileFormat) throws(ImportError) -> ImportedCatalog {
        let shape: CatalogShape
        if let chosen = options.shape {
            shape = chosen
        } else {
            shape = try recogniseShape(root)
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
        let (derived, duplicates) = try deriveIDs(in: &sections)
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
            derivedIDs: derived, duplicates: duplicates, ignoredKeys: ignoredKeys
        )
        return ImportedCatalog(catalog: catalog, report: report)
    }

    // MARK: - Shapes

    private func recogniseShape(_ root: PropertyValue) throws(ImportError) -> CatalogShape {
        switch root {
        case .dictionary(let dictionary) where dictionary["sections"] != nil:
            return .native
        case .array(let elements):
            switch elements.first {
            case .array?, .string?:
                return .bookshelf
            case .dictionary(let first)?:
                if first["icon"] != nil && first["name"] != nil { return .icons }
                if Self.videoHints.contains(where: { first[$0] != nil }) { return .videos }
                throw error("[0]", .unrecognisedShape("a dictionary with keys \(first.keys.sorted())"))
            case nil:
                throw error("", .unrecognisedShape("an empty array"))
            case let other?:
                throw error("[0]", .unrecognisedShape(other.typeDescription))
            }
        default:
            throw error("", .unrecognisedShape(root.typeDescription))
        }
    }

    private func rootArray(_ root: PropertyValue, of shape: CatalogShape) throws(ImportError) -> [PropertyValue] {
        guard case .array(let values) = root else {
            let expected = switch shape {
            case .icons: "an array of {name, icon} dictionaries"
            case .videos: "an array of video dictionaries"
            default: "an array of arrays of book covers"
            }
            throw error("", .wrongType(expected: expected, found: root.typeDescription))
        }
        return values
    }

    mutating func nativeSection(_ value: PropertyValue, at location: Location) throws(ImportError) -> Section {
        let s = location.section
        guard case .dictionary(let dictionary) = value else {
            throw error(location.path(), .wrongType(expected: "a section dictionary", found: value.typeDescription))
        }
        noteIgnoredKeys(in: dictionary, known: Self.sectionKeys)
        guard let kindValue = dictionary["kind"] else {
            throw error(location.path("kind"), .missingField(expected: Self.sectionKindList))
        }
        let kindName = try string(kindValue, at: location.path("kind"))
        guard let kind = SectionKind(rawValue: kindName) else {
            throw error(location.path("kind"), .invalidValue(expected: Self.sectionKindList, found: "\"\(kindName)\""))
        }
        var id = ""
        if let idValue = dictionary["id"] {
            id = try nonEmptyString(idValue, at: location.path("id"))
            if let first = explicitSectionIDs[id] {
                throw error(location.path("id"), .duplicateID(id, firstPath: "sections[\(first)].id"))
            }
            explicitSectionIDs[id] = s
        } else {
            sectionsNeedingIDs.append(s)
        }
        let title = try dictionary["title"].map { v throws(ImportError) in try string(v, at: location.path("title")) }
        var capacity: Int?
        if let capacityValue = dictionary["capacity"] {
            let value = try integer(capacityValue, at: location.path("capacity"))
            guard value > 0 else {
                throw error(location.path("capacity"), .invalidValue(expected: "a positive integer", found: "\(value)"))
            }
            capacity = value
        }
        var items: [Item] = []
        if let itemsValue = dictionary["items"] {
            guard case .array(let values) = itemsValue else {
                throw error(location.path("items"), .wrongType(expected: "an array of items", found: itemsValue.typeDescription))
            }
            items.reserveCapacity(values.count)
            for (i, itemValue) in values.enumerated() {
                items.append(try item(itemValue, kind: kind.itemKind, at: Location(layout: location.layout, section: s, item: i)))
            }
        }
        let section = Section(id: id, kind: kind, title: title, capacity: capacity, items: items)
        try checkCapacity(of: section, at: location)
        return section
    }

    private mutating func looseShelf(_ value: PropertyValue, at s: Int) throws(ImportError) -> Section {
        let location = Location(layout: .nested, section: s, item: nil)
        // A bare string at the top level is a shelf holding one book.
        let values: [PropertyValue]
        switch value {
        case .array(let elements): values = elements
        case .string: values = [value]
        default:
            throw error(location.path(), .wrongType(expected: "an array of book covers (strings)", found: value.typeDescription))
        }
        var items: [Item] = []
        items.reserveCapacity(values.count)
        for (i, coverValue) in values.enumerated() {
            let itemLocation = Location(layout: .nested, section: s, item: i)
            let cover = try nonEmptyString(coverValue, at: itemLocation.path())
            items.append(Item(id: "", content: .book(Book(title: cover, cover: cover))))
            itemsNeedingIDs.append(itemLocation)
        }
        let section = Section(id: "", kind: .bookshelf, capacity: options.shelfCapacity, items: items)
        try checkCapacity(of: section, at: location)
        return section
    }

    private func checkCapacity(of section: Section, at location: Location) throws(ImportError) {
        if let capacity = section.capacity, section.items.count > capacity {
            let name = section.id.isEmpty ? location.path() : section.id
            throw error(location.layout.holdsItemsUnderKey ? location.path("items") : location.path(),
                        .overCapacity(section: name, count: section.items.count, capacity: capacity))
        }
    }

    // MARK: - Items

    mutating func item(_ value: PropertyValue, kind sectionItemKind: ItemKind, at location: Location) throws(ImportError) -> Item {
        guard case .dictionary(let dictionary) = value else {
            throw error(location.path(), .wrongType(expected: "an item dictionary", found: value.typeDescription))
        }
        var used = 0
        if let kindValue = dictionary["kind"] {
            used += 1
            let kindName = try string(kindValue, at: location.path("kind"))
            guard let kind = ItemKind(rawValue: kindName) else {
                throw error(location.path("kind"), .invalidValue(expected: "one of video, book, icon", found: "\"\(kindName)\""))
            }
            guard kind == sectionItemKind else {
                throw error(location.path("kind"), .invalidValue(
                    expected: "\"\(sectionItemKind.rawValue)\" (the section holds \(sectionItemKind.sectionKind.rawValue))",
                    found: "\"\(kindName)\""))
            }
        }
        var id = ""
        if let idValue = dictionary["id"] {
            used += 1
            id = try nonEmptyString(idValue, at: location.path("id"))
            if let first = explicitItemIDs.updateValue(location, forKey: id) {
                throw error(location.path("id"), .duplicateID(id, firstPath: first.path("id")))
            }
        } else {
            itemsNeedingIDs.append(location)
        }
        var size: Size?
        if let sizeValue = dictionary["size"] {
            used += 1
            size = try self.size(sizeValue, at: location.path("size"))
        }

        let content: ItemContent
        switch sectionItemKind {
        case .video:
            var reader = FieldReader(dictionary: dictionary, location: location, fileName: fileName)
            let title = try reader.requiredString("title")
            let cover = try reader.requiredString("cover", alias: "images")
            let playCount = try reader.count("playCount", alias: "play_count")
            let likeCount = try reader.count("likeCount", alias: "praise_count")
            let status = try reader.status()
            let statusText = try reader.optionalString("statusText", alias: "status_desc")
            used += reader.used
            content = .video(Video(title: title, cover: cover, playCount: playCount, likeCount: likeCount,
                                   status: status, statusText: statusText))
        case .book:
            var reader = FieldReader(dictionary: dictionary, location: location, fileName: fileName)
            let title = try reader.requiredString("title")
            let cover = try reader.requiredString("cover")
            let author = try reader.optionalString("author")
            used += reader.used
            content = .book(Book(title: title, cover: cover, author: author))
        case .icon:
            var reader = FieldReader(dictionary: dictionary, location: location, fileName: fileName)
            let name = try reader.requiredString("name")
            let icon = try reader.requiredString("icon")
            used += reader.used
            content = .icon(Icon(name: name, icon: icon))
        }
        if dictionary.count > used {
            noteIgnoredKeys(in: dictionary, known: Self.itemKeys[sectionItemKind]!)
        }
        return Item(id: id, content: content, size: size)
    }

    func size(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Size {
        guard case .array(let elements) = value, elements.count == 2 else {
            throw error(path(), .wrongType(expected: "[width, height]", found: value.typeDescription))
        }
        var numbers: [Double] = []
        for element in elements {
            let number: Double
            switch element {
            case .integer(let i): number = Double(i)
            case .double(let d): number = d
            default: throw error(path(), .wrongType(expected: "[width, height] of numbers", found: "an element that is \(element.typeDescription)"))
            }
            guard Size.isValidLength(number) else {
                throw error(path(), .invalidValue(expected: "[width, height] of numbers from 0 to \(Int(Size.maximumLength))", found: "\(number)"))
            }
            numbers.append(number)
        }
        return Size(width: numbers[0], height: numbers[1])
    }

    // MARK: - Ids

    /// Gives every section and item without an explicit id a deterministic one: sections `s1`, `s2`…
    /// by position; items their natural key (cover or icon), with `~2`, `~3`… for later
    /// occurrences. Ids the file uses explicitly are skipped, so derived ids never collide.
    private func deriveIDs(in sections: inout [Section]) throws(ImportError) -> (derived: Int, duplicates: Int) {
        var takenSectionIDs = Set(explicitSectionIDs.keys)
        for s in sectionsNeedingIDs {
            var n = s + 1
            while takenSectionIDs.contains("s\(n)") { n += 1 }
            sections[s].id = "s\(n)"
            takenSectionIDs.insert(sections[s].id)
        }
        guard !itemsNeedingIDs.isEmpty else { return (0, 0) }
        // Explicit ids and those derived so far: a cover literally named "x~2" must not collide
        // with the second "x".
        var takenItemIDs = Set(explicitItemIDs.keys)
        takenItemIDs.reserveCapacity(explicitItemIDs.count + itemsNeedingIDs.count)
        var occurrences: [String: Int] = [:]
        var duplicates = 0
        for location in itemsNeedingIDs {
            let (s, i) = (location.section, location.item ?? 0)
            let key = sections[s].items[i].content.naturalKey
            if key.isEmpty {
                let field = sections[s].kind == .icons ? "icon" : "cover"
                throw error(location.path(), .invalidValue(expected: "an id, or a non-empty \(field) to derive one from", found: "neither"))
            }
            var occurrence = occurrences[key, default: 0] + 1
            if occurrence > 1 { duplicates += 1 }
            var candidate = occurrence == 1 ? key : "\(key)~\(occurrence)"
            while takenItemIDs.contains(candidate) {
                occurrence += 1
                candidate = "\(key)~\(occurrence)"
            }
            occurrences[key] = occurrence
            takenItemIDs.insert(candidate)
            sections[s].items[i].id = candidate
        }
        return (itemsNeedingIDs.count, duplicates)
    }

    // MARK: - Values

    func error(_ path: String, _ reason: ImportError.Reason) -> ImportError {
        ImportError(file: fileName, path: path, reason: reason)
    }

    func string(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        try Self.string(fileName, value, at: path())
    }

    static func string(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        guard case .string(let string) = value else {
            throw ImportError(file: fileName, path: path(), reason: .wrongType(expected: "a string", found: value.typeDescription))
        }
        return string
    }

    func nonEmptyString(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        let result = try string(value, at: path())
        guard !result.isEmpty else {
            throw error(path(), .invalidValue(expected: "a non-empty string", found: "an empty string"))
        }
        return result
    }

    func integer(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Int {
        try Self.integer(fileName, value, at: path())
    }

    static func integer(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Int {
        switch value {
        case .integer(let integer):
            return integer
        case .double(let double) where double == double.rounded() && abs(double) < 9.0e15:
            return Int(double)
        default:
            throw ImportError(file: fileName, path: path(), reason: .wrongType(expected: "an integer", found: value.typeDescription))
        }
    }

    private mutating func noteIgnoredKeys(in dictionary: [String: PropertyValue], known: Set<String>) {
        for key in dictionary.keys where !known.contains(key) {
            ignoredKeys[key, default: 0] += 1
        }
    }

    private static func baseName(of fileName: String) -> String {
        let last = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    static let sectionKindList = "one of videos, bookshelf, icons"
    static let rootKeys: Set<String> = ["catalog", "sections", "revision"]
    static let sectionKeys: Set<String> = ["id", "kind", "title", "capacity", "items"]
    static let videoHints = ["title", "cover", "images", "play_count", "playCount", "praise_count", "status"]
    static let itemKeys: [ItemKind: Set<String>] = [
        .video: ["id", "kind", "size", "title", "cover", "images", "playCount", "play_count",
                 "likeCount", "praise_count", "status", "statusText", "status_desc"],
        .book: ["id", "kind", "size", "title", "cover", "author"],
        .icon: ["id", "kind", "size", "name", "icon"],
    ]
}

/// Reads one item dictionary's fields, counting the keys it used so that the decoder can tell
/// cheaply whether any key was left unknown.
struct FieldReader {
    let dictionary: [String: PropertyValue]
    let location: Location
    let fileName: String
    private(set) var used = 0

    init(dictionary: [String: PropertyValue], location: Location, fileName: String) {
        self.dictionary = dictionary
        self.location = location
        self.fileName = fileName
    }

    private func error(_ path: String, _ reason: ImportError.Reason) -> ImportError {
        ImportError(file: fileName, path: path, reason: reason)
    }

    /// The value under `key`, or under `alias` when `key` is absent, with the key that held it.
    private mutating func lookUp(_ key: String, alias: String?) -> (String, PropertyValue)? {
        if let value = dictionary[key] {
            used += 1
            return (key, value)
        }
        if let alias, let value = dictionary[alias] {
            used += 1
            return (alias, value)
        }
        return nil
    }

    mutating func requiredString(_ key: String, alias: String? = nil) throws(ImportError) -> String {
        guard let (found, value) = lookUp(key, alias: alias) else {
            throw error(location.path(key), .missingField(expected: "a string"))
        }
        // A list of images (as some feeds ship) gives its first one as the cover.
        if found == "images", case .array(let images) = value, let first = images.first {
            return try CatalogDecoder.string(fileName, first, at: location.path("images[0]"))
        }
        return try CatalogDecoder.string(fileName, value, at: location.path(found))
    }

    mutating func optionalString(_ key: String, alias: String? = nil) throws(ImportError) -> String? {
        guard let (found, value) = lookUp(key, alias: alias) else { return nil }
        if case .null = value { return nil }
        return try CatalogDecoder.string(fileName, value, at: location.path(found))
    }

    /// A counter: an integer ≥ 0; absent means 0.
    mutating func count(_ key: String, alias: String) throws(ImportError) -> Int {
        guard let (found, value) = lookUp(key, alias: alias) else { return 0 }
        let result = try CatalogDecoder.integer(fileName, value, at: location.path(found))
        guard result >= 0 else {
            throw error(location.path(found), .invalidValue(expected: "an integer ≥ 0", found: "\(result)"))
        }
        return result
    }

    /// A review status by name, or by its index in ``VideoStatus/allCases`` as numeric feeds ship
    /// it; absent means `published`.
    mutating func status() throws(ImportError) -> VideoStatus {
        guard let (found, value) = lookUp("status", alias: nil) else { return .published }
        let expected = "one of draft, reviewing, recommended, published, rejected (or 0–4)"
        switch value {
        case .string(let name):
            guard let status = VideoStatus(rawValue: name.lowercased()) else {
                throw error(location.path(found), .invalidValue(expected: expected, found: "\"\(name)\""))
            }
            return status
        case .integer(let index):
            guard VideoStatus.allCases.indices.contains(index) else {
                throw error(location.path(found), .invalidValue(expected: expected, found: "\(index)"))
            }
            return VideoStatus.allCases[index]
        default:
            throw error(location.path(found), .wrongType(expected: expected, found: value.typeDescription))
        }
    }
}
