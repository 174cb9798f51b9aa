import CatalogDiff
import CatalogModel
import Testing

/// A stage survives the trip through UIKit's update items (`prepare(forCollectionViewUpdates:)`),
/// whatever order UIKit reports them in.
@Suite struct CollectionViewUpdateTests {
    @Test func everyStageOfRandomChangesetsRoundTrips() throws {
        var random = SplitMix64(seed: 9_100)
        var stages = 0
        for _ in 0..<300 {
            let (a, b) = StagedCatalogsTests.catalogs(DiffPropertyTests.randomPair(&random))
            for stage in try Changeset(from: a, to: b).stages {
                var updates = stage.collectionViewUpdates
                #expect(updates.count == stage.sections.count + stage.items.count)
                updates.shuffle(using: &random)
                #expect(Stage(updates) == Self.sorted(stage))
                stages += 1
            }
        }
        #expect(stages > 300)
    }

    @Test func anExampleInUIKitsTerms() {
        let stage = Stage(sections: SectionChanges(inserted: [2]),
                          items: ItemChanges(deleted: [ItemPath(section: 0, item: 1)], reloaded: [ItemPath(section: 1, item: 0)],
                                             moved: [Move(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 1, item: 2))]))
        #expect(stage.collectionViewUpdates == [
            .insertSection(2), .deleteItem(ItemPath(section: 0, item: 1)), .reloadItem(ItemPath(section: 1, item: 0)),
            .moveItem(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 1, item: 2)),
        ])
    }

    static func sorted(_ stage: Stage) -> Stage {
        var stage = stage
        stage.sortOperations()
        return stage
    }
}
