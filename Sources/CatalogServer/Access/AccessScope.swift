/// What a credential lets its holder do, each scope including the ones below it: `read` (GETs
/// and event streams), `write` (moves, batches, numbered writes), `admin` (imports, replacing,
/// deleting, metrics).
public enum AccessScope: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case read = 1
    case write
    case admin

    public static func < (a: AccessScope, b: AccessScope) -> Bool { a.rawValue < b.rawValue }

    /// The name in a JWT's `scope` claim: `catalogs:read`, `catalogs:write`, `catalogs:admin`.
    public var claim: String { "catalogs:\(name)" }

    public var name: String {
        switch self {
        case .read: "read"
        case .write: "write"
        case .admin: "admin"
        }
    }

    public var description: String { claim }

    /// `read`, `write`, `admin`, or the claim forms `catalogs:read`…
    public init?(name: some StringProtocol) {
        let text = String(name)
        let bare = text.hasPrefix("catalogs:") ? text.dropFirst("catalogs:".count) : Substring(text)
        guard let scope = Self.allCases.first(where: { $0.name == bare }) else { return nil }
        self = scope
    }
}

/// What one credential allows: a scope, on some catalogues or on all of them.
public struct AccessGrant: Sendable, Equatable {
    /// Who holds it, for the log: a token's name, a JWT's `sub`.
    public var holder: String
    public var scope: AccessScope
    /// The catalogues it reaches; nil for every catalogue.
    public var catalogs: Set<String>?

    public init(holder: String, scope: AccessScope, catalogs: Set<String>? = nil) {
        self.holder = holder
        self.scope = scope
        self.catalogs = catalogs
    }

    /// Whether it reaches `catalog`.
    public func reaches(_ catalog: String) -> Bool {
        catalogs?.contains(catalog) ?? true
    }

    /// One line for `serve`'s log and the console: `catalogs:write on bookshelf, home`.
    public var summary: String {
        scope.claim + (catalogs.map { " on " + ($0.isEmpty ? "no catalogue" : $0.sorted().joined(separator: ", ")) } ?? "")
    }
}
