import Foundation
import LogStore

/// Reads a store's saves in order, from a token on: what ``ModelContainer/history(after:)``
/// collects, one ``HistoryTransaction`` at a time, for histories too long to hold at once and
/// for following a store as it is written (``ModelContainer/historyReader(after:follow:values:)``).
///
/// Commits that are not saves (the schema and bookkeeping a container writes when it opens)
/// are passed over. A save a reader would skip because compaction dropped it is an error, never
/// a gap.
///
/// Not thread-safe: use a reader from one thread at a time.
public final class HistoryReader {
    private let commits: CommitReader
    private let storeIdentifier: UUID
    private let values: Bool
    private var decoder: ChangeDecoder

    /// The position read to: after the last commit read (a save or not). Start a later reader
    /// from it to go on where this one stopped.
    public var token: HistoryToken {
        HistoryToken(storeIdentifier: storeIdentifier, sequence: commits.lastSequence)
    }

    init(commits: CommitReader, storeIdentifier: UUID, history: SchemaHistory, values: Bool) {
        self.commits = commits
        self.storeIdentifier = storeIdentifier
        self.values = values
        decoder = ChangeDecoder(history: history)
    }

    /// The next save, or `nil` when there is none (yet: a following reader finds later saves when
    /// called again).
    /// - Throws: ``LogbookError/historyUnavailable(requested:oldest:)`` if the next saves were
    ///   compacted away before they were read; ``LogbookError/corruptRecord(entity:key:reason:)``;
    ///   ``LogbookError/store(_:)``.
    /// - Complexity: O(bytes of the commits read).
    public func next() throws -> HistoryTransaction? {
        while let commit = try nextCommit() {
            guard
                let (time, author, changes, _) = try decoder.decode(
                    sequence: commit.sequence, values: values,
                    { operation in
                        try commit.forEachRecord { try operation($0.keyspace, $0.key, $0.value) }
                    })
            else { continue }
            return HistoryTransaction(
                token: HistoryToken(storeIdentifier: storeIdentifier, sequence: commit.sequence),
                timestamp: time, author: author, changes: changes)
        }
        return nil
    }

    /// The next save, its changes counted, with only the first `limit` of them kept (of the
    /// object `identifier` alone, when given; with their values if the reader was made with
    /// values); `nil` when there is none (yet).
    ///
    /// ```swift
    /// let reader = try container.historyReader()
    /// while let save = try reader.nextSummary() {
    ///     print(save.sequence, save.insertCount, save.updateCount, save.deleteCount)
    /// }
    /// ```
    /// - Throws: as ``next()``.
    /// - Complexity: O(bytes of the commits read); memory O(`limit`), not O(changes of a save).
    public func nextSummary(keepingFirst limit: Int = 0, of identifier: PersistentIdentifier? = nil)
        throws -> HistorySaveSummary?
    {
        let selection = ChangeSelection(limit: max(0, limit), only: identifier)
        while let commit = try nextCommit() {
            guard
                let (time, author, changes, tally) = try decoder.decode(
                    sequence: commit.sequence, values: values, keeping: selection,
                    { operation in
                        try commit.forEachRecord { try operation($0.keyspace, $0.key, $0.value) }
                    })
            else { continue }
            return HistorySaveSummary(
                token: HistoryToken(storeIdentifier: storeIdentifier, sequence: commit.sequence),
                timestamp: time, author: author, insertCount: tally.inserted,
                updateCount: tally.updated, deleteCount: tally.deleted, entities: tally.entities,
                changes: changes)
        }
        return nil
    }

    private func nextCommit() throws -> LoggedCommit? {
        do {
            return try commits.next()
        } catch LogStoreError.historyUnavailable(let requested, let oldest) {
            throw LogbookError.historyUnavailable(
                requested: HistoryToken(storeIdentifier: storeIdentifier, sequence: requested),
                oldest: HistoryToken(storeIdentifier: storeIdentifier, sequence: oldest))
        } catch let error as LogStoreError {
            throw LogbookError.store(error)
        }
    }
}
