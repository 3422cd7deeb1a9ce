extension ModelContext {
    /// Inserts a new object of `entity` from values given by position: one per attribute, in
    /// ``Entity/attributes`` order, `nil` for the attribute's default. The form of
    /// ``insert(entity:values:)`` for tools that hold values already typed (an import of a
    /// million lines), without a dictionary or a conversion per value.
    /// - Throws: ``LogbookError/unknownEntity(_:)``; ``LogbookError/valueCount(entity:expected:found:)``
    ///   unless there is one value per attribute; ``LogbookError/typeMismatch(entity:attribute:expected:found:)``
    ///   for a value of another type or `null` where the object's class cannot hold it (then
    ///   nothing is inserted).
    @discardableResult
    public func insert(entity: String, attributeValues values: [AttributeValue?]) throws
        -> any ModelObject
    {
        try insert(entity: entity, attributeValues: values, primaryKey: nil, links: [])
    }

    /// Inserts like ``insert(entity:attributeValues:)``, with primary key `primaryKey` (the
    /// next key of the entity's sequence when `nil`) and the stored relationships' keys as
    /// they are to be saved: for each relationship (by position in ``Entity/relationships``),
    /// the destination objects' keys, which need not be loaded nor exist yet (an import that
    /// keeps its file's keys). The sequence is raised to `primaryKey`; the caller keeps keys
    /// unique and references valid. Relationships not given hold none.
    /// - Throws: as ``insert(entity:attributeValues:)``.
    @discardableResult
    package func insert(
        entity: String, attributeValues values: [AttributeValue?], primaryKey: UInt64?,
        links: [(relationship: Int, keys: [UInt64])]
    ) throws -> any ModelObject {
        let binding = try core.binding(named: entity)
        let attributes = binding.entity.attributes
        guard values.count == attributes.count else {
            throw LogbookError.valueCount(
                entity: entity, expected: attributes.count, found: values.count)
        }
        for (i, value) in values.enumerated() {
            guard let value, !binding.canHold(value, at: i) else { continue }
            throw LogbookError.typeMismatch(
                entity: entity, attribute: attributes[i].name,
                expected: attributes[i].type.description, found: value.type?.description ?? "nil")
        }
        let object = binding.makeObject()
        register(object, binding: binding, primaryKey: primaryKey)
        for (i, value) in values.enumerated() {
            if let value { binding.write(object, i, value) }
        }
        for (r, keys) in links {
            let relationship = binding.entity.relationships[r]
            guard relationship.isStored else { continue }
            binding.write(
                object, binding.relationshipSlots[r],
                relationship.isToMany
                    ? LinkList.value(keys)
                    : keys.first.map { .integer(Int64(bitPattern: $0)) } ?? .null)
        }
        guard let model = object as? any ModelObject else {
            throw LogbookError.invalidSchema(
                "the class of entity \(entity) does not conform to PersistentModel")
        }
        return model
    }

    /// Saves like ``save()``, but into `commit`, a `StreamingCommit` of this container's
    /// store, instead of in a commit of its own: the changes become visible, all at once with
    /// everything else in `commit`, when it finishes — or never, if it is cancelled. For a
    /// change too large to hold until one save, such as an import of millions of objects: save
    /// into one commit every so many inserts, then finish it.
    ///
    /// Once this returns, the context counts the changes as saved, but this container does not
    /// follow them: its secondary indexes and change observers never see them (and its indexes
    /// are no longer written beside the store, so the next open builds them). Close the
    /// container once `commit` ends, and open it again to read what it wrote. Unique attributes
    /// are checked against what is visible in the store, not against earlier saves into the
    /// same `commit`.
    /// - Throws: as ``save()``; ``LogbookError/store(_:)`` with the error of
    ///   `StreamingCommit.append(_:)` (then the whole commit is abandoned).
    public func save(into commit: StreamingCommit) throws {
        try save(appendingTo: commit)
    }
}
