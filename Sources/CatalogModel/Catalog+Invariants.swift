/// A rule of the model that a catalogue breaks, with where it breaks it.
public enum ModelViolation: Sendable, Hashable, CustomStringConvertible {
    case emptyCatalogName
    /// A name the model does not allow (see ``Catalog/nameProblem(_:)``).
    case invalidCatalogName(String, expected: String)
    case emptySectionID(section: Int)
    case emptyItemID(section: Int, item: Int)
    case duplicateSectionID(String, sections: [Int])
    case duplicateItemID(String, paths: [[Int]])
    case itemKindMismatch(section: Int, item: Int, itemKind: ItemKind, sectionKind: SectionKind)
    case invalidCapacity(section: Int, capacity: Int)
    case overCapacity(section: Int, sectionID: String, count: Int, capacity: Int)
    case negativeCount(section: Int, item: Int, field: String, value: Int)
    case invalidSize(section: Int, item: Int, Size)

    public var description: String {
        switch self {
        case .emptyCatalogName:
            "the catalogue name is empty"
        case .invalidCatalogName(let name, let expected):
            "the catalogue name \(name.debugDescription) is not allowed: expected \(expected)"
        case .emptySectionID(let s):
            "sections[\(s)].id is empty"
        case .emptyItemID(let s, let i):
            "sections[\(s)].items[\(i)].id is empty"
        case .duplicateSectionID(let id, let sections):
            "section id \"\(id)\" is used by sections \(sections.map(String.init).joined(separator: ", "))"
        case .duplicateItemID(let id, let paths):
            "item id \"\(id)\" is used at \(paths.map { "[\($0[0]), \($0[1])]" }.joined(separator: ", "))"
        case .itemKindMismatch(let s, let i, let itemKind, let sectionKind):
            "sections[\(s)].items[\(i)] is a \(itemKind.rawValue) in a \(sectionKind.rawValue) section"
        case .invalidCapacity(let s, let capacity):
            "sections[\(s)].capacity is \(capacity), expected \(Section.capacityExpectation)"
        case .overCapacity(let s, let id, let count, let capacity):
            "section \"\(id)\" (sections[\(s)]) holds \(count) items, over its capacity of \(capacity)"
        case .negativeCount(let s, let i, let field, let value):
            "sections[\(s)].items[\(i)].\(field) is \(value), expected an integer ≥ 0"
        case .invalidSize(let s, let i, let size):
            "sections[\(s)].items[\(i)].size is [\(size.width), \(size.height)], expected two numbers from 0 to \(Int(Size.maximumLength))"
        }
    }
}

/// Thrown by ``Catalog/validate()``: every rule the catalogue breaks.
public struct CatalogValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var catalog: String
    public var violations: [ModelViolation]

    public var description: String {
        "catalogue \"\(catalog)\" is invalid: " + violations.map(\.description).joined(separator: "; ")
    }
}

extension Catalog {
    /// Every rule of the model this catalogue breaks, in document order; empty when it is valid.
    ///
    /// The rules: a non-empty name; non-empty ids, unique per catalogue for sections and for items;
    /// every item of the section's kind; positive capacities, respected; counters ≥ 0; sizes finite
    /// and ≥ 0.
    public func violations() -> [ModelViolation] {
        var found: [ModelViolation] = []
        if name.isEmpty {
            found.append(.emptyCatalogName)
        } else if let expected = Self.nameProblem(name) {
            found.append(.invalidCatalogName(name, expected: expected))
        }

        // Ids are collected in sets; positions are gathered only for ids found twice, so a valid
        // 100k-item catalogue costs one set insert per item.
        var sectionIDs = Set<String>(minimumCapacity: sections.count)
        var itemIDs = Set<String>(minimumCapacity: itemCount)
        var repeatedSections = Set<String>()
        var repeatedItems = Set<String>()
        for (s, section) in sections.enumerated() {
            if section.id.isEmpty { found.append(.emptySectionID(section: s)) }
            if !sectionIDs.insert(section.id).inserted { repeatedSections.insert(section.id) }
            if let capacity = section.capacity {
                if !Section.capacities.contains(capacity) {
                    found.append(.invalidCapacity(section: s, capacity: capacity))
                } else if section.items.count > capacity {
                    found.append(.overCapacity(section: s, sectionID: section.id,
                                               count: section.items.count, capacity: capacity))
                }
            }
            for (i, item) in section.items.enumerated() {
                if item.id.isEmpty { found.append(.emptyItemID(section: s, item: i)) }
                if !itemIDs.insert(item.id).inserted { repeatedItems.insert(item.id) }
                if item.kind != section.kind.itemKind {
                    found.append(.itemKindMismatch(section: s, item: i, itemKind: item.kind, sectionKind: section.kind))
                }
                // The field table's rules for values the types allow: counts ≥ 0.
                for error in item.content.fieldErrors {
                    if case .count(let value)? = item.content[error.field] {
                        found.append(.negativeCount(section: s, item: i, field: error.field.rawValue, value: value))
                    }
                }
                if let size = item.size, !size.isValidNaturalSize {
                    found.append(.invalidSize(section: s, item: i, size))
                }
            }
        }
        var sectionIndices: [String: [Int]] = [:]
        var itemPaths: [String: [[Int]]] = [:]
        if !repeatedSections.isEmpty || !repeatedItems.isEmpty {
            for (s, section) in sections.enumerated() {
                if repeatedSections.contains(section.id) { sectionIndices[section.id, default: []].append(s) }
                for (i, item) in section.items.enumerated() where repeatedItems.contains(item.id) {
                    itemPaths[item.id, default: []].append([s, i])
                }
            }
        }
        // Duplicates in order of their first use, so that the list is the same on every run.
        for (id, indices) in sectionIndices.sorted(by: { $0.value[0] < $1.value[0] }) {
            found.append(.duplicateSectionID(id, sections: indices))
        }
        for (id, paths) in itemPaths.sorted(by: { $0.value[0].lexicographicallyPrecedes($1.value[0]) }) {
            found.append(.duplicateItemID(id, paths: paths))
        }
        return found
    }

    /// The longest catalogue name, in UTF-8 bytes.
    public static let maximumNameLength = 200

    /// What a non-empty catalogue name lacks to be allowed, or nil when it is allowed: at most
    /// ``maximumNameLength`` bytes of UTF-8, no control characters and no `/`. A name is a
    /// file-name-like label that the command line prints and the HTTP API puts in a path.
    public static func nameProblem(_ name: String) -> String? {
        let rule = "at most \(maximumNameLength) bytes, without control characters or /"
        if name.utf8.count > maximumNameLength { return rule }
        if name.unicodeScalars.contains(where: { $0 == "/" || $0.properties.generalCategory == .control }) { return rule }
        return nil
    }

    /// Throws ``CatalogValidationError`` listing every broken rule, or returns when the catalogue is valid.
    public func validate() throws(CatalogValidationError) {
        let found = violations()
        if !found.isEmpty { throw CatalogValidationError(catalog: name, violations: found) }
    }

    /// Traps when the catalogue breaks a rule of the model. Tests and debug builds call it after
    /// every mutation, as swift-collections does for its types; release builds skip it.
    package func checkInvariants() {
        #if DEBUG
        let found = violations()
        precondition(found.isEmpty, "Catalog invariants broken: \(found)")
        #endif
    }
}
