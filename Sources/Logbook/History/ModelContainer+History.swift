import Foundation
import LogStore

/// The store's history: the saves after a token, and contexts that show the store as it was
/// (FORMAT.md Part 2, "History").
///
/// Every save and batch operation is a commit in the store's log, with a sequence number, its
/// time, its context's ``ModelContext/author`` and what it changed. How far back that history
/// reaches is the store's ``HistoryRetention``.
extension ModelContainer {
    /// The token after the store's last commit: history read after it starts with the next save.
    /// - Throws: ``LogbookError/historyNotRecorded(path:)`` for a store no Logbook that keeps
    ///   history has written, opened read-only.
    public var currentHistoryToken: HistoryToken {
        get throws {
            HistoryToken(
                storeIdentifier: try core.requireStoreIdentifier(),
                sequence: core.store.lastSequence)
        }
    }

    /// The oldest token the store still has history after: older saves were compacted away (or
    /// made before the store recorded history).
    /// - Throws: ``LogbookError/historyNotRecorded(path:)``, ``LogbookError/store(_:)``.
    public var oldestHistoryToken: HistoryToken {
        get throws {
            HistoryToken(
                storeIdentifier: try core.requireStoreIdentifier(),
                sequence: try core.oldestHistorySequence())
        }
    }

    /// The saves after `token` (after ``oldestHistoryToken`` when `nil`), oldest first.
    ///
    /// ```swift
    /// let since = try container.currentHistoryToken
    /// // … saves …
    /// for transaction in try container.history(after: since) {
    ///     print(transaction.sequence, transaction.author ?? "-", transaction.inserted)
    /// }
    /// ```
    /// - Throws: ``LogbookError/historyUnavailable(requested:oldest:)`` if retention has dropped
    ///   saves after `token` (the error names the oldest token still available);
    ///   ``LogbookError/invalidHistoryToken(_:reason:)`` for a token of another store or one
    ///   ahead of the store; ``LogbookError/historyNotRecorded(path:)``;
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``; ``LogbookError/store(_:)``.
    /// - Complexity: O(bytes of the commits after `token`).
    public func history(after token: HistoryToken? = nil) throws -> [HistoryTransaction] {
        let reader = try historyReader(after: token)
        var transactions: [HistoryTransaction] = []
        while let transaction = try reader.next() { transactions.append(transaction) }
        return transactions
    }

    /// A reader of the saves after `token` (after ``oldestHistoryToken`` when `nil`), one at a
    /// time. With `follow`, the reader finds saves made after it reached the end when called
    /// again, including saves another process makes when this container is read-only (then
    /// `token` may also be ahead of what the container saw when it opened). With `values`, each
    /// insert and update carries the object's stored values after the save
    /// (``HistoryChange/record``).
    /// - Throws: as ``history(after:)``.
    public func historyReader(
        after token: HistoryToken? = nil, follow: Bool = false, values: Bool = false
    ) throws -> HistoryReader {
        let sequence = try core.checkedSequence(of: token, ahead: follow)
        let commits: CommitReader
        do {
            commits = try core.store.commits(after: sequence, follow: follow)
        } catch LogStoreError.historyUnavailable(_, let oldest) {
            let identity = try core.requireStoreIdentifier()
            throw LogbookError.historyUnavailable(
                requested: HistoryToken(storeIdentifier: identity, sequence: sequence),
                oldest: HistoryToken(storeIdentifier: identity, sequence: oldest))
        } catch LogStoreError.invalidArgument(let reason) {
            throw LogbookError.invalidHistoryToken(token?.description ?? "", reason: reason)
        } catch let error as LogStoreError {
            throw LogbookError.store(error)
        }
        return HistoryReader(
            commits: commits, storeIdentifier: try core.requireStoreIdentifier(),
            history: try SchemaHistory.read(from: core.store), values: values)
    }

    /// A read-only context that shows the store exactly as it was at `token` (after that
    /// commit): fetches, predicates, sorting, relationships and identifiers work as in any
    /// context, on that state. Saving in it throws ``LogbookError/pastStateIsReadOnly(token:)``.
    ///
    /// ```swift
    /// let before = try container.currentHistoryToken
    /// try context.delete(model: Employee.self)
    /// let then = try container.context(asOf: before)
    /// let everyone = try then.fetch(FetchDescriptor<Employee>())   // as before the delete
    /// ```
    /// - Throws: as ``history(after:)``.
    /// - Complexity: O(records in the log up to `token`), as an open that rebuilds its index from
    ///   hint files; its fetches then cost what fetches of the current state cost.
    public func context(asOf token: HistoryToken) throws -> ModelContext {
        let sequence = try core.checkedSequence(of: token)
        let snapshot: LogStore
        do {
            snapshot = try core.store.snapshot(asOf: sequence)
        } catch LogStoreError.historyUnavailable(_, let oldest) {
            throw LogbookError.historyUnavailable(
                requested: token,
                oldest: HistoryToken(storeIdentifier: token.storeIdentifier, sequence: oldest))
        } catch let error as LogStoreError {
            throw LogbookError.store(error)
        }
        return ModelContext(
            mainOf: ContainerCore(pastOf: core, store: snapshot, token: token))
    }

    /// How much history the store keeps (kept in the store, so every compaction honours it).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    public var historyRetention: HistoryRetention {
        get throws { try HistoryRetention.stored(in: core.store) }
    }

    /// Sets how much history the store keeps, from its next compaction on. Saves already
    /// dropped do not come back.
    /// - Throws: ``LogbookError/store(_:)`` (for example when the store is read-only).
    public func setHistoryRetention(_ retention: HistoryRetention) throws {
        guard try historyRetention != retention else { return }
        try wrapStoreErrors {
            try core.store.put(
                retention.encoded, for: Keyspaces.historyRetentionKey, in: Keyspaces.meta)
        }
    }
}
