/// Why a batch (or a move) was refused. Nothing of the batch was applied.
public struct BatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 0-based index of the operation that failed; `nil` for the batch as a whole.
    public var operation: Int?
    /// The failed operation's name (`moveItem`), when there is one.
    public var operationName: String?
    public var reason: Reason

    public enum Reason: Sendable, Hashable {
        /// `baseRevision` is not the catalogue's current revision: someone else wrote first.
        case staleRevision(base: Int, current: Int)
        case unknownItem(String)
        case unknownSection(String)
        /// An index outside `0...count` (or `0..<count` where the index must name an element).
        case indexOutOfRange(index: Int, count: Int, what: String)
        /// The shelf holds `capacity` items already.
        case sectionFull(section: String, capacity: Int)
        /// A displacing move would push a book off the last shelf (or into a section of another kind).
        case noRoomToDisplace(section: String)
        case duplicateItemID(String)
        case duplicateSectionID(String)
        /// An item whose kind does not belong in the section.
        case kindMismatch(item: String, kind: ItemKind, section: String, sectionKind: SectionKind)
        /// A field that does not exist for this kind of item, or a value out of range.
        case invalidField(String, detail: String)
        /// A capacity below the number of items the section holds.
        case capacityBelowCount(section: String, capacity: Int, count: Int)
        /// A swap with an index past the end of the target shelf, where there is no book to swap.
        case nothingToSwap(section: String, index: Int)
    }

    public init(operation: Int? = nil, operationName: String? = nil, reason: Reason) {
        self.operation = operation
        self.operationName = operationName
        self.reason = reason
    }

    public var description: String {
        let prefix = operation.map { "operation \($0)" + (operationName.map { " (\($0))" } ?? "") + ": " } ?? ""
        return prefix + reasonDescription
    }

    private var reasonDescription: String {
        switch reason {
        case .staleRevision(let base, let current):
            "the batch was made against revision \(base) but the catalogue is at revision \(current); reload and try again"
        case .unknownItem(let id):
            "no item with id \"\(id)\""
        case .unknownSection(let id):
            "no section with id \"\(id)\""
        case .indexOutOfRange(let index, let count, let what):
            "index \(index) is out of range for \(what) (\(count))"
        case .sectionFull(let section, let capacity):
            "shelf \"\(section)\" is full: it holds at most \(capacity) \(capacity == 1 ? "book" : "books")"
        case .noRoomToDisplace(let section):
            "no room to displace into: the overflow from shelf \"\(section)\" has no next shelf with room"
        case .duplicateItemID(let id):
            "an item with id \"\(id)\" already exists"
        case .duplicateSectionID(let id):
            "a section with id \"\(id)\" already exists"
        case .kindMismatch(let item, let kind, let section, let sectionKind):
            "item \"\(item)\" is a \(kind.rawValue), but section \"\(section)\" holds \(sectionKind.rawValue)"
        case .invalidField(let field, let detail):
            "field \"\(field)\": \(detail)"
        case .capacityBelowCount(let section, let capacity, let count):
            "section \"\(section)\" holds \(count) items; a capacity of \(capacity) is too small"
        case .nothingToSwap(let section, let index):
            "there is no book at index \(index) of shelf \"\(section)\" to swap with"
        }
    }
}

extension BatchError {
    /// The refusal of an item's field value, as ``Reason/invalidField(_:detail:)``.
    init(_ error: ItemFieldError) {
        self.init(reason: .invalidField(error.field.rawValue, detail: error.detail))
    }
}
