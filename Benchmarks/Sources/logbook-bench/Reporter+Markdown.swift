import Foundation

extension Reporter {
    /// Writes the header and every result as Markdown (the body of `RESULTS.md`) to `path`:
    /// one row per workload with Logbook's figure, SQLite's, and their ratio.
    func writeMarkdown(to path: String, header: [String: String], command: String) throws {
        var lines = [
            "# Benchmark results: Logbook and SQLite, same run, same machine", "",
            "Written by `\(command)` (regenerate with "
                + "`swift run -c release --package-path Benchmarks logbook-bench --markdown "
                + "Benchmarks/RESULTS.md`; the output lines and `--json` say the same with each "
                + "workload's setup: sizes, durability, SQLite pragmas).", "",
        ]
        for (key, value) in header.sorted(by: { $0.key < $1.key }) {
            lines.append("- \(key): \(value)")
        }
        lines += [
            "",
            "Ratios are Logbook/SQLite: for speeds, ops per second (higher is better); for sizes, "
                + "bytes (lower is better). Every workload runs on fresh files in a temporary "
                + "directory and checks that both engines read the same records. Figures bound by "
                + "`fdatasync` (`fillsync*`) depend on the disk and whatever else uses it; the two "
                + "engines alternate in rounds so both see the same drift, but runs still differ.",
            "",
            "| workload | Logbook | SQLite | Logbook/SQLite | notes |",
            "|---|---:|---:|---:|---|",
        ]
        var order: [String] = []
        var byWorkload: [String: [BenchResult]] = [:]
        for result in summary {
            if byWorkload[result.workload] == nil { order.append(result.workload) }
            byWorkload[result.workload, default: []].append(result)
        }
        for workload in order {
            let rows = byWorkload[workload] ?? []
            let ours = rows.first { $0.engine == LogStoreEngine.label || $0.engine == "logbook" }
            let theirs = rows.first { $0.engine == SQLiteEngine.label }
            let ratio = rows.first { $0.engine == "ratio" }?.ratio
            var notes: [String] = []
            if ours == nil, theirs == nil, let other = rows.first {  // a check of the suite itself
                notes.append("\(other.engine): \(cell(other))")
            }
            for note in [
                ours?.note, theirs?.note, ours == nil && theirs == nil ? rows.first?.note : nil,
            ]
            .compactMap({ $0 }) where !notes.contains(note) {
                notes.append(note)
            }
            let ratioText = ratio.map { String(format: "%.2f×", $0) } ?? ""
            lines.append(
                "| \(workload) | \(cell(ours)) | \(cell(theirs)) | \(ratioText) | "
                    + notes.joined(separator: "; ") + " |")
        }
        lines += [
            "", "## Targets (issue 6)", "",
            "The targets are for 1,000,000 keys and Employees; a smaller `--num` only shows the trend.",
            "",
        ]
        lines += targetLines().map { "- \($0)" }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
    }

    private func cell(_ result: BenchResult?) -> String {
        guard let result else { return "" }
        if result.note?.hasPrefix("n/a") == true { return "n/a" }
        if let micros = result.microsPerOp {
            if result.operations <= 1 { return String(format: "%.1f ms", result.seconds * 1000) }
            var text = String(format: "%.3f µs/op", micros)
            if let mbps = result.megabytesPerSecond, mbps > 0 {
                text += String(format: "; %.1f MB/s", mbps)
            }
            return text
        }
        if let value = result.ratio { return String(format: "%.2f", value) }
        return String(format: "%.2f MB", Double(result.bytes) / 1_048_576)
    }
}
