import Foundation
import LogStore

extension HistoryToken {
    /// The token after the last commit of `store`, opened directly (as the `logbook` tool does
    /// to export it): a feed from it applies the saves made after what `store` shows now.
    /// `nil` if the store records no history (no Logbook that keeps history has written it).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    public static func current(of store: LogStore) throws -> HistoryToken? {
        let sequence = store.lastSequence
        var batch = WriteBatch()
        let (identity, _) = try ContainerCore.settleIdentity(
            of: store, isNew: false, readOnly: true, writing: &batch)
        return identity.map { HistoryToken(storeIdentifier: $0, sequence: sequence) }
    }
}

/// The store's identity and where its recorded history starts (FORMAT.md Part 2, "History").
extension ContainerCore {
    /// Reads the store's identity, or when a writable open finds none, makes one and adds it
    /// (with the start of the store's history) to `batch`, which the caller commits next: a new
    /// store's history starts at its beginning, an older store's after its last commit (its
    /// earlier saves have no save records).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    static func settleIdentity(
        of store: LogStore, isNew: Bool, readOnly: Bool, writing batch: inout WriteBatch
    ) throws -> (UUID?, UInt64) {
        let (identity, since) = try wrapStoreErrors {
            (
                try store.get(Keyspaces.storeIdentifierKey, in: Keyspaces.meta),
                try store.get(Keyspaces.historySinceKey, in: Keyspaces.meta)
            )
        }
        if let identity, let since {
            guard let uuid = Keyspaces.storeIdentifier(ofValue: identity),
                let since = Keyspaces.number(ofValue: since)
            else {
                throw LogbookError.corruptRecord(
                    entity: Keyspaces.meta,
                    key: String(decoding: Keyspaces.storeIdentifierKey, as: UTF8.self),
                    reason: "a store identifier has 16 bytes and its history start 8")
            }
            return (uuid, since)
        }
        guard !readOnly else { return (nil, 0) }
        let uuid = UUID()
        let start = isNew ? 0 : store.lastSequence
        batch.put(
            Keyspaces.storeIdentifierValue(uuid), for: Keyspaces.storeIdentifierKey,
            in: Keyspaces.meta)
        batch.put(
            Keyspaces.numberValue(start), for: Keyspaces.historySinceKey, in: Keyspaces.meta)
        return (uuid, start)
    }

    /// The store's identity, for history.
    /// - Throws: ``LogbookError/historyNotRecorded(path:)`` for a store no Logbook that keeps
    ///   history has written (opened read-only).
    func requireStoreIdentifier() throws -> UUID {
        guard let storeIdentifier else { throw LogbookError.historyNotRecorded(path: url.path) }
        return storeIdentifier
    }

    /// The oldest sequence number whose state and later saves the store can still show.
    func oldestHistorySequence() throws -> UInt64 {
        max(historySince, try wrapStoreErrors { try store.historyFloor() })
    }

    /// The sequence number of `token`, checked: of this store, not ahead of its last commit
    /// (unless `ahead` allows it: a follower), not older than its history.
    /// - Throws: ``LogbookError/invalidHistoryToken(_:reason:)``,
    ///   ``LogbookError/historyUnavailable(requested:oldest:)``,
    ///   ``LogbookError/historyNotRecorded(path:)``.
    func checkedSequence(of token: HistoryToken?, ahead: Bool = false) throws -> UInt64 {
        let identity = try requireStoreIdentifier()
        let oldest = try oldestHistorySequence()
        guard let token else { return oldest }
        guard token.storeIdentifier == identity else {
            throw LogbookError.invalidHistoryToken(
                token.description,
                reason:
                    "it belongs to another store (\(token.storeIdentifier.uuidString.lowercased())); this one is \(identity.uuidString.lowercased())"
            )
        }
        let last = store.lastSequence
        guard token.sequence <= last || ahead else {
            throw LogbookError.invalidHistoryToken(
                token.description,
                reason:
                    "it is ahead of the store's last commit, \(last): it was made up, or comes from a newer copy of the store"
            )
        }
        guard token.sequence >= oldest else {
            throw LogbookError.historyUnavailable(
                requested: token, oldest: HistoryToken(storeIdentifier: identity, sequence: oldest))
        }
        return token.sequence
    }
}
