/// How large a catalogue file or a batch may be: items, sections and nesting, checked while the
/// document is parsed, so that a hostile document is refused before it costs more memory than
/// the limits allow.
///
/// Parsed values cost memory far beyond their text (`[0],` is four bytes of input and about
/// eighty of tree), so the parser also stops at a budget of values derived from these limits:
/// ``valueBudget``, where each array or dictionary counts as four values. A document within the
/// limits stays far below it; one that is mostly brackets is refused before its tree grows large.
public struct DocumentLimits: Sendable, Hashable {
    /// Items a catalogue may hold, or a batch may insert (with its operations).
    public var maxItems: Int
    /// Sections a catalogue may hold, or a batch may insert.
    public var maxSections: Int
    /// Arrays and dictionaries nested in one another.
    public var maxDepth: Int

    public init(maxItems: Int, maxSections: Int, maxDepth: Int = 64) {
        self.maxItems = maxItems
        self.maxSections = maxSections
        self.maxDepth = maxDepth
    }

    /// What the command line reads from files: a million items in a hundred thousand sections.
    public static let files = DocumentLimits(maxItems: 1_000_000, maxSections: 100_000)

    /// What the HTTP API reads from request bodies by default: a hundred thousand items in ten
    /// thousand sections (`catalog serve --max-items --max-sections`).
    public static let requests = DocumentLimits(maxItems: 100_000, maxSections: 10_000)

    /// Values (numbers, strings, booleans; arrays and dictionaries count four) a document may
    /// parse into: room for 24 values an item or section — a video card with every field and a
    /// size takes 18 — plus a little for wrappers.
    public var valueBudget: Int {
        let (items, sections) = (min(max(maxItems, 0), 1 << 40), min(max(maxSections, 0), 1 << 40))
        return (items + sections) * 24 + 4_096
    }

    /// What this document holds more of than the limits allow, or nil: a message for an error.
    func excess(items: Int, sections: Int) -> (what: String, limit: Int)? {
        if items > maxItems { return ("items", maxItems) }
        if sections > maxSections { return ("sections", maxSections) }
        return nil
    }
}
