import CatalogStoreCore
import Foundation

/// Where a PostgreSQL database is and who connects to it, read from a URL such as
/// `postgres://user@host:5432/catalogs` (also `postgresql://`).
///
/// The password comes from the URL, else `PGPASSWORD`, else the password file (`PGPASSFILE` or
/// `~/.pgpass`, in libpq's format). ``description`` never includes it, so a location can be
/// printed and logged. A `host` query parameter naming a folder (`?host=/run/postgresql`) connects
/// through the Unix socket in it, as libpq does; `sslmode` is `disable`, `prefer` (the default)
/// or `require`.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    /// The folder of the server's Unix socket, when it is reached through one.
    public var socketFolder: String?
    public var user: String
    public var database: String
    public var tls: TLSMode
    var password: String?

    /// Whether `text` is a PostgreSQL URL rather than a file path.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a URL; `environment` and `home` stand in for the process's (tests).
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` naming what is wrong with the URL.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                home: String = NSHomeDirectory()) throws(StoreError) {
        func refuse(_ reason: String) -> StoreError {
            .cannotOpen(path: Self.redacted(text), reason: reason)
        }
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw refuse("not a PostgreSQL URL (postgres://user@host:port/database)")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        socketFolder = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? (socketFolder == nil ? query["host"] ?? "localhost" : "localhost")
        if let port = query["port"] ?? components.port.map(String.init) {
            guard let number = Int(port), (1...65_535).contains(number) else { throw refuse("the port \(port) is not a port number") }
            self.port = number
        } else {
            port = 5432
        }
        user = components.user.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? user
        guard !database.contains("/") else { throw refuse("the database name \(database) holds a slash") }
        let mode = query["sslmode"] ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else {
            throw refuse("sslmode \(mode) is not one of disable, prefer, require")
        }
        self.tls = socketFolder == nil ? tls : .disable
        password = components.password.flatMap { $0.removingPercentEncoding }
            ?? environment["PGPASSWORD"]
            ?? Self.passwordFile(environment["PGPASSFILE"] ?? home + "/.pgpass",
                                 host: socketFolder ?? host, port: port, database: database, user: user)
    }

    /// The URL without its password.
    public var description: String {
        let user = self.user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? self.user
        let database = self.database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? self.database
        if let socketFolder { return "postgres://\(user)@/\(database)?host=\(socketFolder)&port=\(port)" }
        return "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// `text` with any password in it replaced, for a message about a URL that did not parse.
    static func redacted(_ text: String) -> String {
        guard let components = URLComponents(string: text), components.password != nil else {
            // Unparsable: keep nothing between the scheme and the host that could be a secret.
            if let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") {
                return String(text[..<scheme.upperBound]) + "…" + String(text[at...])
            }
            return text
        }
        var copy = components
        copy.password = nil
        return copy.string ?? text
    }

    /// The password libpq's password file gives for this connection: the first line whose
    /// fields (`host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped)
    /// match. Nil when there is no file or no line matches.
    static func passwordFile(_ path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = []
            var field = ""
            var escaped = false
            for character in line {
                if escaped {
                    field.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":" && fields.count < 4 {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(character)
                }
            }
            fields.append(field)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}
