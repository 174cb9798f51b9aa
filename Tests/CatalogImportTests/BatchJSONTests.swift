import CatalogImport
import CatalogModel
import CatalogTestSupport
import Foundation
import Testing

/// `Batch.json` reads back as the same batch (what a follower's outbox keeps and sends).
@Suite struct BatchJSONTests {
    @Test func randomBatchesReadBackTheSame() throws {
        var random = RandomEdits(seed: 4242)
        for _ in 0..<500 {
            let catalog = random.catalog()
            let batch = Batch(baseRevision: random.chance(50) ? random.int(0...99) : nil,
                              operations: (0..<random.int(0...5)).map { _ in random.operation(on: catalog) })
            #expect(try BatchReader.decode(Data(batch.json.utf8), fileName: "batch.json") == batch, "\(batch.json)")
        }
    }

    @Test func everyFieldAndEveryKindReadsBack() throws {
        let video = Item(id: "v\"1\u{1}é", content: .video(Video(title: "Line\nbreak", cover: "c", playCount: 12, likeCount: 0,
                                                                 status: VideoStatus.allCases.last!, statusText: "Live now")),
                         size: Size(width: 160, height: 90.5))
        let batch = Batch(operations: [
            .insertItem(section: "v", index: 0, item: video),
            .updateItem(id: "v\"1\u{1}é", fields: ItemFields(content: [.statusText: Optional<ItemFieldValue>.none, .playCount: .some(.count(7))], size: .some(nil))),
            .updateItem(id: "b", fields: ItemFields(author: .some("A"), size: .some(Size(width: 1.25, height: 2)))),
            .updateSection(id: "s", fields: SectionFields(title: .some(nil), capacity: .some(nil))),
            .insertSection(index: 2, section: Section(id: "icons", kind: .icons, title: "Apps", capacity: nil,
                                                      items: [Item(id: "i", content: .icon(Icon(name: "Home", icon: "house")))])),
            .moveItem(id: "b", toSection: "s", index: nil, policy: .displace),
            .moveSection(id: "s", index: 0),
            .deleteSection(id: "t"),
            .deleteItem(id: "x"),
        ])
        #expect(try BatchReader.decode(Data(batch.json.utf8), fileName: "batch.json") == batch, "\(batch.json)")
    }
}
