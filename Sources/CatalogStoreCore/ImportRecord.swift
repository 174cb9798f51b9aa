/// Where a stored catalogue came from: written to the `import` table with the revision it made.
public struct ImportRecord: Sendable, Hashable {
    /// The file as the user named it.
    public var source: String
    public var format: String
    public var shape: String
    public var derivedIDs: Int
    public var duplicates: Int
    public var ignoredKeys: Int

    public init(source: String, format: String, shape: String, derivedIDs: Int = 0, duplicates: Int = 0, ignoredKeys: Int = 0) {
        self.source = source
        self.format = format
        self.shape = shape
        self.derivedIDs = derivedIDs
        self.duplicates = duplicates
        self.ignoredKeys = ignoredKeys
    }
}
