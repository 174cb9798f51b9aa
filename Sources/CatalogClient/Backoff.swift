/// How long to wait before trying again: doubling from `initial` up to `maximum`, each wait a
/// random part (a half to the whole) of that, so that devices a server restart dropped at the
/// same moment do not all come back in the same second.
struct Backoff: Sendable {
    var initial: Duration
    var maximum: Duration
    private(set) var failures = 0

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait before the next try, after one more failure.
    mutating func next<G: RandomNumberGenerator>(using random: inout G) -> Duration {
        failures += 1
        let doubled = initial * Double(1 << min(failures - 1, 20))
        let cap = min(doubled, maximum)
        return cap * Double.random(in: 0.5...1.0, using: &random)
    }

    mutating func next() -> Duration {
        var random = SystemRandomNumberGenerator()
        return next(using: &random)
    }

    /// After a success: the next failure waits `initial` again.
    mutating func reset() { failures = 0 }
}
