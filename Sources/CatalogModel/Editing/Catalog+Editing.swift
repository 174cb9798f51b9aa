extension Catalog {
    /// This catalogue with `batch` applied (docs/Batches-and-moves.md), its revision raised by one (itself, unchanged,
    /// when the batch changes nothing).
    ///
    /// - Throws: ``BatchError`` naming the failed operation; the catalogue is unchanged.
    public func applying(_ batch: Batch) throws(BatchError) -> Catalog {
        var editor = CatalogEditor(source: InMemoryCatalogSource(self))
        do {
            try editor.apply(batch)
        } catch let error as BatchError {
            throw error
        } catch {
            // The in-memory source never throws.
            preconditionFailure("unexpected error from an in-memory catalogue: \(error)")
        }
        // A batch that changes nothing keeps the revision, as the store does.
        return editor.isEmpty ? self : editor.result(from: self)
    }
}
