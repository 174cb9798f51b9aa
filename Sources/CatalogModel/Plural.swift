/// A count with its noun, `1 section` or `2 sections`: one rule for every message, report and
/// picture caption in the package.
package func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
