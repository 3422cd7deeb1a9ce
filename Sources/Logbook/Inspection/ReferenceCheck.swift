import LogStore

/// The relationship half of ``StoreCheck``: every stored to-one relationship, and every link of
/// a many-to-many, names an object that exists.
enum ReferenceCheck {
    /// One finding per dangling reference, in entity, then primary-key order. Reads each
    /// entity's records one at a time (memory holds only the findings).
    /// - Throws: ``LogbookError/store(_:)``, ``LogbookError/corruptRecord(entity:key:reason:)``.
    static func danglingReferences(in store: LogStore, path: String) throws -> [StoreCheckReport
        .Finding]
    {
        let decoder = try RecordDecoder(store: store)
        var findings: [StoreCheckReport.Finding] = []
        let schema = decoder.schema
        // A reference to a superentity may name an object of a sub-entity.
        let family = Dictionary(
            uniqueKeysWithValues: schema.entities.indices.map { i in
                (
                    schema.entities[i].name,
                    [schema.entities[i].name]
                        + schema.descendants(of: i).map { schema.entities[$0].name }
                )
            })
        for entity in schema.entities {
            // The stored relationships' positions among the stored fields (after the attributes).
            let toOne = entity.relationships.filter(\.isStored).enumerated().map {
                (position: entity.attributes.count + $0.offset, relationship: $0.element)
            }
            guard !toOne.isEmpty else { continue }
            var dangling: [(primaryKey: UInt64, finding: StoreCheckReport.Finding)] = []
            var targets = [[UInt64]](repeating: [], count: toOne.count)
            try wrapStoreErrors {
                try store.forEach(in: entity.name) { key, value in
                    for i in targets.indices { targets[i] = [] }
                    let (pk, _) = try decoder.decodeFields(
                        keyspace: entity.name, key: key, value: value
                    ) { position, value in
                        guard position >= entity.attributes.count else { return }
                        if case .integer(let target) = value {
                            targets[position - entity.attributes.count] = [
                                UInt64(bitPattern: target)
                            ]
                        } else if let links = LinkList.keys(value) {
                            targets[position - entity.attributes.count] = links
                        }
                    }
                    for (i, (_, relationship)) in toOne.enumerated() {
                        for target in targets[i] {
                            let key = Keyspaces.objectKey(target)
                            let candidates =
                                family[relationship.destination] ?? [relationship.destination]
                            if try !candidates.contains(where: { try store.contains(key, in: $0) })
                            {
                                dangling.append(
                                    (
                                        pk,
                                        .init(
                                            path: path, offset: nil,
                                            message: "\(entity.name)/\(pk): \(relationship.name) "
                                                + "points at \(relationship.destination)/\(target), "
                                                + "which does not exist")
                                    ))
                            }
                        }
                    }
                }
            }
            findings += dangling.enumerated().sorted {
                ($0.element.primaryKey, $0.offset) < ($1.element.primaryKey, $1.offset)
            }.map(\.element.finding)
        }
        return findings
    }
}
