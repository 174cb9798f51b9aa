import CatalogModel

/// Recognising a file's shape: where the items are, native or loose, and the sections they make.
extension CatalogDecoder {
    /// Keys under which apps commonly wrap their array of items (docs/Catalogue-files.md).
    static let wrapperKeys = ["list", "items", "data", "results", "videos", "books", "icons", "apps"]

    /// The value holding the items, and its path: the root itself, the value at `--root`, or the
    /// one array of dictionaries or arrays reachable from a root dictionary through single keys
    /// and well-known wrapper keys.
    func unwrap(_ root: PropertyValue) throws(ImportError) -> (PropertyValue, String?) {
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

    func recogniseShape(_ root: PropertyValue, under rootPath: String?) throws(ImportError) -> (CatalogShape, String?) {
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
    func recogniseItems(_ first: [String: PropertyValue], wrapper: String?) -> (CatalogShape, String)? {
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

    func rootArray(_ root: PropertyValue, of shape: CatalogShape) throws(ImportError) -> [PropertyValue] {
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
            guard Section.capacities.contains(value) else {
                throw error(location.path("capacity"), .invalidValue(expected: Section.capacityExpectation, found: "\(value)"))
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

    mutating func looseShelf(_ value: PropertyValue, at s: Int) throws(ImportError) -> Section {
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

    func checkCapacity(of section: Section, at location: Location) throws(ImportError) {
        if let capacity = section.capacity, section.items.count > capacity {
            throw error(location.layout.holdsItemsUnderKey ? location.path("items") : location.path(),
                        .overCapacity(section: section.id, count: section.items.count, capacity: capacity))
        }
    }
}
