import CatalogModel
import CatalogTestSupport
import Foundation
import Testing
@testable import CatalogImport

/// A random catalogue of icons or videos, written as apps write them — random aliases from the
/// field table, random key case, random wrappers, some fields under keys of their own named by
/// `--map` — imports to the same catalogue.
@Suite struct AliasPropertyTests {
    @Test(arguments: 0..<4)
    func randomSpellingsImportToTheSameCatalogue(batch: Int) throws {
        var random = SplitMix64(seed: UInt64(4_400 + batch))
        for round in 0..<100 {
            let icons = Bool.random(using: &random)
            let kind: ItemKind = icons ? .icon : .video
            let count = Int.random(in: 1...8, using: &random)
            let items: [Item] = (0..<count).map { n in
                let size = Bool.random(using: &random) ? Size(width: Double(Int.random(in: 1...400, using: &random)), height: 120) : nil
                let content: ItemContent = icons
                    ? .icon(Icon(name: "Name \(n)", icon: "icon-\(n).png"))
                    : .video(Video(title: "Title \(n)", cover: "cover-\(n).jpg", playCount: n * 3, likeCount: n))
                return Item(id: "item-\(round)-\(n)", content: content, size: size)
            }
            // Some fields come from keys of the file's own, named by --map.
            var fieldMap: [ItemField: String] = [:]
            var written: Set<ItemField> = icons ? [.id, .name, .icon] : [.id, .title, .cover, .playCount, .likeCount]
            if items.contains(where: { $0.size != nil }) { written.formUnion([.width, .height]) }
            for (field, _) in ItemFieldTable.rows(for: kind) where written.contains(field) && Int.random(in: 0..<5, using: &random) == 0 {
                fieldMap[field] = "x_\(field.rawValue)_key"
            }
            // One spelling per field for the whole file (apps are consistent), in a random case.
            var spelling: [ItemField: String] = [:]
            for (field, keys) in ItemFieldTable.rows(for: kind) {
                let key = fieldMap[field] ?? keys.randomElement(using: &random)!
                spelling[field] = fieldMap[field] != nil ? key : Self.randomCase(key, &random)
            }
            let values = items.map { item -> [String: Any] in
                var values: [ItemField: Any] = [.id: item.id]
                switch item.content {
                case .icon(let icon):
                    values[.name] = icon.name
                    values[.icon] = icon.icon
                case .video(let video):
                    values[.title] = video.title
                    values[.cover] = video.cover
                    values[.playCount] = video.playCount
                    values[.likeCount] = video.likeCount
                case .book:
                    break
                }
                if let size = item.size {
                    values[.width] = Int(size.width)
                    values[.height] = Int(size.height)
                }
                return Dictionary(uniqueKeysWithValues: values.map { (spelling[$0.key]!, $0.value) })
            }
            var document: Any = values
            var root: String?
            switch Int.random(in: 0..<3, using: &random) {
            case 0: break
            case 1: document = ["code": 0, "list": values]
            default:
                document = ["data": ["items": values]]
                root = Bool.random(using: &random) ? "data.items" : nil
            }
            let data = try JSONSerialization.data(withJSONObject: document)
            // The kind is given: `{"title", "img"}` is an icon or a video, and only the user knows
            // which (detection has tests of its own).
            let options = ImportOptions(catalogName: "c", shape: icons ? .icons : .videos, root: root, fieldMap: fieldMap)
            let imported: ImportedCatalog
            do {
                imported = try CatalogImporter.decode(data, fileName: "random.json", options: options)
            } catch {
                Issue.record("\(error) for \(String(decoding: data, as: UTF8.self)) with \(fieldMap)")
                continue
            }
            #expect(imported.catalog.sections.map(\.items) == [items], "\(String(decoding: data, as: UTF8.self)) with \(fieldMap)")
            #expect(imported.report.ignoredKeys.isEmpty)
        }
    }

    static func randomCase(_ key: String, _ random: inout SplitMix64) -> String {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: key
        case 1: key.uppercased()
        default: key.prefix(1).uppercased() + key.dropFirst()
        }
    }
}
