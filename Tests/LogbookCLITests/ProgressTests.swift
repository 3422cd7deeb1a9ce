import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct ProgressTests {
    /// Runs `logbook verify` under `script(1)`, which gives it a terminal, with every progress
    /// update drawn (`LOGBOOK_PROGRESS_INTERVAL_MS=0`).
    @Test func progressLineOnlyOnATerminal() throws {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script), let logbook = CLI.executable
        else {
            print("progressLineOnlyOnATerminal: skipped, no \(script)")
            return
        }
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let store = try Stores.openStore(path)
        var batch = WriteBatch()
        for i in 0..<1_000 { batch.put(b("value \(i)"), for: b("key \(i)"), in: "k") }
        try store.commit(batch)
        try store.close()
        let onTerminal = try Shell.run(
            script,
            [
                "-qec", "LOGBOOK_PROGRESS_INTERVAL_MS=0 '\(logbook)' verify '\(path)'", "/dev/null",
            ])
        #expect(onTerminal.stdout.contains("\r\u{1B}[Kverify: segment 1 of 1, 50%"))
        #expect(onTerminal.stdout.contains("verify: OK"))
        let piped = try CLI.run(["verify", path])
        #expect(piped.stderr == "")
        #expect(!piped.stdout.contains("\u{1B}"))
    }
}
