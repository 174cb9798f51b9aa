import Foundation

/// The package's executables (`catalog`, `catalog-bench`) as built for the tests: a test target
/// that depends on one finds it next to its test bundle.
public enum BuiltExecutables {
    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The package's executable `name`, built next to this test bundle.
    public static func url(of name: String) -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name),
            Bundle.main.bundleURL.appendingPathComponent(name),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name),
            packageRoot.appendingPathComponent(".build/debug/\(name)"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }
}
