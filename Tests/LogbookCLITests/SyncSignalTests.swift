import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `script(1)`, which runs a command on a pseudo-terminal.
private let script = "/usr/bin/script"

/// `logbook sync PATH URL` stopped by SIGINT: it finishes the transaction it is applying
/// (a transaction of PostgreSQL is all in the store or not at all), exits 0, and on a
/// terminal draws its rates on one progress line that it ends with a newline.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct SyncSignalTests {
    static let rows = 20_000

    /// How many companies named `big-…` the store at `path` holds, and how many saves SQL
    /// clients made there.
    static func bigCompanies(_ path: String) throws -> (companies: Int, sqlSaves: Int) {
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: path), options: options)
        defer { try? container.close() }
        let names = try ModelContext(container).fetch(entity: "Company").compactMap {
            $0["name"] as? String
        }
        let saves = try container.history().filter { $0.author == "sql:postgres" }.count
        return (names.filter { $0.hasPrefix("big-") }.count, saves)
    }

    @Test func sigintWhileApplyingATransactionFinishesItAndExitsZero() throws {
        let cli = try #require(CLI.executable)
        let (database, dir, path) = try SyncCommandTests.scene()
        defer { SyncCommandTests.clean(database, dir) }
        let (out, err, go) = (dir.child("out"), dir.child("err"), dir.child("go"))
        // The shell sends SIGINT a moment after the test says the big transaction committed,
        // while the command reads and applies it.
        let shell = """
            "$0" sync "$1" "$2" >"$3" 2>"$4" & pid=$!
            for i in $(seq 600); do [ -e "$5" ] && break; sleep 0.05; done
            sleep 0.3
            kill -INT $pid; wait $pid
            """
        let result = SyncResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            result.value = try? Shell.run(
                "/bin/sh", ["-c", shell, cli, path, database.url, out, err, go])
            done.signal()
        }
        let connection = try database.connect()
        defer { connection.close() }
        for _ in 0..<600 {
            if String(decoding: readFile(out), as: UTF8.self).contains("\"connected\":true") {
                break
            }
            usleep(50_000)
        }
        try connection.simpleQuery(
            "INSERT INTO \"Company\" (name) SELECT 'big-' || i FROM generate_series(1, \(Self.rows)) i"
        )
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        done.wait()
        let run = try #require(result.value)
        #expect(run.status == 0, "\(String(decoding: readFile(err), as: UTF8.self))")
        // The transaction is in the store whole or not at all.
        let stopped = try Self.bigCompanies(path)
        #expect(stopped.companies == 0 || stopped.companies == Self.rows, "\(stopped)")
        #expect(stopped.sqlSaves == (stopped.companies == 0 ? 0 : 1))
        let lines = String(decoding: readFile(out), as: UTF8.self).split(separator: "\n")
        let transactions = stopped.companies == 0 ? 0 : 1
        #expect(lines.last?.contains("\"applied\":{\"transactions\":\(transactions),") == true)

        // What it had not applied comes down once at the next run.
        let again = try CLI.run(["sync", path, database.url, "--once"])
        #expect(again.status == 0, "\(again.stderr)")
        let after = try Self.bigCompanies(path)
        #expect(after.companies == Self.rows && after.sqlSaves == 1, "\(after)")
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: script),
            "needs \(script) to give the tool a terminal"))
    func onATerminalItDrawsRatesOnOneLineAndEndsItAtSIGINT() throws {
        let cli = try #require(CLI.executable)
        let (database, dir, path) = try SyncCommandTests.scene()
        defer { SyncCommandTests.clean(database, dir) }
        let command =
            "'\(cli)' sync '\(path)' '\(database.url)' & pid=$!; sleep 2; kill -INT $pid; wait $pid"
        let run = try Shell.run(script, ["-qec", command, "/dev/null"])
        #expect(run.status == 0, "\(run.stdout)")
        // The progress line, redrawn in place, then the final one on a line of its own.
        #expect(run.stdout.contains("\r\u{1B}[Ksync: up "), "\(run.stdout)")
        #expect(run.stdout.contains(" changes/s · down 0 transactions, 0 changes/s · "))
        #expect(run.stdout.contains("0 pending, 0 behind\r\n"), "\(run.stdout)")
        #expect(!run.stdout.contains("{\"time\":"))
    }
}
