import Foundation

/// One measured figure, as printed and as written to `--json`.
struct BenchResult: Codable, Sendable {
    var workload: String
    var engine: String
    /// Operations timed (0 for sizes).
    var operations: Int
    /// Bytes of keys and values moved by those operations (or the size measured).
    var bytes: Int64
    var seconds: Double
    var microsPerOp: Double?
    var megabytesPerSecond: Double?
    /// Logbook / SQLite (engine `ratio`) or Logbook / the best peer (engine `best-peer`): for
    /// speeds the ops/s ratio (higher is better), for sizes the byte ratio (lower is better).
    /// On other rows, a figure (a speedup, a multiple of a floor).
    var ratio: Double?
    var note: String?
    /// The workload's description line: sizes, durability, pragmas.
    var setup: String?
    /// For a speedup: the workloads `[base, faster]` whose µs/op it divides.
    var derivedFrom: [String]?
    /// On a best-peer row: the label of the best peer.
    var peer: String?
}

/// Prints results in leveldb's `name : X µs/op; Y MB/s` form, one line per engine plus the
/// ratio Logbook/SQLite (and Logbook/best peer, ``compareWithPeers(since:)``), and keeps them
/// for `--json`.
final class Reporter {
    private(set) var results: [BenchResult] = []
    /// This repetition's timings and sizes: workload → engine → figure.
    private(set) var timings: [String: [String: BenchResult]] = [:]

    /// A comment line: what a workload does and under which durability.
    func note(_ text: String) {
        emit("# \(text)")
        setup = text
    }

    private var setup: String?

    func keep(_ result: BenchResult) {
        var result = result
        result.setup = setup
        results.append(result)
    }

    /// Records a timed run and prints its line.
    @discardableResult
    func timing(
        _ workload: String, engine: String, operations: Int, bytes: Int, seconds: Double,
        note: String? = nil
    ) -> BenchResult {
        let micros = seconds * 1e6 / Double(max(operations, 1))
        let mbps = seconds > 0 ? Double(bytes) / 1_048_576 / seconds : 0
        let result = BenchResult(
            workload: workload, engine: engine, operations: operations, bytes: Int64(bytes),
            seconds: seconds, microsPerOp: micros, megabytesPerSecond: mbps, note: note)
        keep(result)
        timings[workload, default: [:]][engine] = result
        var line = "\(label(workload)) : \(pad(engine, 9)) \(fixed(micros, 10, 3)) µs/op;"
        line += " \(fixed(mbps, 8, 1)) MB/s"
        if operations > 1 {
            line += "; \(fixed(Double(operations) / max(seconds, 1e-9), 11, 0)) ops/s"
        } else {
            line += "; \(fixed(seconds * 1000, 11, 1)) ms"
        }
        if let note { line += "  (\(note))" }
        emit(line)
        printRatioIfComplete(workload, engine)
        return result
    }

    /// A workload one engine cannot run yet, with the reason.
    func unavailable(_ workload: String, engine: String, reason: String) {
        keep(
            BenchResult(
                workload: workload, engine: engine, operations: 0, bytes: 0, seconds: 0,
                note: "n/a: \(reason)"))
        emit("\(label(workload)) : \(pad(engine, 9)) n/a (\(reason))")
    }

    /// Records a size (file bytes, memory) and prints it; with both engines, their ratio.
    func size(
        _ workload: String, logbook: Int64?, sqlite: Int64?, ours: String = "logbook",
        note: String? = nil
    ) {
        sizes(workload, [(ours, logbook), (SQLiteEngine.label, sqlite)], note: note)
    }

    /// Records the size of each engine's files (`nil`: not measured), Logbook's first, and
    /// prints them; with Logbook's and SQLite's, their ratio.
    func sizes(
        _ workload: String, _ figures: [(engine: String, bytes: Int64?)], note: String? = nil
    ) {
        for (engine, bytes) in figures {
            guard let bytes else { continue }
            let result = BenchResult(
                workload: workload, engine: engine, operations: 0, bytes: bytes, seconds: 0,
                note: note)
            keep(result)
            timings[workload, default: [:]][engine] = result
            let megabytes = fixed(Double(bytes) / 1_048_576, 10, 2)
            emit(
                "\(label(workload)) : \(pad(engine, 9)) \(megabytes) MB"
                    + (note.map { "  (\($0))" } ?? ""))
        }
        let logbook = figures.first?.bytes
        let sqlite = figures.first { $0.engine == SQLiteEngine.label }?.bytes
        if let logbook, let sqlite, sqlite > 0 {
            let ratio = Double(logbook) / Double(sqlite)
            keep(
                BenchResult(
                    workload: workload, engine: "ratio", operations: 0, bytes: 0, seconds: 0,
                    ratio: ratio, note: "Logbook/SQLite bytes, lower is better"))
            emit("\(label(workload)) : ratio     \(fixed(ratio, 10, 2))× (Logbook/SQLite bytes)")
        }
    }

    /// Forgets the timings of the previous repetition, so ratios pair runs of the same one.
    func beginRepetition() { timings.removeAll() }

    /// How many times faster `engine` ran workload `faster` than workload `base` (this
    /// repetition's µs/op); the summary recomputes it from the best runs.
    func speedup(
        _ workload: String, engine: String, of faster: String, over base: String, unit: String
    ) {
        guard let a = timings[base]?[engine]?.microsPerOp,
            let b = timings[faster]?[engine]?.microsPerOp,
            b > 0
        else { return }
        var result = BenchResult(
            workload: workload, engine: engine, operations: 0, bytes: 0, seconds: 0, ratio: a / b,
            note: unit)
        result.derivedFrom = [base, faster]
        keep(result)
        emit("\(label(workload)) : \(pad(engine, 9)) \(fixed(a / b, 10, 2)) \(unit)")
    }

    /// A derived figure (bytes per key, scaling factor, …) on one line.
    func figure(_ workload: String, engine: String, value: Double, unit: String) {
        keep(
            BenchResult(
                workload: workload, engine: engine, operations: 0, bytes: 0, seconds: 0,
                ratio: value, note: unit))
        emit("\(label(workload)) : \(pad(engine, 9)) \(fixed(value, 10, 2)) \(unit)")
    }

    /// Writes every result as a JSON document to `path`.
    func writeJSON(to path: String, header: [String: String]) throws {
        struct Document: Codable {
            var machine: [String: String]
            /// Every figure of every repetition, in the order measured.
            var results: [BenchResult]
            /// The best of the repetitions, with ratios recomputed (see ``Reporter/summary``).
            var summary: [BenchResult]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(Document(machine: header, results: results, summary: summary))
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Prints Logbook/SQLite once both have timed `workload`, when the second of them does.
    private func printRatioIfComplete(_ workload: String, _ engine: String) {
        guard [LogStoreEngine.label, "logbook", SQLiteEngine.label].contains(engine),
            let engines = timings[workload],
            let ours = engines[LogStoreEngine.label] ?? engines["logbook"],
            let theirs = engines[SQLiteEngine.label], let a = ours.microsPerOp,
            let b = theirs.microsPerOp, a > 0
        else { return }
        let ratio = b / a
        keep(
            BenchResult(
                workload: workload, engine: "ratio", operations: 0, bytes: 0, seconds: 0,
                ratio: ratio, note: "Logbook/SQLite ops per second, higher is better"))
        emit("\(label(workload)) : ratio     \(fixed(ratio, 10, 2))× (Logbook/SQLite ops/s)")
    }

    func label(_ workload: String) -> String { pad(workload, 31) }

    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    func fixed(_ value: Double, _ width: Int, _ decimals: Int) -> String {
        let text = String(format: "%.\(decimals)f", value)
        return text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}

/// Prints `line` and flushes, so each figure shows at once even into a pipe or a file.
func emit(_ line: String) {
    print(line)
    fflush(nil)
}
