import LogStore

/// One change in a commit of a crash-test workload; the models key it `"keyspace/key"`.
package enum Change: Sendable {
    case put(keyspace: String, key: String, value: [UInt8])
    case delete(keyspace: String, key: String)

    /// `changes` as one batch.
    package static func batch(_ changes: [Change]) -> WriteBatch {
        var batch = WriteBatch()
        for change in changes {
            switch change {
            case .put(let keyspace, let key, let value):
                batch.put(value, for: Array(key.utf8), in: keyspace)
            case .delete(let keyspace, let key):
                batch.delete(Array(key.utf8), in: keyspace)
            }
        }
        return batch
    }

    /// Applies `changes` to a model of a store's contents (`"keyspace/key"` → value).
    package static func apply(_ changes: [Change], to contents: inout [String: [UInt8]]) {
        for change in changes {
            switch change {
            case .put(let keyspace, let key, let value): contents[keyspace + "/" + key] = value
            case .delete(let keyspace, let key): contents[keyspace + "/" + key] = nil
            }
        }
    }

    /// Writes `chunks` as one streaming commit (``LogStore/beginCommit(durability:)``), a chunk
    /// per append; returns its sequence number. A failed append or finish is rethrown (the
    /// commit is then abandoned).
    @discardableResult
    package static func stream(
        _ chunks: [[Change]], into store: LogStore, durability: Durability? = nil
    ) throws -> UInt64 {
        let commit = try store.beginCommit(durability: durability)
        for chunk in chunks { try commit.append(batch(chunk)) }
        return try commit.finish()
    }
}
