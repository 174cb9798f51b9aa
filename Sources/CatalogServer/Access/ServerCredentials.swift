import CatalogImport
import Foundation
import Hummingbird
import HTTPTypes
import NIOConcurrencyHelpers

/// The credentials a server accepts, any of them at once: one admin token (`--token`), named
/// tokens from a file of hashes (`--token-file`, read again by ``reloadTokenFile()`` on SIGHUP)
/// and JWTs (`--jwt-key`). With none, every request may do everything, as a server on a
/// developer's machine does (its ``BrowserPolicy`` still keeps web pages out).
public final class ServerCredentials: Sendable {
    /// The SHA-256 of `--token`.
    private let adminTokenHash: TokenHash?
    public let tokenFilePath: String?
    private let tokenFile: NIOLockedValueBox<TokenFile>
    public let jwt: JWTVerifier?

    /// No credential: every request may do everything.
    public static let none = ServerCredentials(adminTokenHash: nil, tokenFilePath: nil, tokenFile: TokenFile(), jwt: nil)

    private init(adminTokenHash: TokenHash?, tokenFilePath: String?, tokenFile: TokenFile, jwt: JWTVerifier?) {
        (self.adminTokenHash, self.tokenFilePath, self.jwt) = (adminTokenHash, tokenFilePath, jwt)
        self.tokenFile = NIOLockedValueBox(tokenFile)
    }

    /// `token` (an admin token), the tokens of the file at `tokenFile`, JWTs `jwt` verifies.
    public convenience init(token: String? = nil, tokenFile: String? = nil, jwt: JWTVerifier? = nil) throws(TokenFileError) {
        let file = try tokenFile.map { path throws(TokenFileError) in try TokenFile(contentsOf: path) } ?? TokenFile()
        self.init(adminTokenHash: token.map { TokenHash(of: $0) }, tokenFilePath: tokenFile, tokenFile: file, jwt: jwt)
    }

    /// One admin token (`--token`).
    public convenience init(adminToken: String) {
        self.init(adminTokenHash: TokenHash(of: adminToken), tokenFilePath: nil, tokenFile: TokenFile(), jwt: nil)
    }

    /// Whether any credential is set (else nothing needs one).
    public var isEmpty: Bool { adminTokenHash == nil && tokenFilePath == nil && jwt == nil }

    /// Reads the token file again: its tokens replace the ones in force, so that a token is added
    /// or revoked without a restart. A file that does not parse leaves the old tokens in force.
    /// Returns how many tokens are in force.
    @discardableResult
    public func reloadTokenFile() throws(TokenFileError) -> Int {
        guard let tokenFilePath else { return 0 }
        let file = try TokenFile(contentsOf: tokenFilePath)
        tokenFile.withLockedValue { $0 = file }
        return file.grants.count
    }

    /// What the bearer token `token` may do, or why it is refused: the check every request that
    /// needs a credential makes (the benchmarks time it alone).
    public func grant(for token: String) async -> Result<AccessGrant, JWTRefusal> {
        // A JWT (three parts) is looked up among those verified, or verified; a static token is
        // hashed and looked up. A static token that looks like a JWT is still found.
        var refusal = JWTRefusal("the token is not one this server accepts")
        if let jwt, token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2 {
            switch await jwt.grant(for: token) {
            case .success(let grant): return .success(grant)
            case .failure(let reason): refusal = reason
            }
        }
        let hash = TokenHash(of: token)
        if let adminTokenHash, hash == adminTokenHash { return .success(AccessGrant(holder: "--token", scope: .admin)) }
        if let grant = tokenFile.withLockedValue({ $0.grants[hash] }) { return .success(grant) }
        return .failure(refusal)
    }
}

/// The decision of ``RouteAccess/table`` for one request, made by every route before it runs.
struct Authorizer: Sendable {
    let credentials: ServerCredentials
    /// Whether reads need a credential too (`--protect-reads`).
    let protectReads: Bool

    static let everyone = Authorizer(credentials: .none, protectReads: false)

    /// What a route reaches: one catalogue, the list of catalogues (answered with those the
    /// grant reaches), or the whole server (metrics: only a grant for every catalogue).
    enum Target: Sendable {
        case catalog(String)
        case list
        case server
    }

    /// The grant of `request` for a route that needs `access` on `target`, nil when the request
    /// needs none; a 401 or 403 problem otherwise.
    func authorize(_ request: Request, access: RouteAccess, target: Target) async throws -> AccessGrant? {
        guard case .scope(let needed) = access, !credentials.isEmpty else { return nil }
        if needed == .read && !protectReads { return nil }
        guard let grant = try await presented(request) else {
            throw Self.unauthorized("this request needs a credential with \(needed.claim): the header Authorization: Bearer <token or JWT>",
                                    challenge: "Bearer")
        }
        guard grant.scope >= needed else {
            var problem = Problem(status: .forbidden, kind: "insufficient-scope",
                                  detail: "this request needs \(needed.claim); the credential \(grant.holder) holds \(grant.summary)")
            problem.headers[.wwwAuthenticate] = "Bearer error=\"insufficient_scope\", scope=\"\(needed.claim)\""
            problem.extensions = [("scope", .string(needed.claim))]
            throw problem
        }
        switch target {
        case .list: break
        case .catalog(let name) where grant.reaches(name): break
        case .server where grant.catalogs == nil: break
        case .catalog(let name):
            throw Problem(status: .forbidden, kind: "forbidden-catalog",
                          detail: "the credential \(grant.holder) does not reach the catalogue \(name): it holds \(grant.summary)")
        case .server:
            throw Problem(status: .forbidden, kind: "forbidden-catalog",
                          detail: "this request concerns every catalogue; the credential \(grant.holder) holds \(grant.summary)")
        }
        return grant
    }

    /// The grant of the credential `request` presents; nil when it presents none; a 401 problem
    /// when the credential is not accepted.
    func presented(_ request: Request) async throws -> AccessGrant? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Self.unauthorized("the Authorization header must be Bearer <token or JWT>", challenge: "Bearer")
        }
        switch await credentials.grant(for: parts[1].trimmingCharacters(in: .whitespaces)) {
        case .success(let grant): return grant
        case .failure(let refusal): throw Self.unauthorized(refusal.reason, challenge: "Bearer error=\"invalid_token\"")
        }
    }

    /// `GET /access`: what the request's credential may do here, for the console to show and to
    /// hide what it may not do — `{"checked", "readsNeedCredential", "holder", "scope", "catalogs"}`
    /// (a server that checks no credential lets everyone do everything: `admin`, every catalogue).
    func describe(_ request: Request) async throws -> OrderedJSON {
        let grant: AccessGrant? = credentials.isEmpty ? AccessGrant(holder: "", scope: .admin) : try await presented(request)
        return .object([
            ("checked", .bool(!credentials.isEmpty)),
            ("readsNeedCredential", .bool(!credentials.isEmpty && protectReads)),
            ("holder", grant.map { .string($0.holder) } ?? .null),
            ("scope", grant.map { .string($0.scope.claim) } ?? .null),
            ("catalogs", grant?.catalogs.map { .array($0.sorted().map { .string($0) }) } ?? .null),
        ])
    }

    static func unauthorized(_ detail: String, challenge: String) -> Problem {
        var problem = Problem(status: .unauthorized, kind: "unauthorized", detail: detail)
        problem.headers[.wwwAuthenticate] = challenge
        return problem
    }
}
