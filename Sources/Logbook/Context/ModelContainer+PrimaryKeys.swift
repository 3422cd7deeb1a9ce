extension ModelContainer {
    /// The largest primary key the store has handed out for `entity` (0 before its first
    /// object), as of the container's open and its own saves since: every object of the entity
    /// has a key from 1 through it. With as many objects as that, the keys are exactly 1…N,
    /// which a tool paging through them in key order need not read.
    /// - Throws: ``LogbookError/unknownEntity(_:)``.
    package func lastPrimaryKey(of entity: String) throws -> UInt64 {
        core.lastPrimaryKey(try core.binding(named: entity).index)
    }
}
