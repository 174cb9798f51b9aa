import PostgresNIO

extension PostgresCatalogStore {
    /// The fewest rows written at once after which the planner's statistics are refreshed.
    static let statisticsRefreshRows = 1_000

    /// Refreshes the planner's statistics of sections and items after a write that added `rows`
    /// rows, when they are at least a tenth of the items already there (autovacuum's own rule,
    /// which it applies only a minute or more later).
    ///
    /// Until then the planner takes a catalogue just imported for a handful of rows, and plans
    /// the writes to it as scans of the catalogue rather than probes of its keys. The write has
    /// committed already; a refresh that fails is logged, and autovacuum refreshes later.
    func refreshStatistics(afterWriting rows: Int) async {
        guard rows >= Self.statisticsRefreshRows else { return }
        let logger = self.logger
        do {
            try await withConnection { connection in
                var known: Float = 0
                for try await tuples in try await connection.query("SELECT reltuples FROM pg_class WHERE oid = 'item'::regclass",
                                                                   logger: logger).decode(Float.self) {
                    known = tuples
                }
                guard Float(rows) >= known / 10 else { return }
                try await connection.query("ANALYZE section, item", logger: logger)
            }
        } catch {
            logger.warning("the planner's statistics were not refreshed after a large write: \(error)")
        }
    }
}
