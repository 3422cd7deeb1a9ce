import Foundation
import LogStore
import TestSupport
import Testing

/// `script(1)`, which runs a command on a pseudo-terminal.
private let script = "/usr/bin/script"

@Suite struct ProgressTests {
    /// Runs `logbook verify` under `script(1)`, which gives it a terminal, with every progress
    /// update drawn (`LOGBOOK_PROGRESS_INTERVAL_MS=0`).
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: script),
            "needs \(script) to give the tool a terminal"))
    func progressLineOnlyOnATerminal() throws {
        let logbook = try #require(CLI.executable)
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

extension ProgressTests {
    /// `dump`, `export`, `import` and `compact` under `script(1)` with their results redirected
    /// to files: the progress line (records done, rate) is drawn on the terminal's standard
    /// error and never reaches the results; piped, nothing is drawn at all.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: script),
            "needs \(script) to give the tool a terminal"))
    func toolsDrawProgressOnTheTerminalOnly() throws {
        let logbook = try #require(CLI.executable)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let runs = [
            ("dump", "dump '\(path)' --format jsonl", "dump: "),
            ("export", "export '\(path)'", "export: Employee: "),
            ("import", "import '\(dir.child("copy"))' '\(dir.child("export.out"))'", "import: "),
            ("compact", "compact '\(dir.child("copy"))'", "compact: rewriting"),
        ]
        for (name, command, line) in runs {
            let out = dir.child("\(name).out")
            let onTerminal = try Shell.run(
                script,
                [
                    "-qec", "LOGBOOK_PROGRESS_INTERVAL_MS=0 '\(logbook)' \(command) > '\(out)'",
                    "/dev/null",
                ])
            #expect(
                onTerminal.stdout.contains("\r\u{1B}[K" + line), "\(name): \(onTerminal.stdout)")
            #expect(!readFile(out).contains(0x1B), "\(name)")
        }
        #expect(readFile(dir.child("dump.out")).count > 0)
        let piped = try CLI.run(["export", path])
        #expect(piped.stderr == "")
        #expect(!piped.stdout.contains("\u{1B}"))
    }
}
