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
    /// Why the shape was chosen, when it was detected: errors and the report say it.
    private var shapeReason: String?
    private var detectedShape: CatalogShape?
    private var integerIDs = 0
    /// The current item's fields: for each ``ItemField`` slot, the key that held it and its value.
    private var slots: [(key: String, value: PropertyValue)?] = Array(repeating: nil, count: ItemField.allCases.count)

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

    // MARK: - Shapes

    /// Keys under which apps commonly wrap their array of items (docs/Catalogue-files.md).
    static let wrapperKeys = ["list", "items", "data", "results", "videos", "books", "icons", "apps"]

    /// The value holding the items, and its path: the root itself, the value at `--root`, or the
    /// one array of dictionaries or arrays reachable from a root dictionary through single keys
    /// and well-known wrapper keys.
    private func unwrap(_ root: PropertyValue) throws(ImportError) -> (PropertyValue, String?) {
        if let path = options.root, !path.isEmpty {
            var value = root
            var walked: [String] = []
            for key in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                guard case .dictionary(let dictionary) = value else {
                    throw error(walked.joined(separator: "."), .wrongType(
                        expected: "a dictionary holding \"\(key)\" (--root \(path))", found: value.typeDescription))
                }
                guard let next = dictionary[key] else {
                    throw error(walked.joined(separator: "."), .invalidValue(
                        expected: "a key \"\(key)\" (--root \(path))", found: value.typeDescription))
                }
                walked.append(key)
                value = next
            }
            return (value, path)
        }
        guard case .dictionary(let dictionary) = root, dictionary["sections"] == nil else { return (root, nil) }
        var found: [(String, PropertyValue)] = []
        func search(_ value: PropertyValue, _ path: String, depth: Int) {
            switch value {
            case .array(let elements) where !path.isEmpty:
                if let first = elements.first, case .dictionary = first { found.append((path, value)) }
                else if let first = elements.first, case .array = first { found.append((path, value)) }
            case .dictionary(let dictionary) where depth < 4:
                let keys = dictionary.count == 1 ? Array(dictionary.keys)
                    : dictionary.keys.filter { Self.wrapperKeys.contains($0.lowercased()) }
                for key in keys.sorted() {
                    search(dictionary[key]!, path.isEmpty ? key : "\(path).\(key)", depth: depth + 1)
                }
            default:
                break
            }
        }
        search(root, "", depth: 0)
        guard found.count == 1 else {
            let reason = found.isEmpty
                ? "no array of items under a single key or one of \(Self.wrapperKeys.joined(separator: ", "))"
                : "several arrays of items (\(found.map(\.0).joined(separator: ", ")))"
            throw error("", .unrecognisedShape("\(root.typeDescription) with \(reason); pass --root PATH to name the one to read"))
        }
        return (found[0].1, found[0].0)
    }

    private func recogniseShape(_ root: PropertyValue, under rootPath: String?) throws(ImportError) -> (CatalogShape, String?) {
        switch root {
        case .dictionary(let dictionary) where dictionary["sections"] != nil && rootPath == nil:
            return (.native, nil)
        case .array(let elements):
            switch elements.first {
            case .array?, .string?:
                return (.bookshelf, "the root is an array of arrays (shelves of book covers)")
            case .dictionary(let first)?:
                if let (shape, reason) = recogniseItems(first, wrapper: rootPath?.split(separator: ".").last.map(String.init)) {
                    return (shape, reason)
                }
                throw error("[0]", .unrecognisedShape("\(PropertyValue.dictionary(first).typeDescription), which names no field of an icon or a video; pass --kind and --map FIELD=KEY"))
            case nil:
                throw error("", .unrecognisedShape("an empty array"))
            case let other?:
                throw error("[0]", .unrecognisedShape(other.typeDescription))
            }
        default:
            throw error("", .unrecognisedShape(root.typeDescription))
        }
    }

    /// Icons or videos, from the wrapper's key, `--map`, or the first item's keys read through
    /// ``ItemFieldTable``: the kind more of its keys name a field of wins (the fields every kind
    /// has do not count); on a tie, a `title` makes a video and anything else an icon. Nil when
    /// nothing tells; otherwise the shape and the reason in words.
    private func recogniseItems(_ first: [String: PropertyValue], wrapper: String?) -> (CatalogShape, String)? {
        switch wrapper?.lowercased() {
        case "videos"?: return (.videos, "the items sit under \"\(wrapper!)\"")
        case "icons"?, "apps"?: return (.icons, "the items sit under \"\(wrapper!)\"")
        default: break
        }
        for (kind, shape) in [(ItemKind.icon, CatalogShape.icons), (.video, .videos)] {
            let own = Set(ItemFieldTable.rows(for: kind).map(\.field)).subtracting(ItemFieldTable.common.map(\.field))
            if let field = options.fieldMap.keys.sorted(by: { $0.rawValue < $1.rawValue }).first(where: own.contains) {
                return (shape, "--map names the \(field.rawValue) of \(kind == .icon ? "an icon" : "a video")")
            }
        }
        func telling(_ kind: ItemKind) -> [String] {
            let table = ItemFieldTable.lookUp[kind]!
            let common = Set(ItemFieldTable.common.map(\.field))
            let named = first.keys.compactMap { key -> (ItemField, String)? in
                guard let field = table[key.lowercased()], !common.contains(field) else { return nil }
                return (field, key)
            }
            return named.sorted { ($0.0.ordinal, $0.1) < ($1.0.ordinal, $1.1) }.map(\.1)
        }
        let icon = telling(.icon), video = telling(.video)
        guard !icon.isEmpty || !video.isEmpty else { return nil }
        let isVideo = video.count > icon.count || (video.count == icon.count && video.contains { $0.lowercased() == "title" })
        let keys = isVideo ? video : icon
        return (isVideo ? .videos : .icons, "items have " + keys.map { "`\($0)`" }.joined(separator: " and "))
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
        return Section(id: id, kind: kind, title: title, capacity: capacity ?? kind.defaultCapacity, items: items)
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
        return Section(id: "", kind: .bookshelf, capacity: options.shelfCapacity ?? SectionKind.bookshelf.defaultCapacity, items: items)
    }

    private func checkCapacity(of section: Section, at location: Location) throws(ImportError) {
        if let capacity = section.capacity, section.items.count > capacity {
            throw error(location.layout.holdsItemsUnderKey ? location.path("items") : location.path(),
                        .overCapacity(section: section.id, count: section.items.count, capacity: capacity))
        }
    }

    // MARK: - Items

    mutating func item(_ value: PropertyValue, kind sectionItemKind: ItemKind, at location: Location) throws(ImportError) -> Item {
        guard case .dictionary(let dictionary) = value else {
            throw error(location.path(), .wrongType(expected: "an item dictionary", found: value.typeDescription))
        }
        let (kindValue, sizeValue) = try resolveFields(of: dictionary, kind: sectionItemKind, at: location)
        if let kindValue {
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
        if let (key, idValue) = field(.id) {
            if case .integer(let number) = idValue {
                id = String(number)
                integerIDs += 1
            } else {
                id = try nonEmptyString(idValue, at: location.path(key))
            }
            if let first = explicitItemIDs.updateValue(location, forKey: id) {
                throw error(location.path(key), .duplicateID(id, firstPath: first.path("id")))
            }
        } else {
            itemsNeedingIDs.append(location)
        }
        var size: Size?
        if let sizeValue {
            if let (key, _) = field(.width) ?? field(.height) {
                throw error(location.path(key), .invalidValue(expected: "one size: \"size\" or a width and height", found: "both"))
            }
            size = try self.size(sizeValue, at: location.path("size"))
        } else if field(.width) != nil || field(.height) != nil {
            size = try sizeFromPair(at: location)
        }

        let at = location
        let content: ItemContent
        switch sectionItemKind {
        case .video:
            content = .video(Video(title: try requiredString(.title, at: at), cover: try requiredString(.cover, at: at),
                                   playCount: try count(.playCount, at: at), likeCount: try count(.likeCount, at: at),
                                   status: try status(at: at), statusText: try optionalString(.statusText, at: at)))
        case .book:
            content = .book(Book(title: try requiredString(.title, at: at), cover: try requiredString(.cover, at: at),
                                 author: try optionalString(.author, at: at)))
        case .icon:
            content = .icon(Icon(name: try requiredString(.name, at: at), icon: try requiredString(.icon, at: at)))
        }
        return Item(id: id, content: content, size: size)
    }

    /// Refuses a `--map` that cannot apply, before any item is read (an item's error would hide
    /// the reason): a field the file's items do not have, or a key no item has.
    private func checkFieldMap(_ root: PropertyValue, shape: CatalogShape) throws(ImportError) {
        guard !options.fieldMap.isEmpty else { return }
        var items: [(kind: ItemKind, fields: [String: PropertyValue])] = []
        switch (shape, root) {
        case (.icons, .array(let values)), (.videos, .array(let values)):
            for case .dictionary(let fields) in values { items.append((shape == .icons ? .icon : .video, fields)) }
        case (.native, .dictionary(let catalog)):
            guard case .array(let sections)? = catalog["sections"] else { break }
            for case .dictionary(let section) in sections {
                guard case .string(let name)? = section["kind"], let kind = SectionKind(rawValue: name),
                      case .array(let values)? = section["items"] else { continue }
                for case .dictionary(let fields) in values { items.append((kind.itemKind, fields)) }
            }
        default:
            break
        }
        let kinds = Set(items.map(\.kind))
        for (field, key) in options.fieldMap.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard kinds.contains(where: { kind in ItemFieldTable.rows(for: kind).contains { $0.field == field } }) else {
                let names = kinds.map(\.rawValue).sorted().joined(separator: ", ")
                throw error("", .invalidValue(expected: "a field of the file's items for --map \(field.rawValue)=\(key)",
                                              found: names.isEmpty ? "no item dictionaries" : "items (\(names)) without a \(field.rawValue)"))
            }
            guard items.contains(where: { $0.fields[key] != nil }) else {
                throw error("", .invalidValue(expected: "a key \"\(key)\" in some item for --map \(field.rawValue)=\(key)", found: "no item with it"))
            }
        }
    }

    /// The key and value that fill `field` in the current item.
    func field(_ field: ItemField) -> (key: String, value: PropertyValue)? {
        slots[field.ordinal]
    }

    /// Finds which key fills each field of one item: a `--map` key first, then CatalogKit's own
    /// key; only when keys are left over, the aliases of ``ItemFieldTable`` (any case). Two keys
    /// for one field are an error; keys that fill nothing are counted as ignored. Returns the
    /// values of the structural keys `kind` and `size`.
    private mutating func resolveFields(of dictionary: [String: PropertyValue], kind: ItemKind,
                                        at location: Location) throws(ImportError) -> (kind: PropertyValue?, size: PropertyValue?) {
        for i in slots.indices { slots[i] = nil }
        var used = 0
        let mapping = !options.fieldMap.isEmpty
        for (field, keys) in ItemFieldTable.rows(for: kind) {
            if mapping, let mapped = options.fieldMap[field] {
                if let value = dictionary[mapped] {
                    slots[field.ordinal] = (mapped, value)
                    used += 1
                }
            } else if let value = dictionary[keys[0]] {
                slots[field.ordinal] = (keys[0], value)
                used += 1
            }
        }
        let structural = (kind: dictionary["kind"], size: dictionary["size"])
        if structural.kind != nil { used += 1 }
        if structural.size != nil { used += 1 }
        guard dictionary.count > used else { return structural }
        let table = ItemFieldTable.lookUp[kind]!
        for key in dictionary.keys.sorted() {
            if ItemFieldTable.structuralKeys.contains(key) || slots.contains(where: { $0?.key == key }) { continue }
            guard let field = table[key.lowercased()], options.fieldMap[field] == nil else {
                ignoredKeys[key, default: 0] += 1
                continue
            }
            let slot = field.ordinal
            if let taken = slots[slot] {
                throw error(location.path(key), .invalidValue(
                    expected: "one key for the \(field.rawValue) of the \(kind.rawValue)",
                    found: "both \"\(taken.key)\" and \"\(key)\" (pass --map \(field.rawValue)=KEY to choose)"))
            }
            slots[slot] = (key, dictionary[key]!)
        }
        return structural
    }

    /// A size from a width and a height given as two keys (`w`/`h`, `width`/`height`).
    private func sizeFromPair(at location: Location) throws(ImportError) -> Size {
        guard let (widthKey, width) = field(.width), let (heightKey, height) = field(.height) else {
            let (key, _) = (field(.width) ?? field(.height))!
            throw error(location.path(key), .invalidValue(expected: "a width and a height together", found: "only \"\(key)\""))
        }
        var numbers: [Double] = []
        for (key, value) in [(widthKey, width), (heightKey, height)] {
            let number: Double
            switch value {
            case .integer(let i): number = Double(i)
            case .double(let d): number = d
            default: throw error(location.path(key), .wrongType(expected: "a number", found: value.typeDescription))
            }
            guard Size.isValidLength(number) else {
                throw error(location.path(key), .invalidValue(expected: "a number from 0 to \(Int(Size.maximumLength))", found: "\(number)"))
            }
            numbers.append(number)
        }
        return Size(width: numbers[0], height: numbers[1])
    }

    /// The error for a field an item lacks; for a detected shape it says why that shape was
    /// chosen and what to pass instead.
    func missing(_ field: ItemField, at location: Location) -> ImportError {
        var expected = "a string"
        if let shapeReason {
            expected += " (read as \(detectedShape?.rawValue ?? "") because \(shapeReason); "
                + "pass --map \(field.rawValue)=KEY to read it from another key, or --kind)"
        }
        return error(location.path(field.rawValue), .missingField(expected: expected))
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
    /// Gives each section the file left without an id `s` and its position from 1 (the next free
    /// number when the file uses that id itself).
    private func deriveSectionIDs(in sections: inout [Section]) {
        var takenSectionIDs = Set(explicitSectionIDs.keys)
        for s in sectionsNeedingIDs {
            var n = s + 1
            while takenSectionIDs.contains("s\(n)") { n += 1 }
            sections[s].id = "s\(n)"
            takenSectionIDs.insert(sections[s].id)
        }
    }

    /// Gives each item the file left without an id one from its natural key (cover, icon), with an
    /// occurrence suffix for repeats.
    private func deriveItemIDs(in sections: inout [Section]) throws(ImportError) -> (derived: Int, duplicates: Int) {
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
        try Self.nonEmptyString(fileName, value, at: path())
    }

    static func nonEmptyString(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        let result = try string(fileName, value, at: path())
        guard !result.isEmpty else {
            throw ImportError(file: fileName, path: path(), reason: .invalidValue(expected: "a non-empty string", found: "an empty string"))
        }
        return result
    }

    /// A counter (plays, likes): an integer ≥ 0.
    static func counter(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Int {
        let result = try integer(fileName, value, at: path())
        guard result >= 0 else {
            throw ImportError(file: fileName, path: path(), reason: .invalidValue(expected: "an integer ≥ 0", found: "\(result)"))
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
}

/// The current item's fields, as resolved by ``resolveFields(of:kind:at:)``, read into the
/// model's types; errors name the key the file used.
extension CatalogDecoder {
    func requiredString(_ field: ItemField, at location: Location) throws(ImportError) -> String {
        guard let (key, value) = self.field(field) else { throw missing(field, at: location) }
        // A list of images (as some feeds ship) gives its first one as the cover.
        if case .array(let images) = value, let first = images.first {
            return try CatalogDecoder.string(fileName, first, at: location.path("\(key)[0]"))
        }
        return try string(value, at: location.path(key))
    }

    func optionalString(_ field: ItemField, at location: Location) throws(ImportError) -> String? {
        guard let (key, value) = self.field(field) else { return nil }
        if case .null = value { return nil }
        return try string(value, at: location.path(key))
    }

    /// A counter: an integer ≥ 0; absent means 0.
    func count(_ field: ItemField, at location: Location) throws(ImportError) -> Int {
        guard let (key, value) = self.field(field) else { return 0 }
        return try CatalogDecoder.counter(fileName, value, at: location.path(key))
    }

    /// A review status by name, or by its index in ``VideoStatus/allCases`` as numeric feeds ship
    /// it; absent means `published`.
    func status(at location: Location) throws(ImportError) -> VideoStatus {
        guard let (key, value) = field(.status) else { return .published }
        let expected = "one of draft, reviewing, recommended, published, rejected (or 0–4)"
        switch value {
        case .string(let name):
            guard let status = VideoStatus(rawValue: name.lowercased()) else {
                throw error(location.path(key), .invalidValue(expected: expected, found: "\"\(name)\""))
            }
            return status
        case .integer(let index):
            guard VideoStatus.allCases.indices.contains(index) else {
                throw error(location.path(key), .invalidValue(expected: expected, found: "\(index)"))
            }
            return VideoStatus.allCases[index]
        default:
            throw error(location.path(key), .wrongType(expected: expected, found: value.typeDescription))
        }
    }
}
