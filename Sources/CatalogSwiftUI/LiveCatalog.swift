import CatalogDiff
import CatalogModel
import Observation

/// A catalogue kept live for SwiftUI: an `@Observable` model on the main actor, fed by a
/// sequence of updates (`store.updates(of:)`, a followed catalogue on a device), that a view reads
/// as it reads any observable model. Each update sets ``catalog`` and ``revision`` once, so a
/// view that reads them is invalidated once per update, however many items it changed.
///
/// The model consumes its updates on a task of its own, which holds the model weakly: when the
/// model's owner lets it go (a view's `@State` leaving the hierarchy), the task is cancelled and
/// the observation ends — nothing keeps a screen alive.
///
/// ```swift
/// struct Bookshelf: View {
///     @State private var shelf: LiveCatalog
///     init(store: CatalogStore) { _shelf = State(initialValue: LiveCatalog(store.updates(of: "bookshelf"))) }
///     var body: some View {
///         List(shelf.catalog?.sections ?? []) { section in
///             Section(section.title ?? section.id) { ForEach(section.items) { Text($0.title) } }
///         }
///         .overlay { if shelf.isLoading { ProgressView() } }
///     }
/// }
/// ```
@MainActor @Observable
public final class LiveCatalog {
    /// The catalogue as of the newest update; nil until the first arrives.
    public private(set) var catalog: Catalog?
    /// The revision of ``catalog``.
    public private(set) var revision: Int?
    /// The newest update, with its changeset (nil for a reset): what an animated view applies.
    public private(set) var lastUpdate: CatalogUpdate?
    /// Whether no update has arrived yet.
    public var isLoading: Bool { catalog == nil && error == nil }
    /// What ended the updates, if an error did (the catalogue stays as last seen).
    public private(set) var error: (any Error)?
    /// Whether the updates have ended (an error, or a sequence that finished).
    public private(set) var hasEnded = false

    @ObservationIgnored private var consumer: Consumer?

    /// A model that takes in `updates` from now on, until it is released.
    public init<Updates: AsyncSequence & Sendable>(_ updates: Updates) where Updates.Element == CatalogUpdate {
        consumer = Consumer(task: Task { [weak self] in
            do {
                for try await update in updates {
                    guard let self else { return }
                    self.take(update)
                }
                self?.hasEnded = true
            } catch is CancellationError {
            } catch {
                guard let self, !Task.isCancelled else { return }
                self.error = error
                self.hasEnded = true
            }
        })
    }

    /// Stops taking updates (also done when the model is released).
    public func cancel() {
        consumer?.task.cancel()
    }

    private func take(_ update: CatalogUpdate) {
        lastUpdate = update
        catalog = update.catalog
        revision = update.revision
    }

    /// The task that consumes the updates, cancelled when the model (its only owner) goes.
    private final class Consumer: Sendable {
        let task: Task<Void, Never>

        init(task: Task<Void, Never>) { self.task = task }

        deinit { task.cancel() }
    }
}
