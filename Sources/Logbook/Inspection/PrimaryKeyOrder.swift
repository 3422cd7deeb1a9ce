import LogStore

/// Visits the live records of an entity's keyspace in primary-key order, ascending or
/// descending, from the start or after a given key, with memory bounded by ``window`` rather
/// than by the number of records: what tools that list or page through a whole entity read
/// (`logbook export`, the employees app's listing, a grid of objects).
///
/// The engine iterates a keyspace in log order, which is nearly key order: a save writes its
/// records in an order of its own, and an update moves a record to the end of the log. Ascending
/// without a limit, a first pass finds the records that come *late*, after a greater key, and
/// keeps a copy of the first ``keptLate`` of them; when there are at most ``window`` of them, a
/// second pass visits the others in log order (they ascend) and gives each late one in its turn,
/// from its copy or read by key. Otherwise (more late records, descending order, or a limit of
/// at most ``window``) each pass collects the next ``window`` keys beyond the last one visited,
/// sorts them and reads their records by key.
///
/// Reads only; a value type, `Sendable`. The store may be written meanwhile: a record visited is
/// one the store held when it was read, and a key removed before its turn is passed over.
public struct PrimaryKeyOrder: Sendable {
    /// The most keys held at once (16 bytes each while a window is being collected).
    public var window: Int
    /// The most late records whose values the first pass copies (a read by key would touch
    /// index and log pages all over the store).
    public var keptLate: Int

    /// A walk holding at most `window` keys (at least 1) and copying at most `keptLate` late
    /// records.
    public init(window: Int = 1 << 19, keptLate: Int = 1 << 15) {
        self.window = max(window, 1)
        self.keptLate = max(keptLate, 0)
    }

    /// Calls `body` with each live record of `entity` in `store` by primary key, until it
    /// returns `false`: ascending or `descending`, the first one beyond `start` (exclusive: the
    /// record after the last one of a previous page), at most `limit` of them.
    ///
    /// A key that is not 8 bytes (a damaged record) is passed to `body` in an ascending walk's
    /// first pass, out of order, so that its decoder can report it; other walks pass over it.
    /// - Parameters:
    ///   - entity: the entity whose keyspace is read (its name).
    ///   - store: the store, open for reading.
    ///   - start: visit only keys above it (ascending) or below it (descending); `nil`: all.
    ///   - descending: visit the greatest key first.
    ///   - limit: stop after this many records; a page of at most ``window`` records costs one
    ///     pass over the keyspace's keys and one read by key per record.
    ///   - body: called with each record's key and value (valid during the call); returns
    ///     whether to go on.
    /// - Throws: ``LogbookError/store(_:)``, or what `body` throws.
    /// - Complexity: ascending and unlimited, two passes over the keyspace when at most
    ///   ``window`` records are late; otherwise one pass per ``window`` records visited, plus a
    ///   read by key per record.
    public func forEach(
        in entity: String, of store: LogStore, after start: UInt64? = nil,
        descending: Bool = false, limit: Int? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try walk(entity, store, start, descending, limit, first: { _, _ in }, body)
    }

    /// Calls `body` with each live record of `entity` in `store` by ascending primary key, as
    /// ``forEach(in:of:after:descending:limit:_:)`` does, after calling `first` with every live
    /// record in log order: the walk's first pass reads them all anyway, so a tool that must
    /// see every record before it writes one (a table's column widths) needs no pass of its
    /// own.
    /// - Parameters:
    ///   - entity: the entity whose keyspace is read (its name).
    ///   - store: the store, open for reading.
    ///   - first: called with each record's key and value (valid during the call), every one
    ///     before `body` is called with any but a damaged key's record.
    ///   - body: called with each record's key and value (valid during the call); returns
    ///     whether to go on.
    /// - Throws: ``LogbookError/store(_:)``, or what `first` or `body` throws.
    /// - Complexity: as an ascending, unlimited ``forEach(in:of:after:descending:limit:_:)``.
    public func forEach(
        in entity: String, of store: LogStore,
        first: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try walk(entity, store, nil, false, nil, first: first, body)
    }

    /// The walk of both `forEach`s; `first` sees the first pass's records (which an ascending,
    /// unlimited walk always makes).
    private func walk(
        _ entity: String, _ store: LogStore, _ start: UInt64?, _ descending: Bool, _ limit: Int?,
        first: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try wrapStoreErrors {
            var budget = limit ?? Int.max
            guard budget > 0 else { return }
            func counted(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws
                -> Bool
            {
                // Without a limit, no count: its variable, captured, is checked for exclusive
                // access at every change.
                guard limit != nil else { return try body(key, value) }
                budget -= 1
                return try body(key, value) && budget > 0
            }
            if !descending && budget > window {
                var late: [Late]? = []
                var highest: UInt64?
                var stopped = false
                try store.forEach(in: entity) { key, value in
                    guard !stopped else { return }
                    try first(key, value)
                    guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
                        stopped = try !counted(key, value)
                        return
                    }
                    guard start.map({ pk > $0 }) ?? true else { return }
                    if let high = highest, pk < high {
                        if let count = late?.count, count < window {
                            late!.append(
                                Late(key: pk, value: count < keptLate ? [UInt8](value) : nil))
                        } else {
                            late = nil
                        }
                    } else {
                        highest = pk
                    }
                }
                if stopped { return }
                if var late {
                    late.sort { $0.key < $1.key }
                    return try visit(entity, of: store, after: start, late: late, counted)
                }
            }
            var beyond = start
            let count = min(window, budget)
            while true {
                let keys = try nextKeys(
                    beyond: beyond, descending: descending, count: count, entity, store)
                for pk in keys {
                    guard try give(Late(key: pk), entity, store, counted) else { return }
                }
                guard keys.count == count, let next = keys.last else { return }
                beyond = next
            }
        }
    }

    /// A record met after a greater key in the first pass, with its value if it was kept.
    private struct Late {
        var key: UInt64
        var value: [UInt8]? = nil
    }

    /// The second pass of an ascending walk: the records that ascend in log order (those not
    /// `late`), with each of `late` (sorted) given before the first greater one.
    private func visit(
        _ entity: String, of store: LogStore, after start: UInt64?, late: [Late],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var highest: UInt64?
        var next = 0
        var stopped = false
        try store.forEach(in: entity) { key, value in
            guard !stopped, let pk = Keyspaces.primaryKey(ofObjectKey: key),
                start.map({ pk > $0 }) ?? true
            else { return }
            if let high = highest, pk < high { return }  // late: read in its turn
            highest = pk
            while next < late.count && late[next].key < pk {
                guard try give(late[next], entity, store, body) else {
                    stopped = true
                    return
                }
                next += 1
            }
            stopped = try !body(key, value)
        }
        guard !stopped else { return }
        for record in late[next...] {
            guard try give(record, entity, store, body) else { return }
        }
    }

    /// Calls `body` with the record of `late`: its kept value, or the one read by key (if the
    /// key still has one); returns what `body` returns (`true` when there was none).
    private func give(
        _ late: Late, _ entity: String, _ store: LogStore,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        try Keyspaces.withObjectKey(late.key) { key in
            if let value = late.value {
                return try value.withUnsafeBytes { try body(key, $0) }
            }
            var more = true
            _ = try store.readValue(forKey: key, in: entity) { more = try body(key, $0) }
            return more
        }
    }

    /// The `count` primary keys nearest beyond `beyond` (above it ascending, below it
    /// descending; all keys if `nil`), in visiting order.
    private func nextKeys(
        beyond: UInt64?, descending: Bool, count: Int, _ entity: String, _ store: LogStore
    ) throws -> [UInt64] {
        // Descending walks collect the complements, so that "nearest" is "smallest" in both.
        let flip: UInt64 = descending ? .max : 0
        let bound = beyond.map { $0 ^ flip }
        var keys: [UInt64] = []
        keys.reserveCapacity(2 * count)
        var cutoff = UInt64.max
        var full = false
        try store.forEach(in: entity) { key, _ in
            guard let pk = Keyspaces.primaryKey(ofObjectKey: key).map({ $0 ^ flip }),
                bound.map({ pk > $0 }) ?? true, !full || pk < cutoff
            else { return }
            keys.append(pk)
            if keys.count == 2 * count {
                keys.sort()
                keys.removeLast(count)
                cutoff = keys[count - 1]
                full = true
            }
        }
        keys.sort()
        if keys.count > count { keys.removeLast(keys.count - count) }
        return flip == 0 ? keys : keys.map { $0 ^ flip }
    }
}
