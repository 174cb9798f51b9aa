// An item's content field by field: the one place that maps each ``ItemField`` to the property
// of ``Video``, ``Book`` or ``Icon`` that holds it. The importer, the exporter, the editor's
// updates, the store's columns and the journal read and write content through it.
extension ItemContent {
    /// The value of `field`: nil when this kind has no such field, or an optional one is empty.
    public subscript(field: ItemField) -> ItemFieldValue? {
        switch (field, self) {
        case (.title, .video(let video)): .text(video.title)
        case (.cover, .video(let video)): .text(video.cover)
        case (.playCount, .video(let video)): .count(video.playCount)
        case (.likeCount, .video(let video)): .count(video.likeCount)
        case (.status, .video(let video)): .text(video.status.rawValue)
        case (.statusText, .video(let video)): video.statusText.map(ItemFieldValue.text)
        case (.title, .book(let book)): .text(book.title)
        case (.cover, .book(let book)): .text(book.cover)
        case (.author, .book(let book)): book.author.map(ItemFieldValue.text)
        case (.name, .icon(let icon)): .text(icon.name)
        case (.icon, .icon(let icon)): .text(icon.icon)
        default: nil
        }
    }

    /// Sets `field` to `value`, or clears it when `value` is nil (an optional field only). The
    /// value must be what the field holds (``ItemField/contentType``); a field this kind does not
    /// have, a value of the wrong type, a negative count or an unknown status is refused and
    /// changes nothing.
    public mutating func set(_ field: ItemField, to value: ItemFieldValue?) throws(ItemFieldError) {
        switch (field, self) {
        case (.title, .video(var video)): video.title = try Self.text(value, field); self = .video(video)
        case (.cover, .video(var video)): video.cover = try Self.text(value, field); self = .video(video)
        case (.playCount, .video(var video)): video.playCount = try Self.count(value, field); self = .video(video)
        case (.likeCount, .video(var video)): video.likeCount = try Self.count(value, field); self = .video(video)
        case (.status, .video(var video)): video.status = try Self.status(value, field); self = .video(video)
        case (.statusText, .video(var video)): video.statusText = try Self.optionalText(value, field); self = .video(video)
        case (.title, .book(var book)): book.title = try Self.text(value, field); self = .book(book)
        case (.cover, .book(var book)): book.cover = try Self.text(value, field); self = .book(book)
        case (.author, .book(var book)): book.author = try Self.optionalText(value, field); self = .book(book)
        case (.name, .icon(var icon)): icon.name = try Self.text(value, field); self = .icon(icon)
        case (.icon, .icon(var icon)): icon.icon = try Self.text(value, field); self = .icon(icon)
        default: throw ItemFieldError(field: field, reason: .notOfKind(kind))
        }
    }

    /// Content of `kind` with each of its fields (``ItemField/content(of:)``) read from
    /// `value(field)`; a required field without a value, or any value ``set(_:to:)`` refuses, is
    /// the error.
    public init(kind: ItemKind, values value: (ItemField) -> ItemFieldValue?) throws(ItemFieldError) {
        switch kind {
        case .video:
            self = .video(Video(title: try Self.text(value(.title), .title), cover: try Self.text(value(.cover), .cover),
                                playCount: try Self.count(value(.playCount), .playCount),
                                likeCount: try Self.count(value(.likeCount), .likeCount),
                                status: try Self.status(value(.status), .status),
                                statusText: try Self.optionalText(value(.statusText), .statusText)))
        case .book:
            self = .book(Book(title: try Self.text(value(.title), .title), cover: try Self.text(value(.cover), .cover),
                              author: try Self.optionalText(value(.author), .author)))
        case .icon:
            self = .icon(Icon(name: try Self.text(value(.name), .name), icon: try Self.text(value(.icon), .icon)))
        }
    }

    /// Every field whose value it may not hold (a negative count: the types hold the rest).
    public var fieldErrors: [ItemFieldError] {
        ItemField.content(of: kind).compactMap { field in
            do throws(ItemFieldError) {
                try Self.check(self[field], for: field)
                return nil
            } catch {
                return error
            }
        }
    }

    // MARK: The values each type of field holds

    /// Throws unless `field` may hold `value`, by its ``ItemField/contentType``.
    private static func check(_ value: ItemFieldValue?, for field: ItemField) throws(ItemFieldError) {
        switch field.contentType {
        case .text?: _ = try text(value, field)
        case .optionalText?: _ = try optionalText(value, field)
        case .count?: _ = try count(value, field)
        case .status?: _ = try status(value, field)
        case nil: return  // not content: the id and the size are checked where they are set
        }
    }

    @inline(__always)
    private static func text(_ value: ItemFieldValue?, _ field: ItemField) throws(ItemFieldError) -> String {
        guard case .text(let text)? = value else { throw refusal(of: value, for: field, expected: "a string") }
        return text
    }

    @inline(__always)
    private static func optionalText(_ value: ItemFieldValue?, _ field: ItemField) throws(ItemFieldError) -> String? {
        switch value {
        case nil: return nil
        case .text(let text)?: return text
        case .count?: throw refusal(of: value, for: field, expected: "a string or nothing")
        }
    }

    @inline(__always)
    private static func count(_ value: ItemFieldValue?, _ field: ItemField) throws(ItemFieldError) -> Int {
        guard case .count(let count)? = value, count >= 0 else { throw refusal(of: value, for: field, expected: "an integer ≥ 0") }
        return count
    }

    @inline(__always)
    private static func status(_ value: ItemFieldValue?, _ field: ItemField) throws(ItemFieldError) -> VideoStatus {
        guard case .text(let name)? = value, let status = VideoStatus(rawValue: name) else {
            throw refusal(of: value, for: field, expected: "one of " + VideoStatus.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return status
    }

    private static func refusal(of value: ItemFieldValue?, for field: ItemField, expected: String) -> ItemFieldError {
        ItemFieldError(field: field, reason: .invalid(expected: expected, found: value.map(String.init(describing:)) ?? "nothing"))
    }
}

extension ItemFieldValue: CustomStringConvertible {
    /// The value as error messages quote it: a string in quotes, a count as digits.
    public var description: String {
        switch self {
        case .text(let text): "\"\(text)\""
        case .count(let count): "\(count)"
        }
    }
}

/// A content field that cannot take a value: the item's kind has no such field, or the value is
/// not one the field holds.
public struct ItemFieldError: Error, Sendable, Hashable {
    public enum Reason: Sendable, Hashable {
        /// Items of this kind have no such field.
        case notOfKind(ItemKind)
        /// The value is not one the field holds (`found` is "nothing" for a missing value).
        case invalid(expected: String, found: String)
    }

    public var field: ItemField
    public var reason: Reason

    public init(field: ItemField, reason: Reason) {
        self.field = field
        self.reason = reason
    }

    /// What is wrong, without the field's name: "a book has no such field", "expected an integer
    /// ≥ 0, found -3".
    public var detail: String {
        switch reason {
        case .notOfKind(let kind): "a \(kind.rawValue) has no such field"
        case .invalid(let expected, let found): "expected \(expected), found \(found)"
        }
    }
}

extension ItemFieldError: CustomStringConvertible {
    public var description: String { "\(field.rawValue): \(detail)" }
}
