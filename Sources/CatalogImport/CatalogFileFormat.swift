/// The syntax of a catalogue file. Property lists may be XML or binary; the parser tells them apart.
public enum CatalogFileFormat: String, Sendable, Hashable, CaseIterable {
    case json
    case plist

    /// The format implied by a file name's extension, or `nil` when it implies none.
    public init?(fileName: String) {
        let name = fileName.split(separator: "/").last ?? Substring(fileName)
        guard let dot = name.lastIndex(of: "."), name[dot...].count > 1 else { return nil }
        self.init(rawValue: name[name.index(after: dot)...].lowercased())
    }

    var displayName: String {
        switch self {
        case .json: "JSON"
        case .plist: "property list (XML or binary)"
        }
    }
}

/// How the content of a catalogue file is laid out.
public enum CatalogShape: String, Sendable, Hashable, CaseIterable {
    /// `{"catalog": …, "sections": [{…, "items": […]}]}`.
    case native
    /// An array of `{name, icon}` dictionaries: one icons section.
    case icons
    /// An array of arrays of book covers: one shelf per inner array.
    case bookshelf
    /// An array of video dictionaries (alias keys accepted): one videos section.
    case videos
}
