// The SwiftUI examples of the documentation, typechecked by Scripts/typecheck-uikit.sh against
// the stand-in for SwiftUI's interface (Tests/SwiftUIStandIn); DocumentedCodeTests checks that the
// documents show exactly this code. (Not a target: nothing here runs on this machine.)

// DOC: Sources/CatalogStore/CatalogStore.docc/SwiftUI.md docs/Apps.md
import CatalogModel
import CatalogStore
import CatalogSwiftUI
import SwiftUI

/// A bookshelf as a list, one section per shelf: a book dragged within its shelf is moved in the
/// store, and the list follows the store's update.
struct BookshelfList: View {
    @State private var shelf: LiveCatalog
    let store: CatalogStore

    init(store: CatalogStore) {
        self.store = store
        _shelf = State(initialValue: LiveCatalog(store.updates(of: "bookshelf")))
    }

    var body: some View {
        List(shelf.catalog?.sections ?? []) { section in
            // CatalogModel has a Section too: SwiftUI's is named in full.
            SwiftUI.Section(section.displayTitle) {
                ForEach(section.items) { item in
                    if case .book(let book) = item.content { Text(book.title) }
                }
                    .onMove { from, to in
                        guard let index = from.first else { return }
                        let id = section.items[index].id
                        // SwiftUI counts the destination with the book still in its place.
                        Task { try await store.move(item: id, toSection: section.id, index: to > index ? to - 1 : to, in: "bookshelf") }
                    }
            }
        }
        .overlay { if shelf.isLoading { ProgressView() } }
    }
}

/// Video cards in a grid that fills the width, live as the catalogue changes.
struct VideoGrid: View {
    @State private var videos: LiveCatalog

    init(store: CatalogStore) {
        _videos = State(initialValue: LiveCatalog(store.updates(of: "videos")))
    }

    var body: some View {
        ScrollView {
            LazyVGrid(columns: [GridItem(.adaptive(minimum: 160))]) {
                ForEach(videos.catalog?.sections.flatMap(\.items) ?? []) { item in
                    if case .video(let video) = item.content { Text(video.title) }
                }
            }
        }
    }
}
// DOC: end
