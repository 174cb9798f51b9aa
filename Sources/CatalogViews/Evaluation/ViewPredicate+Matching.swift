import CatalogModel

extension ViewPredicate {
    /// Whether `item`, held in the stored section `section`, passes the filter.
    public func matches(_ item: Item, section: String) -> Bool {
        compiled.passes(item, section: section)
    }

    /// ``matches(_:section:)`` for a ``compiled`` predicate, whose terms are folded already.
    func passes(_ item: Item, section: String) -> Bool {
        switch self {
        case .compare(let field, let op, let literal):
            guard let value = item.value(of: field, section: section) else { return false }
            return op.holds(value, literal)
        case .presence(let field, let present):
            return (item.value(of: field, section: section) != nil) == present
        case .among(let field, let literals):
            guard let value = item.value(of: field, section: section) else { return false }
            return literals.contains(value)
        case .contains(let field, let term):
            guard case .text(let text)? = item.value(of: field, section: section) else { return false }
            return TextFolding.folded(TextFolding.fold(text), contains: term)
        case .startsWith(let field, let term):
            guard case .text(let text)? = item.value(of: field, section: section) else { return false }
            return TextFolding.folded(TextFolding.fold(text), startsWith: term)
        case .and(let terms): return terms.allSatisfy { $0.passes(item, section: section) }
        case .or(let terms): return terms.contains { $0.passes(item, section: section) }
        case .not(let term): return !term.passes(item, section: section)
        }
    }

    /// The predicate with its terms folded once, so that matching folds only the item's text.
    var compiled: ViewPredicate {
        switch self {
        case .contains(let field, let term): .contains(field, TextFolding.fold(term))
        case .startsWith(let field, let term): .startsWith(field, TextFolding.fold(term))
        case .and(let terms): .and(terms.map(\.compiled))
        case .or(let terms): .or(terms.map(\.compiled))
        case .not(let term): .not(term.compiled)
        default: self
        }
    }
}
