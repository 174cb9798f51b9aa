/// A field of an item: its id, the content fields of its kind, and the two lengths of its natural
/// size. The names are CatalogKit's own keys in catalogue files and batches
/// (docs/Catalogue-files.md) and the names of the journal's keys.
///
/// Which kind has which content field, and how a field reads and writes an ``ItemContent``, is
/// stated once, here and in ItemContent+Fields.swift: the importer, the exporter, the editor's
/// updates, the store's columns and the journal all go through it. A new field still touches
/// these places: its kind's struct (ItemContent.swift), this enum, ItemContent+Fields.swift, a
/// migration per backend that adds its column (Migrations/ and Migrations/postgres/), the
/// decoder's constructor of its kind (CatalogDecoder), the aliases loose files may use for it
/// (CatalogImport's ItemFields.swift), the typed initialiser of ``ItemFields``
/// (Editing/Batch.swift), and the documents that list the fields (openapi.json's `map` pattern,
/// docs/Catalogue-files.md), which a test holds to this enum; `catalog show` prints it if its
/// details column should.
public enum ItemField: String, CaseIterable, Sendable, Hashable {
    case id, name, icon, title, cover, author, playCount, likeCount, status, statusText, width, height

    /// The field's place in ``allCases``, as a switch: buffers indexed by field (the decoder's,
    /// the store's columns) use it for every field of every item.
    package var ordinal: Int {
        switch self {
        case .id: 0
        case .name: 1
        case .icon: 2
        case .title: 3
        case .cover: 4
        case .author: 5
        case .playCount: 6
        case .likeCount: 7
        case .status: 8
        case .statusText: 9
        case .width: 10
        case .height: 11
        }
    }

    /// The fields every kind has: the id and the size's lengths.
    public static let common: [ItemField] = [.id, .width, .height]

    /// The content fields of `kind`, in the order the native format writes them.
    public static func content(of kind: ItemKind) -> [ItemField] {
        switch kind {
        case .video: videoContent
        case .book: bookContent
        case .icon: iconContent
        }
    }

    private static let videoContent: [ItemField] = [.title, .cover, .playCount, .likeCount, .status, .statusText]
    private static let bookContent: [ItemField] = [.title, .cover, .author]
    private static let iconContent: [ItemField] = [.name, .icon]

    /// What a content field holds; nil for the id and the size's lengths, which are not content.
    public var contentType: ContentType? {
        switch self {
        case .id, .width, .height: nil
        case .name, .icon, .title, .cover: .text
        case .author, .statusText: .optionalText
        case .playCount, .likeCount: .count
        case .status: .status
        }
    }

    /// What a content field holds.
    public enum ContentType: Sendable, Hashable {
        /// A string.
        case text
        /// A string that may be absent.
        case optionalText
        /// An integer ≥ 0.
        case count
        /// The name of a ``VideoStatus``.
        case status
    }
}

/// The value of an item's content field.
public enum ItemFieldValue: Sendable, Hashable {
    /// A text field's string, or a status's name.
    case text(String)
    /// A count.
    case count(Int)

    /// Which case holds a field's value: what a reader of stored values (a column, a journal
    /// entry) decodes it as. Readers switch over it, so a representation added here is a compile
    /// error in each until it reads it.
    package enum Representation: Sendable, Hashable {
        case text, count
    }
}

extension ItemField {
    /// How this field's value is held (``ItemFieldValue``'s case). A ``ContentType`` added to the
    /// model is a compile error here until it says how it is held.
    package var representation: ItemFieldValue.Representation {
        switch contentType {
        case .text?, .optionalText?, .status?, nil: .text
        case .count?: .count
        }
    }
}
