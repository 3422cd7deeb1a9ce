import Foundation

/// Why a run stopped. `disagreement` is the one CI cares about: two engines computed different
/// answers for the same workload, so at least one of them is wrong.
enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case setup(String)
    case disagreement(workload: String, what: String, logbook: String, peer: String, theirs: String)
    case wrongResult(
        workload: String, engine: String, what: String, expected: String, found: String)

    var description: String {
        switch self {
        case .usage(let message):
            return message.isEmpty ? BenchOptions.usage : "\(message)\n\(BenchOptions.usage)"
        case .setup(let message): return "setup failed: \(message)"
        case .disagreement(let workload, let what, let logbook, let peer, let theirs):
            return "\(workload): engines disagree on \(what): Logbook \(logbook), \(peer) \(theirs)"
        case .wrongResult(let workload, let engine, let what, let expected, let found):
            return "\(workload): \(engine) got \(what) \(found), expected \(expected)"
        }
    }
}

/// What every workload gets: the sizes, the reporter, and its own fresh directory.
struct BenchContext {
    let options: BenchOptions
    let sizes: BenchSizes
    let reporter: Reporter

    /// The peers of the engine and YCSB groups (``Peers/chosen(_:)``).
    var peers: [any KeyValueEngine.Type] { Peers.chosen(options) }

    /// Fails loudly unless Logbook and SQLite computed the same `what`.
    func agree<T: Equatable>(_ workload: String, _ what: String, logbook: T, sqlite: T) throws {
        try agree(workload, what, logbook: logbook, peer: SQLiteEngine.label, sqlite)
    }

    /// Fails loudly unless Logbook and the engine labelled `peer` computed the same `what`.
    func agree<T: Equatable>(
        _ workload: String, _ what: String, logbook: T, peer: String, _ theirs: T
    ) throws {
        guard logbook == theirs else {
            throw BenchError.disagreement(
                workload: workload, what: what, logbook: "\(logbook)",
                peer: Peers.displayName(peer), theirs: "\(theirs)")
        }
    }

    /// Fails loudly unless `found` is `expected`.
    func expect<T: Equatable>(
        _ workload: String, _ engine: String, _ what: String, _ found: T, equals expected: T
    ) throws {
        guard found == expected else {
            throw BenchError.wrongResult(
                workload: workload, engine: engine, what: what, expected: "\(expected)",
                found: "\(found)")
        }
    }
}

/// A named workload (or several lines of figures) in a group.
struct Workload {
    var name: String
    var group: String
    var summary: String
    var run: (BenchContext) throws -> Void
}

/// Seconds `body` takes on the monotonic clock.
func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}
