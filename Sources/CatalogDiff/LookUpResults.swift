/// What ``IDMatching/lookUp(_:in:expectingOrder:into:)`` reports for each id of B.
///
/// A protocol rather than two closures: the lookup is specialised for the concrete type, so the
/// calls are direct and small ones are inlined wherever the lookup reports — closures were inlined
/// only while the lookup itself was, which a few more call sites were enough to stop.
protocol LookUpResults {
    /// B's id at flat position `q` is A's id at position `p`. The ordered lookup reports some ids
    /// after later ones, so calls need not come in B's order.
    mutating func matched(_ q: Int, _ p: Int)
    /// A does not have B's id at `q`; `earlier` is the B position of its first occurrence in B, or
    /// −1 when this is the first. These calls come in B's order.
    mutating func unmatched(_ q: Int, _ earlier: Int)
    /// Like ``matched(_:_:)``, but only when no B position matched A's position `p` before;
    /// false, recording nothing, when one did. Lets a loop record a match without a call that
    /// could grow a list.
    mutating func matchedFirst(_ q: Int, _ p: Int) -> Bool
}

extension LookUpResults {
    mutating func matchedFirst(_ q: Int, _ p: Int) -> Bool {
        matched(q, p)
        return true
    }
}
