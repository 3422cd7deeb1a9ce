import Foundation
import LogStore

/// How much history a store keeps: what compaction must leave readable through
/// ``ModelContainer/history(after:)`` and ``ModelContainer/context(asOf:)``.
///
/// The policy is kept in the store (``ModelContainer/setHistoryRetention(_:)``), so every
/// compaction honours it, whoever runs it: the app's automatic compactions, or `logbook compact`.
/// A store keeps at least what its policy asks; saves older than that stay readable until a
/// compaction drops them, and compaction works a segment at a time, so some older history may
/// outlive the policy for a while. A value type, `Sendable`.
public enum HistoryRetention: Sendable, Hashable {
    /// No history beyond the current state is kept: compaction drops every older state. Saves
    /// since the last compaction can still be read. The default.
    case untilCompaction
    /// The last `n` saves (and batch operations) stay readable, and so do the states before and
    /// after each of them.
    case saves(Int)
    /// Saves made in the last `days` days (a day is 86,400 seconds; fractions are fine) stay
    /// readable, and so do the states before and after each of them.
    case days(Double)

    /// The policy stored in `store` (``untilCompaction`` if none is).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    static func stored(in store: LogStore) throws -> HistoryRetention {
        let bytes = try wrapStoreErrors {
            try store.get(Keyspaces.historyRetentionKey, in: Keyspaces.meta)
        }
        return try bytes.map { try $0.withUnsafeBytes { try HistoryRetention(decoding: $0) } }
            ?? .untilCompaction
    }

    /// The oldest sequence number whose state compaction must keep in `store` under the policy
    /// stored in it, or `nil` when it keeps nothing beyond the current state: what
    /// `LogStoreOptions.historyRetention` asks. A ``ModelContainer`` installs it; a tool that
    /// compacts a Logbook store through `LogStore` alone should too.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    /// - Complexity: O(bytes of the commits the store holds since its last compaction).
    ///
    /// A replica's store (``PostgreSQLReplica``) also keeps every save PostgreSQL has not
    /// confirmed, whatever the policy: they must still go up.
    public static func retainedSequence(in store: LogStore) throws -> UInt64? {
        let kept = try retainedSequence(in: store, policy: stored(in: store), now: Date())
        guard try SyncRecords.replica(in: store) != nil else { return kept }
        let pin = try SyncRecords.down(in: store)?.acknowledged ?? 0
        return min(kept ?? pin, pin)
    }

    /// The sequence number `policy` keeps from in `store` at `now`.
    static func retainedSequence(in store: LogStore, policy: HistoryRetention, now: Date) throws
        -> UInt64?
    {
        let cutoff: Date
        var keep: Int
        switch policy {
        case .untilCompaction: return nil
        case .saves(let n):
            guard n > 0 else { return nil }
            cutoff = .distantFuture
            keep = n
        case .days(let days):
            cutoff = now.addingTimeInterval(-days * 86_400)
            keep = 0
        }
        let floor = try wrapStoreErrors { try store.historyFloor() }
        let reader = try wrapStoreErrors { try store.commits(after: floor) }
        // The sequence numbers of the last `keep` saves (a ring), or the first save after `cutoff`.
        var ring = [UInt64](repeating: 0, count: keep)
        var saves = 0
        while let commit = try wrapStoreErrors({ try reader.next() }) {
            var time: Date?
            commit.forEachRecord { record in
                if record.keyspace == Keyspaces.history, let value = record.value {
                    time = SaveRecord.time(in: value)
                }
            }
            guard let time else { continue }
            if keep > 0 {
                ring[saves % keep] = commit.sequence
                saves += 1
            } else if time >= cutoff {
                return commit.sequence - 1
            }
        }
        if keep > 0 { return saves < keep ? floor : ring[saves % keep] - 1 }
        return reader.lastSequence
    }
}
