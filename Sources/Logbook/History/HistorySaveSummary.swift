import Foundation

/// One save read back with its changes counted, carrying only the changes the reader was asked
/// to keep: what ``HistoryReader/nextSummary(keepingFirst:of:)`` returns, so that a timeline or
/// an object's history can pass over saves of millions of changes in bounded memory.
///
/// A value type, `Sendable`.
public struct HistorySaveSummary: Sendable, Hashable {
    /// The position just after this save (as ``HistoryTransaction/token``).
    public let token: HistoryToken
    /// When the save was made (the saving process's clock).
    public let timestamp: Date
    /// The ``ModelContext/author`` of the context that saved, if it set one.
    public let author: String?
    /// Objects the save inserted, all counted (kept or not).
    public let insertCount: Int
    /// Objects the save updated, all counted.
    public let updateCount: Int
    /// Objects the save deleted, all counted.
    public let deleteCount: Int
    /// The entities the save changed, in the order of their first change.
    public let entities: [String]
    /// The changes kept, in the order the save wrote them (as in ``HistoryTransaction/changes``).
    public let changes: [HistoryChange]

    /// The save's sequence number in the store's log.
    public var sequence: UInt64 { token.sequence }
    /// Every change of the save, kept or not.
    public var changeCount: Int { insertCount + updateCount + deleteCount }
}

/// Which changes of a commit ``ChangeDecoder`` keeps: at most `limit`, and only those of one
/// object when `only` names it.
struct ChangeSelection {
    var limit = Int.max
    var only: PersistentIdentifier?

    /// Whether a change of the object `primaryKey` of `entity` is one to keep.
    @inline(__always)
    func keeps(_ entity: String, _ primaryKey: UInt64) -> Bool {
        guard let only else { return true }
        return only.primaryKey == primaryKey && only.entityName == entity
    }
}

/// The changes of a commit, counted whether they were kept or not.
struct ChangeTally {
    var inserted = 0
    var updated = 0
    var deleted = 0
    /// Entities changed, in the order of their first change.
    var entities: [String] = []

    var total: Int { inserted + updated + deleted }

    @inline(__always)
    mutating func count(_ kind: HistoryChange.Kind, _ entity: String) {
        switch kind {
        case .insert: inserted += 1
        case .update: updated += 1
        case .delete: deleted += 1
        }
        // Saves touch few entities: the last one named is nearly always the one.
        if entities.last != entity && !entities.contains(entity) { entities.append(entity) }
    }
}
