import Foundation

/// One save read back from a store's history: a ``ModelContext/save()`` or a batch operation
/// (``ModelContext/delete(model:where:)``, ``ModelContext/update(model:where:set:)``), as Core
/// Data's persistent history transactions, but read from the log itself.
///
/// A value type, `Sendable`.
public struct HistoryTransaction: Sendable, Hashable {
    /// The position just after this save: pass it to ``ModelContainer/history(after:)`` to read
    /// the saves that follow, or to ``ModelContainer/context(asOf:)`` to see the store as this
    /// save left it.
    public let token: HistoryToken
    /// When the save was made (the saving process's clock).
    public let timestamp: Date
    /// The ``ModelContext/author`` of the context that saved, if it set one.
    public let author: String?
    /// What the save changed, in the order it wrote the changes.
    public let changes: [HistoryChange]

    /// The save's sequence number in the store's log.
    public var sequence: UInt64 { token.sequence }

    /// Objects the save inserted.
    public var inserted: [PersistentIdentifier] {
        changes.filter { $0.kind == .insert }.map(\.identifier)
    }
    /// Objects the save updated.
    public var updated: [PersistentIdentifier] {
        changes.filter { $0.kind == .update }.map(\.identifier)
    }
    /// Objects the save deleted.
    public var deleted: [PersistentIdentifier] {
        changes.filter { $0.kind == .delete }.map(\.identifier)
    }
}

/// One object a save inserted, updated or deleted.
///
/// A value type, `Sendable`.
public struct HistoryChange: Sendable, Hashable {
    /// What happened to the object.
    public enum Kind: String, Sendable, Hashable, Codable {
        case insert, update, delete
    }

    /// What happened to the object.
    public let kind: Kind
    /// The object.
    public let identifier: PersistentIdentifier
    /// For an update, the attributes and to-one relationships the save changed, in schema
    /// order; empty for an insert or a delete.
    public let updatedAttributes: [String]
    /// For an insert or an update read with values (``ModelContainer/historyReader(after:follow:values:)``),
    /// the object's stored values after the save; `nil` otherwise.
    public let record: DecodedRecord?

    /// A change; `record` holds the object's values after it, when they were asked for.
    public init(
        kind: Kind, identifier: PersistentIdentifier, updatedAttributes: [String] = [],
        record: DecodedRecord? = nil
    ) {
        self.kind = kind
        self.identifier = identifier
        self.updatedAttributes = updatedAttributes
        self.record = record
    }
}
