extension LogStore {
    /// Whether `record`, met in a ``LogInspector/walk(storeAt:_:)`` of this store's directory,
    /// is the put that holds its key's current value in this store: what `logbook dump --live`
    /// shows, decided without remembering the keys the walk has seen.
    /// - Throws: ``LogStoreError/closed``.
    /// - Complexity: one hash lookup.
    public func isCurrent(_ record: LogInspector.Record) throws -> Bool {
        guard record.kind == .put else { return false }
        return try index.withLock { state throws(LogStoreError) -> Bool in
            guard !state.closed else { throw .closed }
            guard let id = state.keyspaces.id(of: record.keyspace),
                let (ref, _) = record.key.withUnsafeBytes({
                    state.directories[id].find($0, state.bases)
                }),
                Int64(ref.offset) == record.recordOffset,
                var path = state.segments[Int(ref.segment)]?.path
            else { return false }
            // The segment's path ends with `/` and the record's segment file name.
            var name = record.segment
            return path.withUTF8 { path in
                name.withUTF8 { name in
                    path.count > name.count
                        && path[path.count - name.count - 1] == UInt8(ascii: "/")
                        && path.suffix(name.count).elementsEqual(name)
                }
            }
        }
    }
}
