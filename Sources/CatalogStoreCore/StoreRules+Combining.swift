extension StoreRules {
    /// The most edits one transaction carries when a store combines edits that arrive together
    /// (each keeps a revision of its own and fails alone): a steady stream of writes still
    /// commits regularly, and one failing edit rolls back a bounded group.
    package static let maximumGroup = 64
}
