import LogStore

extension ContainerIndexes {
    /// Runs the planner for `entity` under the lock; a scan when the entity has no indexes.
    func plan(
        _ entity: Int, filter: FilterNode?, sort: [(field: Int, ascending: Bool)], wanted: Int?,
        recordCount: Int
    ) -> AccessPlan {
        withIndexes(of: entity) { indexes in
            guard let indexes else {
                if let filter,
                    QueryPlanner.conjuncts(filter).contains(where: {
                        if case .constant(false) = $0 { true } else { false }
                    })
                {
                    return AccessPlan(access: .nothing, exact: true, ordered: true)
                }
                if case .identifierIn(let keys)? = filter {
                    return AccessPlan(
                        access: .identifiers(keys.sorted()), exact: true, estimate: keys.count)
                }
                return AccessPlan()
            }
            return QueryPlanner(
                definitions: definitions[entity], indexes: indexes, recordCount: recordCount
            ).plan(filter, sort: sort, wanted: wanted)
        }
    }

    /// The primary keys `access` finds, ascending and distinct, and the index entries it
    /// visited.
    func primaryKeys(_ access: StoredAccess, entity: Int) -> (keys: [UInt64], visited: Int) {
        withIndexes(of: entity) { indexes in
            var visited = 0
            let keys = Self.collect(access, indexes ?? [], &visited)
            return (keys, visited)
        }
    }

    /// The primary keys `access` finds (as ``primaryKeys(_:entity:)``) with a view of the
    /// entity's records in the same state (see ``withView(of:keyspace:in:_:)``).
    /// - Throws: ``LogbookError/store(_:)``.
    func primaryKeys(
        _ access: StoredAccess, binding: EntityBinding, in store: LogStore
    ) throws -> (keys: [UInt64], visited: Int, view: LogStore.KeyspaceView) {
        try withView(of: binding.index, keyspace: binding.keyspace, in: store) { indexes, view in
            var visited = 0
            let keys = Self.collect(access, indexes ?? [], &visited)
            return (keys, visited, view)
        }
    }

    /// The number of entries `access` finds when that is the number of distinct objects (one
    /// index's ranges, which never overlap, and of one link only), by counting entries without
    /// visiting them; `nil`
    /// for other accesses.
    func entryCount(_ access: StoredAccess, entity: Int) -> Int? {
        guard case .ranges(let i, let ranges) = access,
            ranges.count == 1 || !definitions[entity][i].isLinks  // an object has many links
        else { return nil }
        return withIndexes(of: entity) { indexes in
            guard let index = indexes?[i] else { return nil }
            return QueryPlanner.count(ranges, in: index)
        }
    }

    private static func collect(
        _ access: StoredAccess, _ indexes: [OrderedIndex], _ visited: inout Int
    ) -> [UInt64] {
        switch access {
        case .scan, .nothing: return []
        case .identifiers(let keys): return keys
        case .ranges(let i, let ranges):
            var keys: [UInt64] = []
            let index = indexes[i]
            for range in ranges { Self.appendKeys(in: range, of: index, to: &keys) }
            visited += keys.count
            // The keys of one value (an equality) come strictly ascending already: no sort.
            return Self.isAscending(keys) ? keys : sortedDistinct(keys)
        case .union(let parts):
            return sortedDistinct(parts.flatMap { collect($0, indexes, &visited) })
        case .intersection(let parts):
            var result: [UInt64]? = nil
            for part in parts {
                let keys = collect(part, indexes, &visited)
                guard let known = result else {
                    result = keys
                    continue
                }
                // Both ascending: a merge.
                var merged: [UInt64] = []
                var (i, j) = (0, 0)
                while i < known.count && j < keys.count {
                    if known[i] == keys[j] {
                        merged.append(known[i])
                        i += 1
                        j += 1
                    } else if known[i] < keys[j] {
                        i += 1
                    } else {
                        j += 1
                    }
                }
                result = merged
            }
            return result ?? []
        }
    }

    /// The primary keys of `range`'s entries, appended in index order. The range's start is
    /// searched; its end is found by comparing the first few entries with it (a point lookup
    /// searches once), then by a second search for a longer range.
    static func appendKeys(
        in range: IndexEntryRange, of index: OrderedIndex, to keys: inout [UInt64]
    ) {
        let from = range.lower.withUnsafeBytes { index.lowerBound($0) }
        guard let upper = range.upper else {
            keys.reserveCapacity(keys.count + index.count(from: from, to: index.end))
            index.forEach(from: from, to: index.end) { entry in
                keys.append(IndexKey.primaryKey(entry))
                return true
            }
            return
        }
        let probed = 4
        var met = 0
        var ended = false
        upper.withUnsafeBytes { upper in
            index.forEach(from: from, to: index.end) { entry in
                guard IndexBytes.compare(entry, upper) < 0 else {
                    ended = true
                    return false
                }
                met += 1
                keys.append(IndexKey.primaryKey(entry))
                return met < probed
            }
        }
        guard !ended && met == probed else { return }
        // A longer range: the rest, up to its end found by a search.
        var start = from
        for _ in 0..<probed { start = index.position(after: start) }
        let to = upper.withUnsafeBytes { index.lowerBound($0) }
        keys.reserveCapacity(keys.count + index.count(from: start, to: to))
        index.forEach(from: start, to: to) { entry in
            keys.append(IndexKey.primaryKey(entry))
            return true
        }
    }

    private static func isAscending(_ keys: [UInt64]) -> Bool {
        keys.withUnsafeBufferPointer { keys in
            var i = 1
            while i < keys.count {
                if keys[i - 1] >= keys[i] { return false }
                i += 1
            }
            return true
        }
    }

    private static func sortedDistinct(_ keys: [UInt64]) -> [UInt64] {
        var keys = keys
        keys.sort()
        var last: UInt64? = nil
        return keys.filter { key in
            defer { last = key }
            return key != last
        }
    }

    /// Up to `limit` primary keys of index `index` of `entity` in `range`, in index order
    /// (descending with `reverse`, ties still ascending by primary key), continuing after
    /// `cursor` (an entry a previous call returned), with the cursor to continue from; `nil`
    /// when the range is exhausted.
    /// With them, a view of the entity's records in the same state (see
    /// ``withView(of:keyspace:in:_:)``).
    /// - Throws: ``LogbookError/store(_:)``.
    func orderedKeys(
        _ binding: EntityBinding, index i: Int, range: IndexEntryRange, reverse: Bool,
        after cursor: [UInt8]?, limit: Int, in store: LogStore
    ) throws -> (keys: [UInt64], cursor: [UInt8]?, view: LogStore.KeyspaceView) {
        try withView(of: binding.index, keyspace: binding.keyspace, in: store) { indexes, view in
            let (keys, next) = Self.orderedKeys(
                indexes?[i], range: range, reverse: reverse, after: cursor, limit: limit)
            return (keys, next, view)
        }
    }

    private static func orderedKeys(
        _ index: OrderedIndex?, range: IndexEntryRange, reverse: Bool, after cursor: [UInt8]?,
        limit: Int
    ) -> (keys: [UInt64], cursor: [UInt8]?) {
        guard let index else { return ([], nil) }
        var from = range.lower.withUnsafeBytes { index.lowerBound($0) }
        var to =
            range.upper.map { u in u.withUnsafeBytes { index.lowerBound($0) } } ?? index.end
        if let cursor {
            if reverse {
                to = cursor.withUnsafeBytes { index.lowerBound($0) }
            } else {
                from = (cursor + [0]).withUnsafeBytes { index.lowerBound($0) }
            }
        }
        var keys: [UInt64] = []
        var last: [UInt8]? = nil
        guard limit > 0 else { return ([], nil) }
        // A batch of a fetch with a limit: room for it at once.
        if limit < 1 << 16 { keys.reserveCapacity(limit) }
        if !reverse {
            index.forEach(from: from, to: to) { entry in
                keys.append(IndexKey.primaryKey(entry))
                guard keys.count < limit else {
                    last = Array(entry)
                    return false
                }
                return true
            }
            return (keys, last)
        }
        // Descending: whole runs of one value, each given back in ascending key order.
        var run: [UInt64] = []
        var runValue: [UInt8] = []
        var stopped = false
        index.forEachReversed(from: from, to: to) { entry in
            let value = UnsafeRawBufferPointer(rebasing: entry.dropLast(8))
            if run.isEmpty || !runValue.elementsEqual(value) {
                if keys.count + run.count >= limit && !run.isEmpty {
                    // The run just ended is the last taken; its lowest entry is the cursor.
                    last = runValue
                    IndexKey.appendPrimaryKey(run[run.count - 1], to: &last!)
                    keys.append(contentsOf: run.reversed())
                    stopped = true
                    return false
                }
                keys.append(contentsOf: run.reversed())
                run.removeAll(keepingCapacity: true)
                runValue = Array(value)
            }
            run.append(IndexKey.primaryKey(entry))
            return true
        }
        if stopped { return (keys, last) }
        keys.append(contentsOf: run.reversed())
        return (keys, nil)
    }
}
