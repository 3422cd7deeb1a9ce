extension ModelContext {
    /// Inserts a new object of `entity` from values given by position: one per attribute, in
    /// ``Entity/attributes`` order, `nil` for the attribute's default. The form of
    /// ``insert(entity:values:)`` for tools that hold values already typed (an import of a
    /// million lines), without a dictionary or a conversion per value.
    /// - Precondition: `values` has one element per attribute.
    /// - Throws: ``LogbookError/unknownEntity(_:)``; ``LogbookError/typeMismatch(entity:attribute:expected:found:)``
    ///   for a value of another type or `null` where the object's class cannot hold it (then
    ///   nothing is inserted).
    @discardableResult
    public func insert(entity: String, attributeValues values: [AttributeValue?]) throws
        -> any ModelObject
    {
        let binding = try core.binding(named: entity)
        let attributes = binding.entity.attributes
        precondition(values.count == attributes.count, "one value per attribute of \(entity)")
        for (i, value) in values.enumerated() {
            guard let value, !binding.canHold(value, at: i) else { continue }
            throw LogbookError.typeMismatch(
                entity: entity, attribute: attributes[i].name,
                expected: attributes[i].type.description, found: value.type?.description ?? "nil")
        }
        let object = binding.makeObject()
        register(object, binding: binding)
        for (i, value) in values.enumerated() {
            if let value { binding.write(object, i, value) }
        }
        guard let model = object as? any ModelObject else {
            throw LogbookError.invalidSchema(
                "the class of entity \(entity) does not conform to PersistentModel")
        }
        return model
    }
}
