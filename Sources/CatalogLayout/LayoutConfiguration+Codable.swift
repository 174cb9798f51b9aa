import CatalogModel

/// `LAYOUT.json` as in docs/Layouts.md: `{"style": "flow", "itemSize": [90, 50], "sectionInset": [10, 10, 10, 10], …}`.
///
/// Decoding checks every value and refuses unknown keys with the list of known ones, so a typo in
/// a key is an error instead of a silent default.
extension LayoutConfiguration: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let knownKeys = [
        "style", "itemSize", "lineSpacing", "interitemSpacing", "sectionInset", "headerHeight",
        "footerHeight", "pinHeaders", "pinFooters", "scrollDirection", "columns", "columnSpacing",
        "minScale", "flingThreshold",
    ]

    public init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<Key>
        do {
            container = try decoder.container(keyedBy: Key.self)
        } catch {
            throw LayoutConfigurationError(key: "", expected: "a JSON object such as {\"style\": \"flow\"}")
        }
        if let unknown = container.allKeys.map(\.stringValue).first(where: { !Self.knownKeys.contains($0) }) {
            throw LayoutConfigurationError(key: unknown, expected: "one of the known keys: " + Self.knownKeys.joined(separator: ", "))
        }

        func value<T: Decodable>(_ key: String, _ type: T.Type, _ expected: String) throws -> T? {
            guard container.contains(Key(key)) else { return nil }
            do {
                return try container.decode(T.self, forKey: Key(key))
            } catch {
                throw LayoutConfigurationError(key: key, expected: expected)
            }
        }
        func numbers(_ key: String, count: Int, _ expected: String) throws -> [Double]? {
            guard let list = try value(key, [Double].self, expected) else { return nil }
            guard list.count == count else {
                throw LayoutConfigurationError(key: key, expected: expected, found: "\(list.count) numbers")
            }
            return list
        }

        guard let styleName = try value("style", String.self, "a style name") else {
            throw LayoutConfigurationError(key: "style", expected: "one of " + LayoutStyle.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let style = LayoutStyle(rawValue: styleName) else {
            throw LayoutConfigurationError(key: "style", expected: "one of " + LayoutStyle.allCases.map(\.rawValue).joined(separator: ", "),
                                           found: "\"\(styleName)\"")
        }
        self.init(style: style)
        if let size = try numbers("itemSize", count: 2, "[width, height]") {
            itemSize = Size(width: size[0], height: size[1])
        }
        if let inset = try numbers("sectionInset", count: 4, "[top, left, bottom, right]") {
            sectionInset = Insets(top: inset[0], left: inset[1], bottom: inset[2], right: inset[3])
        }
        lineSpacing = try value("lineSpacing", Double.self, "a number") ?? lineSpacing
        interitemSpacing = try value("interitemSpacing", Double.self, "a number") ?? interitemSpacing
        headerHeight = try value("headerHeight", Double.self, "a number") ?? headerHeight
        footerHeight = try value("footerHeight", Double.self, "a number") ?? footerHeight
        pinHeaders = try value("pinHeaders", Bool.self, "true or false") ?? pinHeaders
        pinFooters = try value("pinFooters", Bool.self, "true or false") ?? pinFooters
        if let direction = try value("scrollDirection", String.self, "\"vertical\" or \"horizontal\"") {
            guard let parsed = ScrollDirection(rawValue: direction) else {
                throw LayoutConfigurationError(key: "scrollDirection", expected: "\"vertical\" or \"horizontal\"", found: "\"\(direction)\"")
            }
            scrollDirection = parsed
        }
        columns = try value("columns", Int.self, "an integer") ?? columns
        columnSpacing = try value("columnSpacing", Double.self, "a number") ?? columnSpacing
        minScale = try value("minScale", Double.self, "a number") ?? minScale
        flingThreshold = try value("flingThreshold", Double.self, "a number") ?? flingThreshold
        try validate()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(style, forKey: Key("style"))
        if let itemSize { try container.encode([itemSize.width, itemSize.height], forKey: Key("itemSize")) }
        try container.encode(lineSpacing, forKey: Key("lineSpacing"))
        try container.encode(interitemSpacing, forKey: Key("interitemSpacing"))
        try container.encode([sectionInset.top, sectionInset.left, sectionInset.bottom, sectionInset.right],
                             forKey: Key("sectionInset"))
        try container.encode(headerHeight, forKey: Key("headerHeight"))
        try container.encode(footerHeight, forKey: Key("footerHeight"))
        try container.encode(pinHeaders, forKey: Key("pinHeaders"))
        try container.encode(pinFooters, forKey: Key("pinFooters"))
        try container.encode(scrollDirection, forKey: Key("scrollDirection"))
        try container.encode(columns, forKey: Key("columns"))
        try container.encode(columnSpacing, forKey: Key("columnSpacing"))
        try container.encode(minScale, forKey: Key("minScale"))
        try container.encode(flingThreshold, forKey: Key("flingThreshold"))
    }
}
