/// The bearer token a client presents, from a fixed token or from the app's provider, which the
/// client asks again when the server answers 401 (an app refreshes its JWT there).
///
/// Requests that find their token refused at once share one refresh: the provider is asked
/// again only when the token it last gave was refused.
actor ClientCredential {
    /// Called with `refresh: false` for the token to present, `true` after the server refused the
    /// last one; nil for no token.
    typealias Provider = @Sendable (_ refresh: Bool) async throws -> String?

    private let provider: Provider?
    private var token: String?
    private var asked = false

    init(token: String?) {
        provider = nil
        self.token = token
        asked = true
    }

    init(provider: @escaping Provider) {
        self.provider = provider
    }

    /// The token to present now.
    func current() async throws -> String? {
        if !asked, let provider {
            token = try await provider(false)
            asked = true
        }
        return token
    }

    /// A token to try after `refused` was refused: a new one from the provider, or the one
    /// another request already got since; nil when there is none to try (a fixed token).
    func replacing(_ refused: String?) async throws -> String? {
        guard let provider else { return nil }
        if token != refused { return token }
        let fresh = try await provider(true)
        token = fresh
        return fresh != refused ? fresh : nil
    }
}
