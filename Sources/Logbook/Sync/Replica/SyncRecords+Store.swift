import LogStore

extension SyncRecords {
    /// The replica record of `store`, if it has one.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for one that does not
    ///   decode; what reading `store` throws.
    static func replica(in store: LogStore) throws -> Replica? {
        try wrapStoreErrors { try store.get(replicaKey, in: keyspace) }.map { bytes in
            try bytes.withUnsafeBytes { try Replica(decoding: $0) }
        }
    }

    /// The down record of `store`, if it has one.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for one that does not
    ///   decode; what reading `store` throws.
    static func down(in store: LogStore) throws -> Down? {
        try wrapStoreErrors { try store.get(downKey, in: keyspace) }.map { bytes in
            try bytes.withUnsafeBytes { try Down(decoding: $0) }
        }
    }
}
