/// The targets of issue 6 ("Targets"), checked against a run's figures: the suite shows where
/// we stand. A target whose figure was not measured (a workload not selected, a feature not
/// there yet) is listed as not measured. Never fails a run: `--quick` checks results, not speed.
struct Target {
    enum Rule {
        /// The Logbook/SQLite ratio of `workload` is at least this.
        case ratioAtLeast(Double)
        /// The Logbook/SQLite ratio of `workload` is at most this (sizes).
        case ratioAtMost(Double)
        /// Logbook's time for `workload` is at most this many milliseconds.
        case millisecondsAtMost(Double)
        /// Logbook's figure (a scaling factor) is at least this.
        case figureAtLeast(Double)
        /// Logbook's figure is at most this.
        case figureAtMost(Double)
        /// Logbook's size (a `size` row) is at most this many megabytes.
        case megabytesAtMost(Double)
        /// Logbook's rate for `workload` is at least this many operations per second.
        case operationsPerSecondAtLeast(Double)
    }

    var name: String
    var workload: String
    var rule: Rule

    static let all: [Target] =
        [
            Target(name: "fillseq ≥ 2.5× SQLite", workload: "fillseq", rule: .ratioAtLeast(2.5)),
            Target(name: "readrandom ≥ 8× SQLite", workload: "readrandom", rule: .ratioAtLeast(8)),
            Target(
                name: "a durable commit costs one fdatasync (≤ 1.25× a bare append + fdatasync)",
                workload: "fillsync-vs-append-fdatasync", rule: .figureAtMost(1.25)),
            Target(
                name: "8 threads commit durably ≥ 3× the 1-thread rate",
                workload: "fillsync-threads",
                rule: .figureAtLeast(3)),
            Target(
                name: "reopen of 1M keys ≤ 60 ms", workload: "reopen", rule: .millisecondsAtMost(60)
            ),
            Target(
                name: "objects: insert + save ≥ 1.5× SQLite", workload: "objects-insert",
                rule: .ratioAtLeast(1.5)),
            Target(
                name: "objects: fetch by id ≥ 2× SQLite", workload: "objects-fetch-id",
                rule: .ratioAtLeast(2)),
            Target(
                name: "objects: predicate fetch, no index ≥ 1.2× SQLite",
                workload: "objects-fetch-engineers", rule: .ratioAtLeast(1.2)),
            Target(
                name: "objects: predicate fetch, indexed ≥ 1.6× SQLite",
                workload: "objects-fetch-engineers-indexed", rule: .ratioAtLeast(1.6)),
            Target(
                name: "objects: fetch by enum value ≥ 2× SQLite", workload: "objects-fetch-enum",
                rule: .ratioAtLeast(2)),
            Target(
                name: "objects: fetch through a composite's field ≥ 2× SQLite",
                workload: "objects-fetch-composite", rule: .ratioAtLeast(2)),
            Target(
                name: "objects: update 10% + save ≥ 2× SQLite", workload: "objects-update",
                rule: .ratioAtLeast(2)),
            Target(
                name: "objects: delete 10% + save ≥ 3.4× SQLite", workload: "objects-delete",
                rule: .ratioAtLeast(3.4)),
            Target(
                name: "objects: batch update by predicate ≥ 2× SQLite",
                workload: "objects-batch-update",
                rule: .ratioAtLeast(2)),
            Target(
                name: "objects: batch delete by predicate ≥ 2× SQLite",
                workload: "objects-batch-delete",
                rule: .ratioAtLeast(2)),
            Target(
                name: "objects: peak RSS of the 1M load ≤ 1.5× SQLite",
                workload: "peak-rss-load-objects",
                rule: .ratioAtMost(1.5)),
            Target(
                name: "objects: files after load ≤ 1.2× SQLite",
                workload: "objects-size-after-load",
                rule: .ratioAtMost(1.2)),
            Target(
                name: "objects: files after compaction ≤ 1.2× SQLite",
                workload: "objects-size-after-compact", rule: .ratioAtMost(1.2)),
            Target(
                name: "tools: employees list ≤ 2× sqlite3 SELECT *", workload: "tools-list",
                rule: .ratioAtLeast(0.5)),
            Target(
                name: "tools: dump --live --format jsonl ≤ 2× sqlite3 .dump",
                workload: "tools-dump-live-jsonl", rule: .ratioAtLeast(0.5)),
            Target(
                name: "tools: export --format sql ≤ 2× sqlite3 .dump", workload: "tools-export-sql",
                rule: .ratioAtLeast(0.5)),
            Target(
                name: "tools: import ≤ 2× sqlite3 .import --csv", workload: "tools-import",
                rule: .ratioAtLeast(0.5)),
            Target(
                name: "tools: verify ≤ 0.5 s", workload: "tools-verify",
                rule: .millisecondsAtMost(500)),
            Target(
                name: "tools: stats ≤ 0.1 s", workload: "tools-stats",
                rule: .millisecondsAtMost(100)),
        ] + StudioWorkloads.targets + QueryWorkloads.targets + ReplicaWorkloads.targets

    /// `(figure, met)` from `results`, or `nil` if the run did not measure it.
    func evaluate(_ results: [BenchResult]) -> (figure: String, met: Bool)? {
        let rows = results.filter { $0.workload == workload }
        let ours = rows.first {
            ($0.engine == LogStoreEngine.label || $0.engine == "logbook")
                && $0.note?.hasPrefix("n/a") != true
        }
        switch rule {
        case .ratioAtLeast(let bound), .ratioAtMost(let bound):
            guard let ratio = rows.first(where: { $0.engine == "ratio" })?.ratio else { return nil }
            let met: Bool
            if case .ratioAtLeast = rule { met = ratio >= bound } else { met = ratio <= bound }
            return (String(format: "%.2f×", ratio), met)
        case .millisecondsAtMost(let bound):
            guard let ours else { return nil }
            return (String(format: "%.1f ms", ours.seconds * 1000), ours.seconds * 1000 <= bound)
        case .figureAtLeast(let bound):
            guard let value = ours?.ratio else { return nil }
            return (String(format: "%.2f×", value), value >= bound)
        case .figureAtMost(let bound):
            guard let value = ours?.ratio else { return nil }
            return (String(format: "%.2f×", value), value <= bound)
        case .megabytesAtMost(let bound):
            guard let bytes = ours?.bytes, bytes > 0 else { return nil }
            let megabytes = Double(bytes) / 1_048_576
            return (String(format: "%.1f MB", megabytes), megabytes <= bound)
        case .operationsPerSecondAtLeast(let bound):
            guard let ours, ours.seconds > 0, ours.operations > 0 else { return nil }
            let rate = Double(ours.operations) / ours.seconds
            return (String(format: "%.0f/s", rate), rate >= bound)
        }
    }
}

extension Reporter {
    /// One line per target: the figure and whether it is met.
    func targetLines() -> [String] {
        Target.all.map { target in
            guard let (figure, met) = target.evaluate(summary) else {
                return "\(target.name): not measured"
            }
            return "\(target.name): \(figure) — \(met ? "met" : "missed")"
        }
    }
}
