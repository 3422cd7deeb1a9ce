import Foundation
import LogStore

/// Following a store another process writes (FORMAT.md, "Readers in other processes").
extension ModelContainer {
    /// For a container opened read-only on a store another process writes: takes in the saves
    /// made since it opened (or last refreshed), each whole, so that fetches in its contexts see
    /// them, and publishes each one's changes to ``changes()`` and ``observeChanges(_:)`` (merge
    /// them into a context that holds objects with ``ModelContext/merge(_:)``). Returns those
    /// changes, oldest first. A container that writes sees its own saves at once: for it (and
    /// for a context of a past state) this does nothing and returns none.
    ///
    /// A save still being written is left for the next refresh. The writer's compaction and its
    /// removal of segments do not disturb a refresh; if saves were compacted away before they
    /// could be read one by one (the reader had not looked since a segment that held them was
    /// compacted), the state is still exact but those saves' changes are not listed.
    /// - Throws: ``LogbookError/store(_:)`` (damage, an I/O error, a closed container);
    ///   ``LogbookError/corruptRecord(entity:key:reason:)`` for a save record that does not decode.
    /// - Complexity: O(bytes of the new saves); when any came, the container's indexes are built
    ///   again from the records, O(objects of entities with indexes).
    @discardableResult
    public func refresh() throws -> [SavedChanges] {
        guard core.pastState == nil, core.storeIdentifier != nil else {
            if core.pastState == nil { _ = try core.indexes.refresh(observing: nil) }
            return []
        }
        // Under the save lock, as a save publishes: a subscriber gets every later save, and
        // two refreshes publish in order.
        return try core.saveLock.withLock { _ in try takeInSaves() }
    }

    /// Refreshes the store and indexes, and publishes the changes of each save taken in.
    private func takeInSaves() throws -> [SavedChanges] {
        // Each commit is decoded as it is taken in (the store still shows the state before
        // it), from the segment the reader holds: even one compacted away since is listed.
        var decoder = ChangeDecoder(history: try SchemaHistory.read(from: core.store))
        var saved: [SavedChanges] = []
        _ = try core.indexes.refresh { commit in
            guard
                let (_, _, changes, _) = try decoder.decode(
                    sequence: commit.sequence, values: false,
                    { operation in
                        try commit.forEachRecord { try operation($0.keyspace, $0.key, $0.value) }
                    })
            else { return }
            var updated: [PersistentIdentifier: Set<String>] = [:]
            for change in changes where change.kind == .update {
                updated[change.identifier] = Set(change.updatedAttributes)
            }
            saved.append(
                SavedChanges(
                    sequence: commit.sequence,
                    inserted: Set(changes.filter { $0.kind == .insert }.map(\.identifier)),
                    updated: updated,
                    deleted: Set(changes.filter { $0.kind == .delete }.map(\.identifier))))
        }
        for changes in saved { core.changeHub.publish(changes) }
        return saved
    }

    /// For a container opened read-only: calls ``refresh()`` every `interval` seconds on a
    /// thread of its own, so that observers (``changes()``, ``observeChanges(_:)``) hear of the
    /// saves another process makes while the container is open, as `logbook changes --follow`
    /// does. Following stops when the returned observation is cancelled or released, or the
    /// container is closed or released. `onError` hears of a refresh that failed (following
    /// goes on; a closed container stops it).
    public func followChanges(
        every interval: TimeInterval = 0.1,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) -> ChangeObservation {
        let stopped = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [weak self] in
            defer { finished.signal() }
            while stopped.wait(timeout: .now() + interval) == .timedOut {
                guard let container = self else { return }
                do {
                    try container.refresh()
                } catch LogbookError.store(.closed) {
                    return
                } catch {
                    onError?(error)
                }
            }
        }
        let once = Locked(false)
        return ChangeObservation {
            guard
                once.withLock({ done in
                    defer { done = true }
                    return !done
                })
            else { return }
            stopped.signal()
            finished.wait()
        }
    }
}
