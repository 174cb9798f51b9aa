import CatalogModel

/// Reading single values with errors that name the file, the path inside it and what was expected.
extension CatalogDecoder {
    func error(_ path: String, _ reason: ImportError.Reason) -> ImportError {
        ImportError(file: fileName, path: path, reason: reason)
    }

    func string(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        try Self.string(fileName, value, at: path())
    }

    static func string(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        guard case .string(let string) = value else {
            throw ImportError(file: fileName, path: path(), reason: .wrongType(expected: "a string", found: value.typeDescription))
        }
        return string
    }

    func nonEmptyString(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        try Self.nonEmptyString(fileName, value, at: path())
    }

    static func nonEmptyString(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> String {
        let result = try string(fileName, value, at: path())
        guard !result.isEmpty else {
            throw ImportError(file: fileName, path: path(), reason: .invalidValue(expected: "a non-empty string", found: "an empty string"))
        }
        return result
    }

    /// A counter (plays, likes): an integer ≥ 0.
    static func counter(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Int {
        let result = try integer(fileName, value, at: path())
        guard result >= 0 else {
            throw ImportError(file: fileName, path: path(), reason: .invalidValue(expected: "an integer ≥ 0", found: "\(result)"))
        }
        return result
    }

    func integer(_ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Int {
        try Self.integer(fileName, value, at: path())
    }

    static func integer(_ fileName: String, _ value: PropertyValue, at path: @autoclosure () -> String) throws(ImportError) -> Int {
        switch value {
        case .integer(let integer):
            return integer
        case .double(let double) where double == double.rounded() && abs(double) < 9.0e15:
            return Int(double)
        default:
            throw ImportError(file: fileName, path: path(), reason: .wrongType(expected: "an integer", found: value.typeDescription))
        }
    }

    mutating func noteIgnoredKeys(in dictionary: [String: PropertyValue], known: Set<String>) {
        for key in dictionary.keys where !known.contains(key) {
            ignoredKeys[key, default: 0] += 1
        }
    }

    static func baseName(of fileName: String) -> String {
        let last = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }
}

/// The current item's fields, as resolved by ``resolveFields(of:kind:at:)``, read into the
/// model's types; errors name the key the file used.
extension CatalogDecoder {
    func requiredString(_ field: ItemField, at location: Location) throws(ImportError) -> String {
        guard let (key, value) = self.field(field) else { throw missing(field, at: location) }
        // A list of images (as some feeds ship) gives its first one as the cover.
        if case .array(let images) = value, let first = images.first {
            return try CatalogDecoder.string(fileName, first, at: location.path("\(key)[0]"))
        }
        return try string(value, at: location.path(key))
    }

    func optionalString(_ field: ItemField, at location: Location) throws(ImportError) -> String? {
        guard let (key, value) = self.field(field) else { return nil }
        if case .null = value { return nil }
        return try string(value, at: location.path(key))
    }

    /// A counter: an integer ≥ 0; absent means 0.
    func count(_ field: ItemField, at location: Location) throws(ImportError) -> Int {
        guard let (key, value) = self.field(field) else { return 0 }
        return try CatalogDecoder.counter(fileName, value, at: location.path(key))
    }

    /// A review status by name, or by its index in ``VideoStatus/allCases`` as numeric feeds ship
    /// it; absent means `published`.
    func status(at location: Location) throws(ImportError) -> VideoStatus {
        guard let (key, value) = field(.status) else { return .published }
        let expected = "one of draft, reviewing, recommended, published, rejected (or 0–4)"
        switch value {
        case .string(let name):
            guard let status = VideoStatus(rawValue: name.lowercased()) else {
                throw error(location.path(key), .invalidValue(expected: expected, found: "\"\(name)\""))
            }
            return status
        case .integer(let index):
            guard VideoStatus.allCases.indices.contains(index) else {
                throw error(location.path(key), .invalidValue(expected: expected, found: "\(index)"))
            }
            return VideoStatus.allCases[index]
        default:
            throw error(location.path(key), .wrongType(expected: expected, found: value.typeDescription))
        }
    }
}
