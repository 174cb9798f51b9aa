import CatalogModel

/// Reading one item: its kind, its fields (by CatalogKit's keys, the aliases of loose files or `--map`), its size.
extension CatalogDecoder {
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
    func checkFieldMap(_ root: PropertyValue, shape: CatalogShape) throws(ImportError) {
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
    mutating func resolveFields(of dictionary: [String: PropertyValue], kind: ItemKind,
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
    func sizeFromPair(at location: Location) throws(ImportError) -> Size {
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
}
