import CatalogModel

extension CatalogEditor {
    /// The staged changeset of the edit, from revision `revision` to `revision + 1`, for the
    /// whole catalogue — computed from the sections the edit read, not the catalogue.
    public func changeset(catalog name: String) throws(DuplicateIDError) -> Changeset {
        let (before, after, positions) = partialSnapshots(name: name)
        var changeset = try Changeset(from: before, to: after)
        if let positions { changeset = changeset.placingSections(at: positions) }
        return changeset
    }
}

extension Changeset {
    /// The changeset of a part of a catalogue — some of its sections, in order — as one of the
    /// whole catalogue, where those sections are at `positions`: every section index `k` becomes
    /// `positions[k]`.
    package func placingSections(at positions: [Int]) -> Changeset {
        var changeset = self
        changeset.stages = stages.map { stage in
            var stage = stage
            stage.sections.deleted = stage.sections.deleted.map { positions[$0] }
            stage.sections.inserted = stage.sections.inserted.map { positions[$0] }
            stage.sections.reloaded = stage.sections.reloaded.map { positions[$0] }
            stage.sections.moved = stage.sections.moved.map { Move(from: positions[$0.from], to: positions[$0.to]) }
            func global(_ path: ItemPath) -> ItemPath { ItemPath(section: positions[path.section], item: path.item) }
            stage.items.deleted = stage.items.deleted.map(global)
            stage.items.inserted = stage.items.inserted.map(global)
            stage.items.reloaded = stage.items.reloaded.map(global)
            stage.items.moved = stage.items.moved.map { Move(from: global($0.from), to: global($0.to)) }
            return stage
        }
        return changeset
    }
}
