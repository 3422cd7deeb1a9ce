import LogStore

/// What one commit of a container changed in the store: the objects it inserted, updated and
/// deleted, and its sequence number. Published after every ``ModelContext/save()`` that wrote
/// something and after every batch operation (``ModelContext/delete(model:where:)``,
/// ``ModelContext/update(model:where:set:)``), whichever context made it.
///
/// The sets are exact: an object is in at most one of them, and only if the commit changed its
/// record (a delete of an object already gone is not listed). Merge it into another context
/// with ``ModelContext/merge(_:)``.
public struct SavedChanges: Sendable, Hashable, CustomStringConvertible {
    /// The store's sequence number of the commit (`LogStore.lastSequence` once it is visible).
    public let sequence: UInt64
    /// Objects the commit created.
    public let inserted: Set<PersistentIdentifier>
    /// Objects the commit rewrote, each with the names of its attributes and to-one
    /// relationships whose stored value changed (empty if the object was written unchanged).
    public let updated: [PersistentIdentifier: Set<String>]
    /// Objects the commit deleted.
    public let deleted: Set<PersistentIdentifier>

    /// Changes as given; for tests and tools.
    public init(
        sequence: UInt64, inserted: Set<PersistentIdentifier> = [],
        updated: [PersistentIdentifier: Set<String>] = [:], deleted: Set<PersistentIdentifier> = []
    ) {
        self.sequence = sequence
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// `SavedChanges(sequence: 7, inserted: 2, updated: 1, deleted: 0)`.
    public var description: String {
        "SavedChanges(sequence: \(sequence), inserted: \(inserted.count), "
            + "updated: \(updated.count), deleted: \(deleted.count))"
    }
}
