/// What one commit does to the indexes: entries removed and added, per entity and index.
struct IndexDelta {
    var removals: [[IndexEntries]]
    var additions: [[IndexEntries]]
    /// The highest primary key put, per entity.
    var highest: [UInt64]

    init(makers: [IndexEntryMaker?]) {
        removals = makers.map { $0?.emptyLists ?? [] }
        additions = removals
        highest = Array(repeating: 0, count: makers.count)
    }
}

/// Builds the ``IndexDelta`` of a batch one operation at a time, as the commit's walk of the
/// batch meets them (``ContainerCore/delta(of:)``), from each operation's new record and the
/// stored record it replaces. Made by ``ContainerIndexes/deltaBuilder()`` under the save lock.
final class IndexDeltaBuilder {
    private unowned let owner: ContainerIndexes
    private let makers: [IndexEntryMaker?]
    /// Per entity: no stored record has a primary key above this, so a put above it replaces
    /// nothing (bulk inserts read no old records).
    private let ceiling: [UInt64]
    // Unchecked exclusivity: used only by the one commit walk that made the builder, one call
    // at a time.
    @exclusivity(unchecked) private(set) var delta: IndexDelta
    /// The entity whose lists `old` and `new` are (scratch reused from one operation to the next).
    @exclusivity(unchecked) private var entity = -1
    @exclusivity(unchecked) private var old: [IndexEntries] = []
    @exclusivity(unchecked) private var new: [IndexEntries] = []

    init(owner: ContainerIndexes, ceiling: [UInt64]) {
        self.owner = owner
        makers = owner.makers
        self.ceiling = ceiling
        delta = IndexDelta(makers: owner.makers)
    }

    /// Whether operations on `entity` change its indexes.
    @inline(__always)
    func tracks(_ entity: Int) -> Bool {
        makers[entity] != nil && owner.isAvailable(entity)
    }

    /// Whether a put or delete of `pk` in `entity` needs the stored record it replaces.
    @inline(__always)
    func needsReplaced(_ entity: Int, _ pk: UInt64) -> Bool {
        tracks(entity) && pk <= ceiling[entity]
    }

    /// Adds a put (`value`) or delete (`nil`) of `pk` in `entity` that replaces the stored
    /// record `replaced` (`nil`: none, or not needed by ``needsReplaced(_:_:)``).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a record that does not
    ///   decode.
    func add(
        entity: Int, pk: UInt64, replaced: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?
    ) throws {
        guard let maker = makers[entity], owner.isAvailable(entity) else { return }
        if entity != self.entity {
            self.entity = entity
            old = maker.emptyLists
            new = maker.emptyLists
        }
        for i in old.indices {
            old[i].removeAll()
            new[i].removeAll()
        }
        if let replaced { try maker.appendEntries(record: replaced, pk: pk, to: &old) }
        if let value { try maker.appendEntries(record: value, pk: pk, to: &new) }
        delta.highest[entity] = max(delta.highest[entity], pk)
        for i in old.indices {
            let (before, after) = (!old[i].isEmpty, !new[i].isEmpty)
            if before && after && old[i].bytes == new[i].bytes { continue }
            if before { delta.removals[entity][i].append(contentsOf: old[i]) }
            if after { delta.additions[entity][i].append(contentsOf: new[i]) }
        }
    }
}
