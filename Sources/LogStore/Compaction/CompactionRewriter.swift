/// Rewrites values as compaction copies them: how the layer above puts its records into a newer
/// layout once, when they are moved anyway (FORMAT.md, "Compaction", step 2). The key, the
/// keyspace and the record's place in the copy stay; only the value's bytes change.
///
/// Compaction may run on any thread (an automatic one runs on the writer's), so a rewriter is
/// `Sendable`; its answers must not depend on when it is asked.
public protocol CompactionRewriter: Sendable {
    /// Whether records of `keyspace` may be rewritten; the others are copied byte for byte
    /// without being shown to ``rewrite(_:in:)``.
    func rewrites(keyspace: String) -> Bool

    /// The value to write instead of `value` (a live put of `keyspace`), or `nil` to copy the
    /// record as it is. A value it cannot read must be copied as it is (`nil`): damage stays
    /// where `verify` finds it.
    func rewrite(_ value: UnsafeRawBufferPointer, in keyspace: String) -> [UInt8]?

    /// The rewrite of `keyspace`'s values, asked once per keyspace a compaction copies and then
    /// applied to each of its live records, so that what depends only on the keyspace is found
    /// once instead of per record; `nil` copies the keyspace byte for byte, as
    /// ``rewrites(keyspace:)`` returning `false` does. The function must answer as
    /// ``rewrite(_:in:)`` does. The default asks ``rewrites(keyspace:)`` and calls
    /// ``rewrite(_:in:)``.
    func preparedRewrite(forKeyspace keyspace: String) -> ((UnsafeRawBufferPointer) -> [UInt8]?)?
}

extension CompactionRewriter {
    /// ``rewrite(_:in:)`` for `keyspace`'s values, if ``rewrites(keyspace:)``.
    public func preparedRewrite(
        forKeyspace keyspace: String
    ) -> ((UnsafeRawBufferPointer) -> [UInt8]?)? {
        guard rewrites(keyspace: keyspace) else { return nil }
        return { rewrite($0, in: keyspace) }
    }
}

extension LogStore {
    /// Sets what every compaction started from now on rewrites values with (``compact()`` and
    /// automatic ones); `nil`, the default, copies every record byte for byte.
    /// - Complexity: O(1); a compaction under way keeps the rewriter it started with.
    public func setCompactionRewriter(_ rewriter: (any CompactionRewriter)?) {
        compactionRewriter.withLock { $0 = rewriter }
    }
}
