import Testing

/// Polls `condition` every 10 ms until it holds, for at most `limit` — a bound far past what
/// any machine needs with both cores busy, since the condition is a consequence the test waits
/// for, not a race. Whether it came true.
public func eventually(within limit: Duration = .seconds(60), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while !(try condition()) {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// Waits until `condition` holds, as ``eventually(within:_:)`` does; when it never does, records
/// an issue naming `what` and throws, so the test stops there.
public func waitUntil(_ what: @autoclosure () -> String, within limit: Duration = .seconds(90),
                      _ condition: () throws -> Bool) async throws {
    guard try await eventually(within: limit, condition) else {
        Issue.record("never came true: \(what())")
        throw CancellationError()
    }
}
