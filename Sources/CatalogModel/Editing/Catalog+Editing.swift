extension Catalog {
    /// This catalogue with `batch` applied (SPEC §4), its revision raised by one.
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
        return editor.result(from: self)
    }
}
