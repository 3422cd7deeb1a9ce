import Foundation
import LogStore
import Logbook

/// Visits the live records of an entity's keyspace in primary-key order (the 8-byte big-endian
/// keys of FORMAT.md Part 2) with memory bounded by ``window``, not by the number of records.
///
/// The engine iterates a keyspace in log order. A first pass checks whether that is already
/// key order (a store filled by inserts, or compacted after them): then a second pass visits
/// the records. Otherwise each further pass collects the smallest `window` keys above the last
/// one visited, sorts them and reads their values, one window at a time.
struct PrimaryKeyOrder {
    /// The most keys held at once (16 bytes each while a window is being collected); the
    /// environment variable `LOGBOOK_KEY_WINDOW` sets it, so tests can see many windows.
    var window =
        ProcessInfo.processInfo.environment["LOGBOOK_KEY_WINDOW"].flatMap { Int($0) }.map {
            max($0, 1)
        } ?? 1 << 19

    /// Calls `body` with each live record of `keyspace` in `store`, by increasing key. A key
    /// that is not 8 bytes (a damaged record) is passed to `body` in the first pass, out of
    /// order, so that its decoder can report it.
    /// - Throws: ``LogStoreError``, or what `body` throws.
    func forEach(
        in keyspace: String, of store: LogStore,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var ascending = true
        var last: UInt64?
        try store.forEach(in: keyspace) { key, value in
            guard let pk = Self.primaryKey(key, keyspace) else { return try body(key, value) }
            if let last, pk <= last { ascending = false }
            last = pk
        }
        if ascending {
            try store.forEach(in: keyspace) { key, value in
                if Self.primaryKey(key, keyspace) != nil { try body(key, value) }
            }
            return
        }
        var above: UInt64?
        while true {
            let keys = try smallestKeys(above: above, in: keyspace, of: store)
            for pk in keys {
                let key = PersistentIdentifier(entityName: keyspace, primaryKey: pk).storeKey
                guard let value = try store.get(key, in: keyspace) else { continue }
                try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try body(k, v) } }
            }
            guard keys.count == window, let next = keys.last else { return }
            above = next
        }
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
