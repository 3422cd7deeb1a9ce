import Foundation

/// A save of this replica that meets changes another replica or an SQL client made to the same
/// object since this replica last read PostgreSQL's changes: what a resolver decides on
/// (``PostgreSQLReplica/setResolver(for:_:)``).
///
/// A value type, `Sendable`.
public struct SyncConflict: Sendable {
    /// The object.
    public let identifier: PersistentIdentifier
    /// The fields this replica's save changed (attributes and to-one relationships, by name),
    /// with the values it gave them.
    public let local: [String: AttributeValue]
    /// Every field of the object as PostgreSQL holds it now.
    public let remote: [String: AttributeValue]
    /// The fields whose value in PostgreSQL is newer than the save's on the hybrid logical
    /// clock: those last writer wins would leave as they are.
    public let newerRemotely: Set<String>
}

/// What a resolver decides for a ``SyncConflict``. PostgreSQL applies it in the transaction of
/// the save, so every replica ends with the same values.
public enum SyncResolution: Sendable, Equatable {
    /// Per field, the later write on the hybrid logical clock wins (the default policy).
    case lastWriterWins
    /// The save's values win, for every field it changed.
    case keepLocal
    /// PostgreSQL's values stay; the save's changes of this object are dropped.
    case keepRemote
    /// These values (by field name) are written, the other fields keep PostgreSQL's values.
    case values([String: AttributeValue])
}

/// Something syncing decided that the app may want to know about, reported to
/// ``PostgreSQLReplica/Options/onConflict``.
public enum SyncConflictReport: Sendable, Equatable {
    /// A save gave an object a value of a unique attribute that another object already held in
    /// PostgreSQL. The object that held it first keeps it: an update of `refused` keeps
    /// PostgreSQL's value of the attribute; an insert of `refused` is undone (the object is
    /// deleted from this store), and `lostValues` holds what it had.
    case uniqueClash(
        attribute: String, value: String, kept: PersistentIdentifier, refused: PersistentIdentifier,
        insertRefused: Bool, lostValues: [String: AttributeValue])
    /// A save changed an object that was deleted in PostgreSQL meanwhile: the delete wins, so
    /// the object is deleted here too, and `lostValues` holds the save's changes.
    case deletedMeanwhile(PersistentIdentifier, lostValues: [String: AttributeValue])
    /// A resolver decided a conflict.
    case resolved(PersistentIdentifier, SyncResolution)
}
