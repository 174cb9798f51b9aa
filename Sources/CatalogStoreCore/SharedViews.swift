import CatalogConcurrency
import CatalogDiff
import CatalogModel
import CatalogViews

/// A view's answer to one write: the view's update and how many items match.
public struct ViewAnswer: Sendable, Hashable {
    /// The view after the write, the changeset from the view before it (nil: a reset), and a
    /// catalogue per stage.
    public var update: CatalogUpdate
    /// The number of items the view's filter keeps, before its window.
    public var total: Int
}

/// The live views of one database, one per catalogue and definition: the observers of the same
/// view share one ``LiveView`` and each write's answer, computed once. A view nobody observes is
/// dropped.
package final class SharedViews: Sendable {
    package struct Key: Hashable, Sendable {
        var name: String
        var definition: ViewDefinition
    }

    /// One view's state: the live view, where it stands, and the latest answers by the
    /// revision they start from.
    package struct State: Sendable {
        var live: LiveView?
        var answers: [Int: ViewAnswer] = [:]
        var observers = 0
    }

    private let entries = Locked<[Key: Locked<State>]>([:])
    private static let keptAnswers = 8

    package init() {}

    /// The state of `key`'s view, counting one more observer of it.
    package func subscribe(_ key: Key) -> Locked<State> {
        entries.withLock { entries in
            let entry = entries[key] ?? Locked(State())
            entries[key] = entry
            entry.withLock { $0.observers += 1 }
            return entry
        }
    }

    /// One observer fewer of `key`'s view; the view goes with the last.
    package func unsubscribe(_ key: Key) {
        entries.withLock { entries in
            guard let entry = entries[key] else { return }
            if entry.withLock({ state -> Bool in
                state.observers -= 1
                return state.observers == 0
            }) { entries[key] = nil }
        }
    }

    /// The number of views kept (for tests and metrics).
    package var count: Int { entries.withLock { $0.count } }

    /// The view's answer to the catalogue's `update`, for an observer that holds `held` (the
    /// view at the update's starting revision; nil before its first answer). Holding the view's
    /// lock: observers in step wait for one computation and share it.
    package static func answer(_ update: CatalogUpdate, held: Catalog?, definition: ViewDefinition,
                               in entry: Locked<State>) throws(ViewError) -> ViewAnswer {
        try entry.withLock { (state: inout State) throws(ViewError) -> ViewAnswer in
            if let changeset = update.changeset, let from = changeset.fromRevision {
                // Observers in step: the answer from `from` is computed once.
                if let kept = state.answers[from], kept.update.revision == update.revision { return kept }
                if state.live?.source.revision == from {
                    // The shared view stands where this write starts: the incremental step.
                    let answer = ViewAnswer(update: try state.live!.apply(update), total: state.live!.result.total)
                    keep(answer, from: from, in: &state)
                    return answer
                }
                // The shared view stands elsewhere (an observer behind the others, or resuming):
                // the view this observer holds — at `from`, the same for every observer there —
                // diffed with the view at this revision.
                var held = held
                if held == nil, let previous = update.previous { held = try definition.evaluate(on: previous).catalog }
                if let held {
                    let next = try view(at: update.catalog, definition: definition, in: &state)
                    if var diff = try? Changeset(from: held, to: next.catalog) {
                        (diff.fromRevision, diff.toRevision) = (from, update.revision)
                        var answer = CatalogUpdate(revision: update.revision, catalog: next.catalog, changeset: diff,
                                                   stages: diff.stagedCatalogs(from: held, to: next.catalog))
                        answer.previous = held
                        let viewAnswer = ViewAnswer(update: answer, total: next.total)
                        keep(viewAnswer, from: from, in: &state)
                        return viewAnswer
                    }
                }
            }
            // A reset, or nothing to start a changeset from: the view as it stands.
            let next = try view(at: update.catalog, definition: definition, in: &state)
            return ViewAnswer(update: .reset(next.catalog), total: next.total)
        }
    }

    /// The view of `catalog`: the shared view's when it stands there. The shared view moves to
    /// `catalog` only forwards (or when there is none): an observer behind the others gets a
    /// view evaluated for it alone, and the observers in step keep their incremental steps.
    private static func view(at catalog: Catalog, definition: ViewDefinition, in state: inout State) throws(ViewError) -> ViewResult {
        if let live = state.live, live.source.revision == catalog.revision, live.source == catalog { return live.result }
        if let live = state.live, live.source.revision > catalog.revision { return try definition.evaluate(on: catalog) }
        state.live = try LiveView(definition, of: catalog)
        state.answers = [:]
        return state.live!.result
    }

    /// Whether the view's state answers `update` without the view before it: an answer kept,
    /// or the shared view standing where the update starts.
    package static func canAnswer(_ update: CatalogUpdate, in entry: Locked<State>) -> Bool {
        guard let from = update.changeset?.fromRevision else { return true }
        return entry.withLock { state in
            state.answers[from]?.update.revision == update.revision || state.live?.source.revision == from
        }
    }

    /// Starts the shared view at `catalog` when it has none; `answering`, answers the view of
    /// `catalog` (the shared one's when it stands there), else an empty catalogue.
    package static func seed(_ entry: Locked<State>, definition: ViewDefinition, at catalog: Catalog,
                             answering: Bool) throws(ViewError) -> Catalog {
        try entry.withLock { (state: inout State) throws(ViewError) -> Catalog in
            if state.live == nil { state.live = try LiveView(definition, of: catalog) }
            guard answering else { return Catalog(name: catalog.name) }
            if let live = state.live, live.source.revision == catalog.revision { return live.result.catalog }
            return try definition.evaluate(on: catalog).catalog
        }
    }

    private static func keep(_ answer: ViewAnswer, from revision: Int, in state: inout State) {
        if state.answers.count >= keptAnswers { state.answers = [:] }
        state.answers[revision] = answer
    }
}
