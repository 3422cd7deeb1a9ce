import LogStore

/// Faulting in the attributes a partial fetch left out (``FetchDescriptor/propertiesToFetch``).
///
/// A fault reads the object's record as the store holds it when the fault fires. If it is the
/// version the fetch read, the missing values are decoded from it; if another context saved the
/// object since, the whole object takes the newer record (a partial object has no unsaved
/// change), so its values always come from one stored state. If the record is gone, the object
/// becomes deleted (``ModelObject/isDeleted``) and the missing attributes keep their declared
/// initial values, as Core Data treats faults it cannot fulfill.
extension ObjectTable {
    /// Faults entry `e`'s `object` in if it is partial; a deleted record or a store error is
    /// left for ``fulfillFault(_:_:)`` to report.
    func fulfill(_ e: Int32, _ object: AnyObject) {
        _ = try? fulfillFault(e, object)
    }

    /// Faults entry `e`'s `object` in if it is partial (the object is passed: the table lets go
    /// of its objects when the context goes, and the app may still hold them).
    /// - Throws: ``LogbookError/objectNotFound(_:)`` if its record was deleted since it was
    ///   fetched (the object is then deleted); ``LogbookError/store(_:)`` (the object stays
    ///   partial, and the next read tries again).
    func fulfillFault(_ e: Int32, _ object: AnyObject) throws {
        let i = Int(e)
        guard entries[i].isPartial, entries[i].state != .free, let core else { return }
        let binding = bindings[Int(entries[i].entity)]
        let pk = entries[i].primaryKey
        let fetchedVersion = entries[i].version
        let missing = binding.unfetchedFields(of: object)
        let generation = core.saveGeneration
        var version: UInt64 = 0
        let found = try Keyspaces.withObjectKey(pk) { key in
            try wrapStoreErrors {
                try core.store.readValue(forKey: key, in: binding.keyspace) { record in
                    if RecordCodec.objectVersion(record) == fetchedVersion {
                        version = try binding.load(
                            record, into: object, primaryKey: pk, only: missing)
                    } else {
                        version = try binding.load(record, into: object, primaryKey: pk)
                    }
                }
            }
        }
        binding.markFetched(object)
        entries[i].isPartial = false
        guard found else {
            markGone(e)
            throw LogbookError.objectNotFound(
                PersistentIdentifier(entityName: binding.entity.name, primaryKey: pk).description)
        }
        if version != fetchedVersion {
            entries[i].version = version
            entries[i].readGeneration = generation
        }
    }
}
