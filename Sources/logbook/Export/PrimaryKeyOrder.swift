import Foundation
import LogStore
import Logbook

/// Visits the live records of an entity's keyspace in primary-key order (the 8-byte big-endian
/// keys of FORMAT.md Part 2) with memory bounded by ``window``, not by the number of records.
///
/// The engine iterates a keyspace in log order, which is nearly key order: a save writes its
/// records in an order of its own, and an update moves a record to the end of the log. A first
/// pass finds the records that come *late*, after a greater key, and keeps a copy of the first
/// ``keptLate`` of them. When there are none, or at most `window` of them, a second pass visits
/// the others in log order (they ascend) and gives each late one in its turn, from its copy or
/// read by key. With more, each further pass collects the smallest
/// `window` keys above the last one visited, sorts them and reads their values, one window at a
/// time.
struct PrimaryKeyOrder {
    /// The most keys held at once (16 bytes each while a window is being collected); the
    /// environment variable `LOGBOOK_KEY_WINDOW` sets it, so tests can see many windows.
    var window =
        ProcessInfo.processInfo.environment["LOGBOOK_KEY_WINDOW"].flatMap { Int($0) }.map {
            max($0, 1)
        } ?? 1 << 19
    /// The most late records whose values the first pass copies (a read by key would touch
    /// index and log pages all over the store); `LOGBOOK_LATE_KEPT` sets it, for tests.
    var keptLate =
        ProcessInfo.processInfo.environment["LOGBOOK_LATE_KEPT"].flatMap { Int($0) }.map {
            max($0, 0)
        } ?? 1 << 15

    /// Calls `body` with each live record of `keyspace` in `store`, by increasing key. A key
    /// that is not 8 bytes (a damaged record) is passed to `body` in the first pass, out of
    /// order, so that its decoder can report it.
    /// - Throws: ``LogStoreError``, or what `body` throws.
    func forEach(
        in keyspace: String, of store: LogStore,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var late: [Late]? = []
        var highest: UInt64?
        try store.forEach(in: keyspace) { key, value in
            guard let pk = Self.primaryKey(key, keyspace) else { return try body(key, value) }
            if let high = highest, pk < high {
                if let count = late?.count, count < window {
                    late!.append(Late(key: pk, value: count < keptLate ? [UInt8](value) : nil))
                } else {
                    late = nil
                }
            } else {
                highest = pk
            }
        }
        if var late {
            late.sort { $0.key < $1.key }
            return try visit(in: keyspace, of: store, late: late, body)
        }
        var above: UInt64?
        while true {
            let keys = try smallestKeys(above: above, in: keyspace, of: store)
            for pk in keys { try give(Late(key: pk), in: keyspace, of: store, body) }
            guard keys.count == window, let next = keys.last else { return }
            above = next
        }
    }

    /// A record met after a greater key in the first pass, with its value if it was kept.
    private struct Late {
        var key: UInt64
        var value: [UInt8]? = nil
    }

    /// The second pass: the records that ascend in log order (those not `late`), with each of
    /// `late` (sorted) given before the first greater one.
    private func visit(
        in keyspace: String, of store: LogStore, late: [Late],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var highest: UInt64?
        var next = 0
        try store.forEach(in: keyspace) { key, value in
            guard let pk = Self.primaryKey(key, keyspace) else { return }
            if let high = highest, pk < high { return }  // late: read in its turn
            highest = pk
            while next < late.count && late[next].key < pk {
                try give(late[next], in: keyspace, of: store, body)
                next += 1
            }
            try body(key, value)
        }
        for record in late[next...] { try give(record, in: keyspace, of: store, body) }
    }

    /// Calls `body` with the record of `late`: its kept value, or the one read by key (if the
    /// key still has one).
    private func give(
        _ late: Late, in keyspace: String, of store: LogStore,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let key = PersistentIdentifier(entityName: keyspace, primaryKey: late.key).storeKey
        guard let value = try late.value ?? store.get(key, in: keyspace) else { return }
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try body(k, v) } }
    }

    /// The `window` smallest primary keys greater than `above` (all keys if `nil`), sorted.
    private func smallestKeys(above: UInt64?, in keyspace: String, of store: LogStore) throws
        -> [UInt64]
    {
        var keys: [UInt64] = []
        keys.reserveCapacity(2 * window)
        var cutoff = UInt64.max
        var full = false
        try store.forEach(in: keyspace) { key, _ in
            guard let pk = Self.primaryKey(key, keyspace), above.map({ pk > $0 }) ?? true,
                !full || pk < cutoff
            else { return }
            keys.append(pk)
            if keys.count == 2 * window {
                keys.sort()
                keys.removeLast(window)
                cutoff = keys[window - 1]
                full = true
            }
        }
        keys.sort()
        if keys.count > window { keys.removeLast(keys.count - window) }
        return keys
    }

    private static func primaryKey(_ key: UnsafeRawBufferPointer, _ keyspace: String) -> UInt64? {
        PersistentIdentifier(entityName: keyspace, storeKey: key)?.primaryKey
    }
}
