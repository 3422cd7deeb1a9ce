extension Reporter {
    /// One row per workload and engine over every repetition (`--repeat`): the fastest run of a
    /// timing (the least disturbed by other load on the machine), the last of anything else,
    /// and the ratios and speedups recomputed from those rows (Logbook/best peer after a
    /// workload's last engine row). In the order workloads first ran.
    var summary: [BenchResult] {
        var order: [String] = []
        var best: [String: BenchResult] = [:]
        let compared = Set(results.filter { $0.engine == Self.bestPeerEngine }.map(\.workload))
        for result in results where result.engine != "ratio" && result.engine != Self.bestPeerEngine
        {
            let key = result.workload + "\u{0}" + result.engine
            if let kept = best[key] {
                if result.microsPerOp == nil || result.seconds < kept.seconds { best[key] = result }
            } else {
                order.append(key)
                best[key] = result
            }
        }
        var byWorkload: [String: [String: BenchResult]] = [:]
        var lastKey: [String: String] = [:]
        for key in order {
            guard let row = best[key] else { continue }
            byWorkload[row.workload, default: [:]][row.engine] = row
            lastKey[row.workload] = key
        }
        var rows: [BenchResult] = []
        var seen: Set<String> = []
        for key in order {
            guard var row = best[key] else { continue }
            defer {
                if lastKey[row.workload] == key, compared.contains(row.workload),
                    let comparison = Self.bestPeer(byWorkload[row.workload] ?? [:])
                {
                    var kept = comparison.row(row.workload)
                    kept.setup = row.setup
                    rows.append(kept)
                }
            }
            if let inputs = row.derivedFrom, inputs.count == 2,
                let base = best[inputs[0] + "\u{0}" + row.engine]?.microsPerOp,
                let faster = best[inputs[1] + "\u{0}" + row.engine]?.microsPerOp, faster > 0
            {
                row.ratio = base / faster
            }
            rows.append(row)
            let workload = row.workload
            guard !seen.contains(workload),
                let ours = best[workload + "\u{0}" + LogStoreEngine.label]
                    ?? best[workload + "\u{0}logbook"],
                let theirs = best[workload + "\u{0}" + SQLiteEngine.label]
            else { continue }
            if row.engine != theirs.engine { continue }
            seen.insert(workload)
            let ratio: Double?
            let note: String
            if let a = ours.microsPerOp, let b = theirs.microsPerOp, a > 0, ours.operations > 0 {
                ratio = b / a
                note = "Logbook/SQLite ops per second, higher is better"
            } else if ours.microsPerOp == nil, ours.ratio == nil, theirs.bytes > 0, ours.bytes > 0 {
                ratio = Double(ours.bytes) / Double(theirs.bytes)
                note = "Logbook/SQLite bytes, lower is better"
            } else {
                ratio = nil
                note = ""
            }
            if let ratio {
                rows.append(
                    BenchResult(
                        workload: workload, engine: "ratio", operations: 0, bytes: 0, seconds: 0,
                        ratio: ratio, note: note, setup: row.setup))
            }
        }
        return rows
    }
}
