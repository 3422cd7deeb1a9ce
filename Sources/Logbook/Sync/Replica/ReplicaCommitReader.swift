import Foundation
import LogStore

/// Reads a store's commits in order for its replica, telling apart the app's saves (which go
/// up) from the replica's own commits (changes that came down, and its bookkeeping: any commit
/// that puts a key of `logbook.sync`), which never go up.
///
/// Follows the store: at the end, a later ``next()`` finds commits made since. Not
/// thread-safe: one reader per thread.
struct ReplicaCommitReader {
    /// One commit, classified.
    enum Commit {
        /// A save of the app: its time and changes (with values if the reader was made so).
        case save(sequence: UInt64, time: Date, changes: [HistoryChange])
        /// A commit of the replica; `down` is its down record, if it puts one.
        case replica(sequence: UInt64, down: SyncRecords.Down?)
        /// Anything else (a schema, counters, settings): not a save.
        case other(sequence: UInt64)

        var sequence: UInt64 {
            switch self {
            case .save(let sequence, _, _), .replica(let sequence, _), .other(let sequence):
                return sequence
            }
        }
    }

    private let commits: CommitReader
    private var decoder: ChangeDecoder
    private let values: Bool

    /// A reader of the commits after `sequence`; with `values`, saves carry the objects' values.
    /// - Throws: ``SyncError/historyLost(reason:)`` if those commits were compacted away;
    ///   ``LogbookError/store(_:)``.
    init(store: LogStore, after sequence: UInt64, values: Bool) throws {
        do {
            commits = try store.commits(after: sequence, follow: true)
        } catch LogStoreError.historyUnavailable(let requested, let oldest) {
            throw LogbookError.sync(
                .historyLost(
                    reason:
                        "the log starts after commit \(oldest), and the replica needs the commits after \(requested)"
                ))
        } catch let error as LogStoreError {
            throw LogbookError.store(error)
        }
        decoder = ChangeDecoder(history: try SchemaHistory.read(from: store))
        self.values = values
    }

    /// The sequence number of the last commit read.
    var lastSequence: UInt64 { commits.lastSequence }

    /// The next commit, or `nil` at the end of the log (for now).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``SyncError/historyLost(reason:)``,
    ///   ``LogbookError/store(_:)``.
    mutating func next() throws -> Commit? {
        let commit: LoggedCommit
        do {
            guard let next = try commits.next() else { return nil }
            commit = next
        } catch LogStoreError.historyUnavailable(let requested, let oldest) {
            throw LogbookError.sync(
                .historyLost(
                    reason:
                        "compaction removed the commits after \(requested) (the log now starts after \(oldest))"
                ))
        } catch let error as LogStoreError {
            throw LogbookError.store(error)
        }
        var isReplica = false
        var down: SyncRecords.Down?
        let save = try decoder.decode(sequence: commit.sequence, values: values) { operation in
            try commit.forEachRecord { record in
                if record.keyspace == SyncRecords.keyspace {
                    isReplica = true
                    if let value = record.value, record.key.elementsEqual(SyncRecords.downKey) {
                        down = try SyncRecords.Down(decoding: value)
                    }
                    return
                }
                try operation(record.keyspace, record.key, record.value)
            }
        }
        if isReplica { return .replica(sequence: commit.sequence, down: down) }
        guard let save else { return .other(sequence: commit.sequence) }
        return .save(sequence: commit.sequence, time: save.time, changes: save.changes)
    }
}

/// The hybrid logical clock of the replicas: a stamp is milliseconds since 1970 shifted left
/// by 16 bits, plus a counter in the low bits, so it follows the wall clock but always moves
/// forward past every stamp seen. Ties between origins are broken by the origin number.
enum HybridClock {
    /// The stamp of an event at wall-clock `time` on a replica whose clock stands at `clock`.
    static func stamp(at time: Date, after clock: UInt64) -> UInt64 {
        let milliseconds = (time.timeIntervalSince1970 * 1000).rounded(.down)
        let physical =
            milliseconds > 0 && milliseconds < 1e15 ? UInt64(milliseconds) << 16 : 0
        return max(physical, clock + 1)
    }

    /// Whether a write stamped `(a, originA)` is later than one stamped `(b, originB)`.
    @inline(__always)
    static func isLater(_ a: UInt64, _ originA: Int32, than b: UInt64, _ originB: Int32) -> Bool {
        a != b ? a > b : originA > originB
    }
}
