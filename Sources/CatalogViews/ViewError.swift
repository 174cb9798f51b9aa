import CatalogModel

/// Why a view definition was refused: the parameter, the position in it (1-based, in characters)
/// where the problem was found, and what was expected there.
public struct ViewError: Error, Sendable, Hashable {
    /// The parameters of a view, as HTTP and the command line name them.
    public enum Parameter: String, Sendable, Hashable, CaseIterable {
        case `where`, sort, group, limit, offset
    }

    public enum Reason: Sendable, Hashable {
        /// The text does not parse: `expected` was expected where `found` is.
        case expected(String, found: String)
        /// No item has a field of this name; `fields` are the ones the catalogue's items have.
        case unknownField(String, fields: [String])
        /// The field cannot be used so: `contains` on a count, a string compared with a count, an
        /// unknown status.
        case notApplicable(field: String, detail: String)
        /// The text is longer than the maximum, in UTF-8 bytes.
        case tooLong(maximum: Int)
        /// Parentheses and `not` nest deeper than the maximum.
        case tooDeep(maximum: Int)
        /// A sort key names a field a second time.
        case repeatedSortKey(String)
        /// A section of the view would hold items of several kinds.
        case mixedKinds(section: String, kinds: [ItemKind])
    }

    public var parameter: Parameter
    /// Where in the parameter's text (1-based, in characters); nil when the problem is not at one
    /// place of the text.
    public var position: Int?
    public var reason: Reason

    public init(_ parameter: Parameter, at position: Int?, _ reason: Reason) {
        self.parameter = parameter
        self.position = position
        self.reason = reason
    }

    /// What is wrong, without the parameter and the position.
    public var detail: String {
        switch reason {
        case .expected(let expected, let found): "expected \(expected), found \(found)"
        case .unknownField(let name, let fields):
            "unknown field \(name); the catalogue's items have " + fields.joined(separator: ", ")
        case .notApplicable(let field, let detail): "\(field): \(detail)"
        case .tooLong(let maximum): "longer than \(maximum) bytes"
        case .tooDeep(let maximum): "nested deeper than \(maximum) levels"
        case .repeatedSortKey(let name): "\(name) is already a sort key"
        case .mixedKinds(let section, let kinds):
            "section \(section) would hold " + kinds.map { $0.rawValue + "s" }.joined(separator: " and ")
                + "; keep one kind, for example with kind = \"\(kinds[0].rawValue)\" in where"
        }
    }
}

extension ViewError: CustomStringConvertible {
    /// `where, at 14: expected a value, found end of text`.
    public var description: String {
        parameter.rawValue + (position.map { ", at \($0)" } ?? "") + ": " + detail
    }
}
