import Crypto
import Foundation

/// Named static tokens, stored only as SHA-256 hashes (`catalog serve --token-file FILE`).
///
/// One token a line, fields separated by spaces or tabs; `#` starts a comment:
///
/// ```
/// # name   sha-256 of the token (64 hex digits)                            scope  catalogues
/// reader   4b227777d4dd1fc61c6f884f48641d02b4d121d3fd328cb08b5531fcacdabf8a  read
/// app      ef2d127de37b942baad06145e54b0c619a1f22327b2ebbcfbec78f5564afe39d  write  bookshelf,home
/// ops      e7f6c011776e8db7cd330b54174fd76f7d0216b612387a5ffcfb81e6f0919683  admin  *
/// ```
///
/// The scope is `read`, `write` or `admin` (each includes the ones before it); the catalogues, a
/// comma-separated list of names (percent-encoded where a name holds a space or a comma), or `*`
/// or nothing for all. Names and hashes are unique. The server never holds a token itself, so
/// the file may be read by more people than the tokens are given to; `catalog token` makes a
/// token and its line.
public struct TokenFile: Sendable, Equatable {
    /// Grants by the SHA-256 of their token, as lowercase hex.
    public var grants: [String: AccessGrant]

    public init(grants: [String: AccessGrant] = [:]) { self.grants = grants }

    /// A token file's text read; the error names the line and what is wrong with it.
    public init(parsing text: String) throws(TokenFileError) {
        var grants: [String: AccessGrant] = [:]
        var names = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            func fail(_ reason: String) -> TokenFileError { TokenFileError(line: index + 1, reason: reason) }
            guard fields.count == 3 || fields.count == 4 else {
                throw fail("expected NAME SHA256 SCOPE [CATALOGUES], found \(fields.count) field\(fields.count == 1 ? "" : "s")")
            }
            let name = String(fields[0])
            let hash = fields[1].lowercased()
            guard hash.utf8.count == 64, hash.allSatisfy(\.isHexDigit) else {
                throw fail("the second field must be the token's SHA-256 as 64 hex digits, found \(fields[1].count) characters")
            }
            guard let scope = AccessScope(name: fields[2]) else {
                throw fail("the scope must be read, write or admin, found \"\(fields[2])\"")
            }
            var catalogs: Set<String>? = nil
            if fields.count == 4, fields[3] != "*" {
                var named = Set<String>()
                for part in fields[3].split(separator: ",", omittingEmptySubsequences: false) {
                    guard !part.isEmpty, let decoded = part.removingPercentEncoding, !decoded.isEmpty else {
                        throw fail("the catalogues must be names separated by commas (percent-encoded), or *; found \"\(fields[3])\"")
                    }
                    named.insert(decoded)
                }
                catalogs = named
            }
            guard names.insert(name).inserted else { throw fail("the name \(name) is on an earlier line too") }
            guard grants[hash] == nil else { throw fail("the hash of \(name)'s token is on an earlier line too") }
            grants[hash] = AccessGrant(holder: name, scope: scope, catalogs: catalogs)
        }
        self.grants = grants
    }

    /// The file at `path` read.
    public init(contentsOf path: String) throws(TokenFileError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw TokenFileError(line: 0, reason: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw TokenFileError(line: 0, reason: "is not UTF-8 text") }
        try self.init(parsing: text)
    }

    /// The grant of `token`, if the file holds its hash.
    public func grant(for token: String) -> AccessGrant? { grants[Self.hash(token)] }

    /// A token's SHA-256 as lowercase hex, as the file holds it.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }

    /// A new random token (32 bytes from the system's generator, base64url) and its line.
    public static func newToken(name: String, scope: AccessScope, catalogs: [String]?) -> (token: String, line: String) {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        let token = "ck_" + bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let names = catalogs.map { $0.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: ",") } ?? "*"
        return (token, "\(name)\t\(hash(token))\t\(scope.name)\t\(names)")
    }
}

/// Why a token file cannot be used: its line (0 for the file as a whole) and the reason.
public struct TokenFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public var description: String { line == 0 ? reason : "line \(line): \(reason)" }
}
