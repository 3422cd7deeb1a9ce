import Foundation

/// Logbook against the best of its peers on a row (issue 36): on the engine and YCSB rows, the
/// fastest peer (or, for a size, the smallest) is the one an engineer would pick instead.
extension Reporter {
    /// The engine of the rows that hold Logbook's ratio to the best peer.
    static let bestPeerEngine = "best-peer"

    /// Logbook's ratio to the best peer on one row.
    struct PeerComparison {
        var peer: String
        /// Ops per second (speeds, higher is better) or bytes (sizes, lower is better).
        var ratio: Double
        var isSize: Bool

        var unit: String { isSize ? "bytes" : "ops/s" }

        /// The row that keeps it, for the summary and `--json`.
        func row(_ workload: String) -> BenchResult {
            var row = BenchResult(
                workload: workload, engine: Reporter.bestPeerEngine, operations: 0, bytes: 0,
                seconds: 0, ratio: ratio,
                note: "Logbook/best peer "
                    + (isSize ? "bytes, lower is better" : "ops per second, higher is better"))
            row.peer = peer
            return row
        }
    }

    /// Where the next result will be kept, for ``compareWithPeers(since:)``.
    var mark: Int { results.count }

    /// Prints and keeps Logbook's ratio to the best peer for every row timed or sized since
    /// `mark` that Logbook and at least one peer ran, from this repetition's figures. The engine
    /// and YCSB workloads call it once every engine has run.
    func compareWithPeers(since mark: Int) {
        var seen: Set<String> = []
        for result in results[mark...] where seen.insert(result.workload).inserted {
            guard let rows = timings[result.workload], let best = Self.bestPeer(rows) else {
                continue
            }
            keep(best.row(result.workload))
            emit(
                "\(label(result.workload)) : best peer \(fixed(best.ratio, 9, 2))× "
                    + "(Logbook/\(best.peer) \(best.unit))")
        }
    }

    /// Logbook's ratio to the best peer among `rows` (engine → figure of one workload), or `nil`
    /// unless Logbook and a peer both have a timing, or both a size.
    static func bestPeer(_ rows: [String: BenchResult]) -> PeerComparison? {
        let measured = rows.filter { $0.value.note?.hasPrefix("n/a") != true }
        guard let ours = measured[LogStoreEngine.label] ?? measured["logbook"] else { return nil }
        let peers = Peers.labels.compactMap { label in measured[label].map { (label, $0) } }
        if let mine = ours.microsPerOp, mine > 0 {
            let timed = peers.compactMap { label, row in row.microsPerOp.map { (label, $0) } }
            guard let best = timed.min(by: { $0.1 < $1.1 }) else { return nil }
            return PeerComparison(peer: best.0, ratio: best.1 / mine, isSize: false)
        }
        guard ours.microsPerOp == nil, ours.ratio == nil, ours.bytes > 0 else { return nil }
        let sized = peers.filter { $0.1.microsPerOp == nil && $0.1.ratio == nil && $0.1.bytes > 0 }
        guard let best = sized.min(by: { $0.1.bytes < $1.1.bytes }) else { return nil }
        return PeerComparison(
            peer: best.0, ratio: Double(ours.bytes) / Double(best.1.bytes), isSize: true)
    }

    /// The target of issue 36: Logbook at least level with the best peer on every row that has
    /// one (speeds ≥ 1×, sizes ≤ 1×), with the rows behind; `nil` if no row was compared.
    func bestPeerTargetLine() -> String? {
        let rows = summary.filter { $0.engine == Self.bestPeerEngine }
        guard !rows.isEmpty else { return nil }
        let behind = rows.filter { row in
            guard let ratio = row.ratio else { return false }
            return row.note?.hasSuffix("lower is better") == true ? ratio > 1 : ratio < 1
        }
        let list = behind.map { row in
            "\(row.workload) " + String(format: "%.2f× ", row.ratio ?? 0)
                + Peers.displayName(row.peer ?? "")
        }
        return "every engine and YCSB row ≥ 1× the best peer (sizes ≤ 1×): "
            + "\(rows.count - behind.count) of \(rows.count) rows"
            + (behind.isEmpty ? " — met" : " — missed: " + list.joined(separator: ", "))
    }
}
