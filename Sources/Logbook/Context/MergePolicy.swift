/// What a save does with an object that another context saved since this one read it.
public enum MergePolicy: Sendable, Hashable {
    /// Throw ``LogbookError/conflict(entity:object:expectedVersion:foundVersion:)``; nothing is
    /// written. The default.
    case error
    /// Keep the stored object: this context's changes to it are dropped and its values
    /// refreshed from the store; the rest of the save goes ahead.
    case storeWins
    /// Overwrite the stored object with this context's values.
    case contextWins
}
