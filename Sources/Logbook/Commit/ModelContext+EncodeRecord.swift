import LogStore

extension ModelContext {
    /// Encodes the record of a class or dynamic object into `writer`.
    /// - Throws: ``LogbookError/missingValue(entity:attribute:object:)``.
    func encodeRecord(
        of object: AnyObject, _ binding: EntityBinding, pk: UInt64, version: UInt64,
        into writer: inout ByteWriter
    ) throws {
        let attributes = binding.stored.attributes
        if let field = binding.unconvertibleField(object) {
            throw LogbookError.typeMismatch(
                entity: binding.entity.name, attribute: attributes[field].name,
                expected: attributes[field].declaredType,
                found:
                    "a value that does not convert (its Codable conformance writes other fields than it reads, or it has no such raw value)"
            )
        }
        var missing: Int? = nil
        writer.bytes.removeAll(keepingCapacity: true)
        binding.codec.encode(objectVersion: version, into: &writer) { i, w in
            if binding.encodeValue(object, i, &w) { return true }
            if !attributes[i].isOptional && missing == nil { missing = i }
            return false
        }
        if let missing {
            throw LogbookError.missingValue(
                entity: binding.entity.name, attribute: attributes[missing].name,
                object: PersistentIdentifier(entityName: binding.entity.name, primaryKey: pk)
                    .description)
        }
    }
}
