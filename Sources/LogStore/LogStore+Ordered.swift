/// Which keys an ordered iteration visits: those between an optional lower and an optional
/// upper bound, each inclusive or exclusive. Keys compare as bytes, lexicographically (as
/// `memcmp`, then a shorter key before every longer key it is a prefix of: `"a"` < `"a\0"` <
/// `"ab"` < `"b"`).
public struct KeyRange: Sendable, Hashable {
    /// One end of a range.
    public struct Bound: Sendable, Hashable {
        public var key: [UInt8]
        /// Whether the key itself is in the range.
        public var inclusive: Bool

        public init(_ key: [UInt8], inclusive: Bool) {
            self.key = key
            self.inclusive = inclusive
        }
    }

    /// No lower bound if `nil`.
    public var lower: Bound?
    /// No upper bound if `nil`.
    public var upper: Bound?

    public init(lower: Bound? = nil, upper: Bound? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key.
    public static let all = KeyRange()

    /// Keys from `lower` through `upper`, both inclusive (`nil`: unbounded).
    public init(from lower: [UInt8]?, through upper: [UInt8]?) {
        self.lower = lower.map { Bound($0, inclusive: true) }
        self.upper = upper.map { Bound($0, inclusive: true) }
    }

    /// Keys from `lower` (inclusive) up to `upper` (exclusive).
    public init(from lower: [UInt8]?, upTo upper: [UInt8]) {
        self.lower = lower.map { Bound($0, inclusive: true) }
        self.upper = Bound(upper, inclusive: false)
    }

    /// Calls `body` with the upper key's bytes (or `nil`) and whether it is inclusive.
    func withUpperKey<R>(_ body: (UnsafeRawBufferPointer?, Bool) throws -> R) rethrows -> R {
        guard let upper else { return try body(nil, true) }
        return try upper.key.withUnsafeBytes { try body($0, upper.inclusive) }
    }
}

/// Iteration in key order over ordered keyspaces (``LogStoreOptions/orderedKeyspaces``).
extension LogStore {
    /// A keyspace's key order and the segments it points into, kept mapped while it is read.
    private struct OrderedSnapshot: @unchecked Sendable {  // immutable; segments kept alive
        var keys: OrderedKeys
        var segments: [Segment?]
        var bases: SegmentBases
    }

    /// Calls `body` with the live keys and values of the ordered keyspace `keyspace` from
    /// `lower` through `upper` (both inclusive; `nil` is unbounded), in ascending key order (or
    /// descending, with `reverse`), at most `limit` of them. See ``forEach(in:range:reverse:limit:_:)``.
    /// - Throws: as ``forEach(in:range:reverse:limit:_:)``.
    public func forEach(
        in keyspace: String, from lower: [UInt8]?, through upper: [UInt8]? = nil,
        reverse: Bool = false, limit: Int = .max,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try forEach(
            in: keyspace, range: KeyRange(from: lower, through: upper), reverse: reverse,
            limit: limit, body)
    }

    /// Calls `body` with the live keys and values of the ordered keyspace `keyspace` whose keys
    /// lie in `range`, in ascending key order (bytes compared lexicographically, see
    /// ``KeyRange``), or descending with `reverse`; at most `limit` of them.
    ///
    /// The iteration sees the keyspace as of the call, as a point read would: every commit
    /// visible then, whole, and nothing committed or compacted since. The buffers are valid
    /// only during each call of `body`, which may use the store (the index lock is not held).
    /// A keyspace that does not exist yet iterates as empty. The first ordered iteration of a
    /// keyspace that existed at open builds its key order (O(n), under the index lock: about
    /// 0.3 s for 1M keys, during which other calls wait); later ones only find their start.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` if `keyspace` is not in
    ///   ``LogStoreOptions/orderedKeyspaces``; ``LogStoreError/closed``;
    ///   ``LogStoreError/damagedKeyDirectory(path:reason:)`` if the first use's build meets an
    ///   entry that points at no record inside its segment (close then removes the key
    ///   directory file); what `body` throws.
    /// - Complexity: O(log n) key comparisons to find the start (each reads a key in the log),
    ///   then O(1) per key visited; O(n) once for the first use after open.
    public func forEach(
        in keyspace: String, range: KeyRange, reverse: Bool = false, limit: Int = .max,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard options.orderedKeyspaces.contains(keyspace) else {
            throw LogStoreError.invalidArgument(
                "keyspace \"\(keyspace.prefix(40))\" is not ordered (LogStoreOptions.orderedKeyspaces)"
            )
        }
        guard limit > 0 else { return }
        // Copying the runs is O(1) (copy-on-write); the segments stay mapped while referenced.
        let snapshot = try index.withLock { state throws -> OrderedSnapshot? in
            guard !state.closed else { throw LogStoreError.closed }
            guard let id = state.keyspaces.id(of: keyspace) else { return nil }
            let keys: OrderedKeys?
            do {
                keys = try state.orderedKeys(of: id)
            } catch let damage as KeyDirectory.DamagedEntry {
                state.keyDirectoryDamaged = true
                throw StoreState.damaged(damage, keyspace: keyspace, storePath: path)
            }
            guard let keys else { return nil }
            return OrderedSnapshot(keys: keys, segments: state.segments, bases: state.bases)
        }
        guard let snapshot else { return }
        var left = limit
        try withExtendedLifetime(snapshot.segments) {
            try snapshot.keys.forEach(in: range, reverse: reverse, snapshot.bases) { record in
                try body(record.key, record.value)
                left -= 1
                return left > 0
            }
        }
    }
}

extension LogStore {
    /// Bytes the key order of the ordered keyspaces takes (in addition to
    /// ``indexMemoryBytes``): 8 bytes a key, plus each keyspace's small delta.
    public var orderMemoryBytes: Int {
        index.withLock { $0.ordered.reduce(0) { $0 + ($1?.memoryBytes ?? 0) } }
    }
}
