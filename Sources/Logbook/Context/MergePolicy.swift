/// What a save does with an object that another context saved or deleted since this one read it.
///
/// The outcome of every policy against every kind of conflict, deletions included, is in
/// <doc:MergePolicies>.
public enum MergePolicy: Sendable, Hashable {
    /// Throw ``LogbookError/conflict(entity:object:expectedVersion:foundVersion:)``; nothing is
    /// written. The default.
    case error
    /// Keep the store's state of the object: this context's change to it is dropped. An object
    /// updated elsewhere takes the stored values (a deletion pending here is dropped); an
    /// object deleted elsewhere stays deleted (``ModelObject/isDeleted``). The rest of the save
    /// goes ahead.
    case storeWins
    /// Write this context's state of the object over the store's: its values, even over a
    /// deletion made elsewhere (the object is stored again), or its deletion.
    case contextWins
}
