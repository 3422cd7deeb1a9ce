import Foundation

extension Reporter {
    /// Writes the header and every result as Markdown (the body of `RESULTS.md`) to `path`:
    /// one row per workload with Logbook's figure, each peer's, the ratio to SQLite and the
    /// ratio to the best peer.
    func writeMarkdown(to path: String, header: [String: String], command: String) throws {
        var lines = [
            "# Benchmark results: Logbook and its peers, same run, same machine", "",
            "Written by `\(command)` (regenerate with "
                + "`swift run -c release --package-path Benchmarks logbook-bench --markdown "
                + "Benchmarks/RESULTS.md`; the output lines and `--json` say the same with each "
                + "workload's setup: sizes, durability, SQLite pragmas).", "",
        ]
        for (key, value) in header.sorted(by: { $0.key < $1.key }) {
            lines.append("- \(key): \(value)")
        }
        let summary = self.summary
        let peers = Peers.labels.filter { label in summary.contains { $0.engine == label } }
        lines += [
            "",
            "Ratios are Logbook/SQLite and Logbook/best peer (the fastest peer on the row, or for "
                + "a size the smallest, named in the cell): for speeds, ops per second (higher is "
                + "better); for sizes, bytes (lower is better). The engine and YCSB rows run "
                + "every peer; the other groups compare with SQLite alone. Every workload runs on "
                + "fresh files in a temporary directory and checks that every engine read the "
                + "same records. Figures bound by `fdatasync` (`fillsync*`) depend on the disk "
                + "and whatever else uses it; the engines alternate in rounds so all see the same "
                + "drift, but runs still differ.",
            "",
            Self.tableRow(
                ["workload", "Logbook"] + peers.map(Peers.displayName)
                    + ["Logbook/SQLite", "Logbook/best peer", "notes"]),
            Self.tableRow(["---"] + Array(repeating: "---:", count: peers.count + 3) + ["---"]),
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
            let theirs = peers.map { peer in rows.first { $0.engine == peer } }
            let ratio = rows.first { $0.engine == "ratio" }?.ratio
            let best = rows.first { $0.engine == Self.bestPeerEngine }
            let measured = [ours] + theirs
            var notes: [String] = []
            if measured.allSatisfy({ $0 == nil }), let other = rows.first {
                notes.append("\(other.engine): \(cell(other))")  // a check of the suite itself
            }
            let engineNotes = measured.compactMap { $0?.note }
            for note in engineNotes
                + (engineNotes.isEmpty ? [rows.first?.note].compactMap { $0 } : [])
            where !notes.contains(note) {
                notes.append(note)
            }
            let ratioText = ratio.map { String(format: "%.2f×", $0) } ?? ""
            let bestText =
                best.map {
                    String(format: "%.2f× ", $0.ratio ?? 0) + Peers.displayName($0.peer ?? "")
                } ?? ""
            lines.append(
                Self.tableRow(
                    [workload, cell(ours)] + theirs.map { cell($0) }
                        + [ratioText, bestText, notes.joined(separator: "; ")]))
        }
        lines += [
            "", "## Targets (issue 6)", "",
            "The targets are for 1,000,000 keys and Employees; a smaller `--num` only shows the trend.",
            "",
        ]
        lines += targetLines().map { "- \($0)" }
        if let line = bestPeerTargetLine() {
            lines += ["", "## Against the best peer (issue 36)", "", "- \(line)"]
        }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
    }

    private static func tableRow(_ cells: [String]) -> String {
        "| " + cells.joined(separator: " | ") + " |"
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
