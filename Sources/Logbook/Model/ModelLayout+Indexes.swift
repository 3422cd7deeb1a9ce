extension ModelLayout {
    /// `entity` (this class's, relationships resolved) with the indexes and unique policy the
    /// class declares (``PersistentModel/indexes``, ``PersistentModel/uniquePolicy``).
    /// - Throws: ``LogbookError/invalidSchema(_:)`` for a key path that is not an `@Attribute`
    ///   or `@Relationship` property of the class.
    func withDeclaredIndexes(_ entity: Entity) throws -> Entity {
        let (indexes, policy) = Self.declarations(of: modelType)
        var result = entity
        result.uniquePolicy = policy
        guard !indexes.isEmpty else { return result }
        let binding = try EntityBinding(
            index: 0, entity: entity,
            codec: RecordCodec(entity: entity, schemaVersion: 0, history: SchemaHistory()),
            layout: self)
        let resolver = KeyPathResolver(binding: binding)
        for (keyPaths, unique, searchable) in indexes {
            let names = try keyPaths.map { keyPath in
                guard let name = resolver.fieldName(keyPath) else {
                    throw LogbookError.invalidSchema(
                        "an index of \(entity.name) names a key path that is not an @Attribute or @Relationship property"
                    )
                }
                return name
            }
            if searchable {
                for name in names {
                    guard let i = result.attributeIndex(name) else {
                        throw LogbookError.invalidSchema(
                            "\(entity.name).\(name) is a relationship, so it cannot be searchable")
                    }
                    result.attributes[i].isSearchable = true
                }
                continue
            }
            let index = IndexDescription(names, unique: unique)
            if !result.indexes.contains(index) { result.indexes.append(index) }
        }
        return result
    }

    private static func declarations<Model: PersistentModel>(of type: Model.Type)
        -> ([(keyPaths: [AnyKeyPath], unique: Bool, searchable: Bool)], UniquePolicy)
    {
        (
            Model.indexes.map {
                ($0.keyPaths.map { $0 as AnyKeyPath }, $0.isUnique, $0.isSearchable)
            },
            Model.uniquePolicy
        )
    }
}
