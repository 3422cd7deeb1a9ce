import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Each tool on a store whose objects hold more bytes than the memory its process may use:
/// the child runs under `ulimit -d` (RLIMIT_DATA: heap and anonymous memory; the segment files
/// the engine maps do not count), so a tool that holds the objects, or the file it imports,
/// is killed or fails to allocate instead of finishing.
///
/// Not serialized: each test works on copies of its own (``StoreTemplate`` builds each store
/// once, whichever test asks first), and the limits and peaks are each child's own. In series
/// the six tests, about 30 s of CPU in a debug build, were the last minute and a half of a
/// whole `swift test` on two busy cores.
@Suite struct MemoryLimitTests {
    /// Notes in the store, each with a text of ``textBytes``: 36 MiB in all in the default tier,
    /// 48 MiB in the long one. A tool that held them (or its input) whole would need half as
    /// much again as its limit, or twice it.
    static let notes = TestTier.pick(quick: 2_250, long: 3_000)
    static let textBytes = 16 << 10
    /// The limit, in KiB: two thirds of the bytes of the texts (half in the long tier).
    static let limitKiB = 24 << 10

    /// The text of note `n`: its number, then filler, 16 KiB (the filler from bytes: a
    /// character at a time was seconds of the suite in a debug build).
    static func text(_ n: Int) -> String {
        let head = "note \(n) "
        return head
            + String(
                decoding: [UInt8](repeating: UInt8(97 + n % 26), count: textBytes - head.count),
                as: UTF8.self)
    }

    /// A store of the notes, saved 500 at a time; then every tenth note, in reverse order,
    /// saved again with a new number, so that log order is not id order.
    static func makeStore(at path: String) throws {
        let schema = Schema([
            Entity(
                name: "Note",
                attributes: [
                    AttributeDescription("text", .string),
                    AttributeDescription("number", .integer, indexed: true),
                ])
        ])
        let container = try ModelContainer(schema: schema, at: URL(fileURLWithPath: path))
        defer { try? container.close() }
        for start in stride(from: 0, to: notes, by: 500) {
            let context = ModelContext(container)
            for n in start..<min(start + 500, notes) {
                try context.insert(
                    entity: "Note", attributeValues: [.string(text(n)), .integer(Int64(n))])
            }
            try context.save()
        }
        let context = ModelContext(container)
        for object in try context.fetch(entity: "Note", where: "number < 3000")
        where (try object.value(forKey: "number") as? Int64 ?? 0) % 10 == 0 {
            let number = try object.value(forKey: "number") as? Int64 ?? 0
            try object.setValue(number + 1_000_000, forKey: "number")
        }
        try context.save()
    }

    /// The store of ``makeStore(at:)``, built once for the suite's tests; each gets a copy.
    static let notesStore = StoreTemplate("notes") { try makeStore(at: $0) }

    /// Runs `logbook arguments…` under the limit with its standard output in `output`.
    static func runLimited(_ arguments: [String], output: String) throws -> CLIResult {
        let logbook = try #require(CLI.executable)
        return try Shell.run(
            "/bin/sh",
            ["-c", "ulimit -d \(limitKiB) && exec \"$@\" > \"$OUT\"", "sh", logbook] + arguments,
            environment: ["OUT": output])
    }

    /// The JSON objects of a JSON Lines file.
    static func lines(_ path: String) -> [[String: Any]] {
        readLines(path).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func dumpAndExportStreamThroughAStoreLargerThanTheirMemory() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.notesStore.copy(to: path)

        let dump = try Self.runLimited(
            ["dump", path, "--format", "jsonl"], output: dir.child("dump"))
        #expect(dump.status == 0 && !dump.crashed, "\(dump.stderr)")
        let records = Self.lines(dir.child("dump")).filter { $0["entity"] as? String == "Note" }
        #expect(records.count == Self.notes + Self.notes / 10)

        let live = try Self.runLimited(
            ["dump", path, "--live", "--format", "jsonl", "--entity", "Note"],
            output: dir.child("live"))
        #expect(live.status == 0 && !live.crashed, "\(live.stderr)")
        let current = Self.lines(dir.child("live"))
        #expect(current.count == Self.notes)
        #expect(Set(current.compactMap { $0["id"] as? Int }) == Set(1...Self.notes))

        let export = try Self.runLimited(["export", path], output: dir.child("export"))
        #expect(export.status == 0 && !export.crashed, "\(export.stderr)")
        let objects = Self.lines(dir.child("export")).dropFirst()
        #expect(objects.map { $0["_id"] as? Int ?? 0 } == Array(1...Self.notes))
        for object in objects {
            let n = (object["_id"] as? Int ?? 0) - 1
            #expect(object["text"] as? String == Self.text(n), "note \(n)")
            #expect(object["number"] as? Int == (n % 10 == 0 ? n + 1_000_000 : n))
        }

        let sql = try Self.runLimited(
            ["export", path, "--format", "sql"], output: dir.child("sql"))
        #expect(sql.status == 0 && !sql.crashed, "\(sql.stderr)")
        let inserts = readLines(dir.child("sql")).filter { $0.hasPrefix("INSERT INTO") }
        #expect(inserts.count == Self.notes)

        let stats = try Self.runLimited(
            ["stats", path, "--format", "json"], output: dir.child("stats"))
        #expect(stats.status == 0 && !stats.crashed, "\(stats.stderr)")
        #expect(
            String(decoding: readFile(dir.child("stats")), as: UTF8.self).contains(
                "\"objects\":\(Self.notes)"))
    }

    /// `verify` and `compact` of a store larger than their memory: verify reads the log once,
    /// front to back; compaction copies the live records into new segments as it reads them.
    /// The compacted store holds the same objects and verifies clean, still under the limit.
    @Test func verifyAndCompactStayWithinTheirMemory() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.notesStore.copy(to: path)
        let before = try CLI.run(["export", path, "--output", dir.child("before.jsonl")])
        #expect(before.status == 0, "\(before.stderr)")

        let verified = try Self.runLimited(["verify", path], output: dir.child("verify"))
        #expect(verified.status == 0 && !verified.crashed, "\(verified.stderr)")
        let report = String(decoding: readFile(dir.child("verify")), as: UTF8.self)
        #expect(report.contains("verify: OK"), "\(report)")
        #expect(report.contains("\(Self.notes + Self.notes / 10) object records decoded"))

        let compacted = try Self.runLimited(["compact", path], output: dir.child("compact"))
        #expect(compacted.status == 0 && !compacted.crashed, "\(compacted.stderr)")
        let again = try Self.runLimited(["verify", path], output: dir.child("verify2"))
        #expect(again.status == 0 && !again.crashed, "\(again.stderr)")
        let after = try CLI.run(["export", path, "--output", dir.child("after.jsonl")])
        #expect(after.status == 0, "\(after.stderr)")
        let same = sameFileBytes(dir.child("after.jsonl"), dir.child("before.jsonl"))
        #expect(same, "the compacted store exports other objects than the original")
        let stats = try CLI.run(["stats", path, "--format", "json"])
        #expect(stats.stdout.contains("\"objects\":\(Self.notes)"), "\(stats.stdout)")
    }

    /// `import` of a file larger than its memory: it reads the file a line at a time and
    /// saves pieces into one streaming commit, and the copy exports as the original does.
    @Test func importStreamsAFileLargerThanItsMemory() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.notesStore.copy(to: path)
        let export = try CLI.run(["export", path, "--output", dir.child("notes.jsonl")])
        #expect(export.status == 0, "\(export.stderr)")
        let copy = dir.child("copy")
        let imported = try Self.runLimited(
            ["import", copy, dir.child("notes.jsonl")], output: dir.child("import"))
        #expect(imported.status == 0 && !imported.crashed, "\(imported.stderr)")
        #expect(
            String(decoding: readFile(dir.child("import")), as: UTF8.self)
                == "imported \(Self.notes) objects into \(copy)\n")
        // The copy's objects are numbered 1… in the export's order, which is the original's.
        let again = try CLI.run(["export", copy, "--output", dir.child("again.jsonl")])
        #expect(again.status == 0)
        let same = sameFileBytes(dir.child("again.jsonl"), dir.child("notes.jsonl"), from: 200)
        #expect(same, "the copy exports other objects than the original")
        #expect(try CLI.run(["verify", copy]).status == 0)
    }

    /// The peak resident memory (RSS, mapped file pages included) of `logbook arguments…`, in
    /// KiB, as GNU time reports it; its output goes to `/dev/null`. `environment` is added to
    /// the child's.
    static func peakKiB(_ arguments: [String], environment: [String: String] = [:]) throws -> Int {
        let logbook = try #require(CLI.executable)
        let result = try Shell.run(
            "/bin/sh",
            ["-c", "exec /usr/bin/time -f %M \"$@\" 2>&1 >/dev/null", "sh", logbook] + arguments,
            environment: environment)
        let figure = result.stdout.split(separator: "\n").last.flatMap { Int($0) }
        return try #require(figure, "\(arguments): \(result.stdout) \(result.stderr)")
    }

    /// What `logbook arguments…` printed and its exit status, with its peak resident memory as
    /// ``peakKiB(_:environment:)`` measures it, from one run (GNU time's figure goes to a file
    /// of `dir`).
    static func measured(
        _ arguments: [String], in dir: TemporaryDirectory, environment: [String: String] = [:]
    ) throws -> (result: CLIResult, peakKiB: Int) {
        let logbook = try #require(CLI.executable)
        let times = dir.child("time-\(UUID().uuidString)")
        let result = try Shell.run(
            "/bin/sh",
            ["-c", "exec /usr/bin/time -o \"$TIMES\" -f %M \"$@\"", "sh", logbook] + arguments,
            environment: environment.merging(["TIMES": times]) { _, time in time })
        let report = String(decoding: readFile(times), as: UTF8.self)
        let figure = report.split(separator: "\n").last.flatMap { Int($0) }
        return (result, try #require(figure, "\(arguments): \(report) \(result.stderr)"))
    }

    /// A store of `keys` keys of 8 bytes with values of 8 bytes in keyspace `k`, closed cleanly:
    /// a million of them make a key directory file of 25 MB.
    static func makeManyKeys(at path: String, keys: Int) throws {
        let store = try Stores.openStore(path)
        var batch = WriteBatch()
        for i in 0..<keys {
            withUnsafeBytes(of: UInt64(i).bigEndian) { key in
                withUnsafeBytes(of: UInt64(i) &* 0x9E37_79B9_7F4A_7C15) { value in
                    batch.put(value, for: key, in: "k")
                }
            }
            if batch.count == 1 << 17 {
                try store.commit(batch, durability: .buffered)
                batch.removeAll()
            }
        }
        try store.commit(batch)
        try store.close()
    }

    /// The store of many keys that the two tests below measure, the sizes of the tool's
    /// bounded steps for it, and what each command may hold above a store of ten keys.
    struct ManyKeys: Sendable {
        /// Keys of ``makeManyKeys(at:keys:)``.
        var keys: Int
        /// Added to the tool's environment: ``StoreTuning``'s variables (Sources/logbook).
        var environment: [String: String]
        /// Allowances in MiB above the ten-key store.
        var verify: Int
        var stats: Int
        var compact: Int
    }

    /// The default tier's store: half a million keys (a table of 2^20 slots, 12 MiB), with the
    /// steps made small enough that each command holds a clear part of what it would hold
    /// whole: open checks the table 3 MiB at a time (4 pieces), verify compares it in 2 passes
    /// and compaction sorts 2^16 records at a time (8 windows). Measured above the ten-key
    /// store: stats +1 MiB, verify +11.5 MiB (its hint check holds a segment's index), compact
    /// +23 MiB; with the table checked in one piece, compared in one pass or compacted in one
    /// window (the code broken on purpose, one at a time): stats +10 MiB, verify +23 MiB,
    /// compact +31 MiB, each over its allowance. The long tier's: a million keys with the
    /// engine's own steps (12 MiB pieces, 25 MiB passes, windows of 2^19) and the allowances
    /// measured for them.
    static let manyKeys = TestTier.pick(
        quick: ManyKeys(
            keys: 1 << 19,
            environment: [
                "LOGBOOK_KEY_CHECK_BLOCKS": "3", "LOGBOOK_KEY_PASS_BYTES": "\(25 << 19)",
                "LOGBOOK_COMPACTION_WINDOW": "\(1 << 16)",
            ],
            verify: 16, stats: 6, compact: 27),
        long: ManyKeys(keys: 1 << 20, environment: [:], verify: 32, stats: 16, compact: 56))

    /// The stores of ``makeManyKeys(at:keys:)`` with ten keys and with ``manyKeys``' keys, built
    /// once for the suite's tests; each gets copies.
    static let tenKeys = StoreTemplate("ten-keys") { try makeManyKeys(at: $0, keys: 10) }
    static let manyKeysStore = StoreTemplate("many-keys-\(manyKeys.keys)") {
        try makeManyKeys(at: $0, keys: manyKeys.keys)
    }

    /// `verify` and `stats` of many keys hold a piece of the key directory file at a time, not
    /// all of it: open checks the file's table a piece at a time (12 MiB, or ``manyKeys``'
    /// size), dropping each piece's pages after it, and verify compares the file with the log
    /// in passes that each replay one slice of the table. Measured as peak RSS above the same
    /// command on a store of ten keys (before: open held the whole 25 MB table of a million
    /// keys, and verify the file's table and a rebuilt one of the same size besides).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func verifyAndStatsOfManyKeysHoldAPieceOfTheirKeyDirectory() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (small, large) = (dir.child("small"), dir.child("large"))
        let many = Self.manyKeys
        try Self.tenKeys.copy(to: small)
        try Self.manyKeysStore.copy(to: large)
        try #require(FileManager.default.fileExists(atPath: large + "/keys.dir"))
        // Allowances in MiB above the small store: the log the walk holds (4 MiB steps) and,
        // for verify, one pass's slices of the file's table and of the rebuilt one (at a
        // million keys 24 MiB in 2 passes; measured +25 MiB, and +52 MiB before). The measured
        // verify of the large store is also the one whose report is checked (a million keys
        // take seconds in a debug build: not run twice).
        for (command, allowance) in [("verify", many.verify), ("stats", many.stats)] {
            let base = try Self.peakKiB([command, small], environment: many.environment)
            let (run, peak) = try Self.measured(
                [command, large], in: dir, environment: many.environment)
            #expect(run.status == 0 && !run.crashed, "\(command): \(run.stderr)")
            if command == "verify" {
                #expect(run.stdout.contains("verify: OK"), "\(run)")
            }
            #expect(
                peak - base <= allowance << 10,
                "\(command): \(peak >> 10) MiB, \(base >> 10) MiB on the small store")
        }
    }

    /// `compact` of many keys holds a window of them at a time: it copies the live records in
    /// log order a window (2^19, or ``manyKeys``' size) at a time, re-points the index by
    /// walking the same windows again beside its outputs read back (no list of every record
    /// moved), copies the mapped table piecewise, writes the outputs' hints and the new key
    /// directory file without holding either whole, and gives the same objects. Measured as
    /// peak RSS above the same command on a store of ten keys (before: 24 bytes a key of sorted
    /// references, 16 of moves, the table copied whole beside its mapping, and the output
    /// segment kept mapped).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func compactOfManyKeysHoldsAWindowOfThem() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let (small, large) = (dir.child("small"), dir.child("large"))
        let many = Self.manyKeys
        try Self.tenKeys.copy(to: small)
        try Self.manyKeysStore.copy(to: large)
        let base = try Self.peakKiB(["compact", small], environment: many.environment)
        let peak = try Self.peakKiB(["compact", large], environment: many.environment)
        // The index's own table, which re-pointing changes (at a million keys 2^21 slots of 12
        // bytes: 24 MiB), a window of references and its sort (8 MiB at 2^19), and a few MiB
        // of the log (47 MiB measured at a million keys; 87 before).
        #expect(
            peak - base <= many.compact << 10,
            "compact: \(peak >> 10) MiB, \(base >> 10) MiB on the small store")
        let verified = try CLI.run(["verify", large])
        #expect(verified.status == 0 && verified.stdout.contains("verify: OK"), "\(verified)")
        let store = try Stores.openStore(large)
        defer { try? store.close() }
        var seen = 0
        var wrong = 0
        try store.forEach(in: "k") { key, value in
            let i = key.loadUnaligned(as: UInt64.self).bigEndian
            if value.loadUnaligned(as: UInt64.self) != i &* 0x9E37_79B9_7F4A_7C15 { wrong += 1 }
            seen += 1
        }
        #expect(seen == many.keys && wrong == 0, "\(seen) keys, \(wrong) wrong")
    }

    /// Export in primary-key order when log order is not: the 60 updated records come late in
    /// the log and are given in their turn from the copies the first pass kept, or read by key
    /// (none or 5 kept), or (more than a window of 7 keys) through windows, each collected in a
    /// pass of its own; every way gives the same output.
    @Test func exportOrdersByIdThroughSmallKeyWindows() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let seed = testSeed("exportOrdersByIdThroughSmallKeyWindows")
        var rng = SeededGenerator(seed: seed)
        let employees = (0..<100).map {
            Employee(name: "E\($0)", designation: "D", salary: Int64($0))
        }
        for employee in employees { context.insert(employee) }
        try context.save()
        for employee in employees.shuffled(using: &rng).prefix(60) {
            employee.salary += 1000
            try context.save()
        }
        for employee in employees.shuffled(using: &rng).prefix(10) { context.delete(employee) }
        try context.save()
        try container.close()
        let whole = try CLI.run(["export", path])
        let ways: [[String: String]] = [
            ["LOGBOOK_KEY_WINDOW": "7"], ["LOGBOOK_LATE_KEPT": "0"], ["LOGBOOK_LATE_KEPT": "5"],
        ]
        for environment in ways {
            let other = try Shell.run(
                try #require(CLI.executable), ["export", path], environment: environment)
            #expect(other.status == 0, "seed \(seed), \(environment): \(other.stderr)")
            #expect(other.stdout == whole.stdout, "seed \(seed), \(environment)")
        }
        let ids = whole.stdout.split(separator: "\n").dropFirst().compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["_id"]
                as? Int
        }
        #expect(ids.count == 90, "seed \(seed)")
        #expect(ids == ids.sorted(), "seed \(seed)")
    }
}
