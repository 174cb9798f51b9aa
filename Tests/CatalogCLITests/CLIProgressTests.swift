import Foundation
import Testing

@Suite("catalog import: progress")
struct CLIProgressTests {
    @Test("a long import shows a progress bar on a terminal and stays quiet in a pipe")
    func progressBar() throws {
        let cli = try CLIRunner()
        defer { cli.cleanUp() }
        let big = cli.folder.appendingPathComponent("big.json").path
        _ = try cli.succeed(["generate", "--items", "100000", "--sections", "20", "--name", "big", "--out", big])

        // In a pipe: nothing on stderr, the report on stdout.
        let piped = try cli.run(["import", big, "--db", cli.db])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty)
        #expect(piped.stdout.contains("100000 items"))

        // On a terminal (a pseudo-terminal from util-linux `script`): the bar is drawn, then cleared.
        let command = [CLIRunner.executable.path, "import", big, "--db", cli.db].map { "'\($0)'" }.joined(separator: " ")
        let terminal = Process()
        terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        terminal.arguments = ["-qefc", command, "/dev/null"]
        let output = Pipe()
        terminal.standardOutput = output
        terminal.standardError = output
        terminal.standardInput = FileHandle.nullDevice
        try terminal.run()
        let transcript = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        terminal.waitUntilExit()
        #expect(terminal.terminationStatus == 0)
        #expect(transcript.contains("\rImporting ["), "no progress bar in: \(transcript.prefix(300))")
        #expect(transcript.contains("/100000 items"))
        #expect(transcript.contains("big.json → catalogue \"big\" at revision 2"))
    }
}
