/// One entry of the list UIKit hands a layout in `prepare(forCollectionViewUpdates:)`: what a
/// batch does to one section or item, by index before and after it.
///
/// UIKit reports a stage's operations in this form; ``Stage/init(_:)`` turns them back into the
/// ``Stage`` the layout's transition is computed from, so the conversion is tested here rather
/// than in code that only builds where UIKit exists.
public enum CollectionViewUpdate: Sendable, Hashable {
    case insertSection(Int)
    case deleteSection(Int)
    case reloadSection(Int)
    case moveSection(from: Int, to: Int)
    case insertItem(ItemPath)
    case deleteItem(ItemPath)
    case reloadItem(ItemPath)
    case moveItem(from: ItemPath, to: ItemPath)
}

extension Stage {
    /// The stage a list of collection-view updates describes (any order).
    public init(_ updates: [CollectionViewUpdate]) {
        self.init()
        for update in updates {
            switch update {
            case .insertSection(let section): sections.inserted.append(section)
            case .deleteSection(let section): sections.deleted.append(section)
            case .reloadSection(let section): sections.reloaded.append(section)
            case .moveSection(let from, let to): sections.moved.append(Move(from: from, to: to))
            case .insertItem(let path): items.inserted.append(path)
            case .deleteItem(let path): items.deleted.append(path)
            case .reloadItem(let path): items.reloaded.append(path)
            case .moveItem(let from, let to): items.moved.append(Move(from: from, to: to))
            }
        }
        sortOperations()
    }

    /// Puts each list of operations in index order (moves by their source), so that equal
    /// stages compare and print alike whatever order they were made in.
    public mutating func sortOperations() {
        sections.deleted.sort()
        sections.inserted.sort()
        sections.reloaded.sort()
        sections.moved.sort { $0.from < $1.from }
        items.deleted.sort()
        items.inserted.sort()
        items.reloaded.sort()
        items.moved.sort { $0.from < $1.from }
    }

    /// The stage as the updates a collection view reports for it: sections first, then items.
    public var collectionViewUpdates: [CollectionViewUpdate] {
        sections.deleted.map(CollectionViewUpdate.deleteSection) + sections.inserted.map(CollectionViewUpdate.insertSection)
            + sections.reloaded.map(CollectionViewUpdate.reloadSection)
            + sections.moved.map { CollectionViewUpdate.moveSection(from: $0.from, to: $0.to) }
            + items.deleted.map(CollectionViewUpdate.deleteItem) + items.inserted.map(CollectionViewUpdate.insertItem)
            + items.reloaded.map(CollectionViewUpdate.reloadItem)
            + items.moved.map { CollectionViewUpdate.moveItem(from: $0.from, to: $0.to) }
    }
}
