/// Partial objects (``FetchDescriptor/propertiesToFetch``): decoding only some attributes, and
/// the flags that send the others' first read to a fault.
extension EntityBinding {
    /// Bits of the entity's attributes (not its to-one keys), as in ``ObjectEntry/changedSlots``.
    var attributeBits: UInt64 {
        (0..<entity.attributes.count).reduce(0) { $0 | fieldBit($1) }
    }

    /// Decodes the stored fields in `fields` (bit i: field i, bit 63: every field from 63 on)
    /// into the object, skipping the others' bytes.
    /// - Returns: the record's object version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` naming `primaryKey`.
    func load(
        _ buffer: UnsafeRawBufferPointer, into object: AnyObject, primaryKey: UInt64,
        only fields: UInt64
    ) throws -> UInt64 {
        let types = stored.attributes
        if let version = try codec.decodeCurrent(
            buffer, primaryKey: primaryKey,
            field: { i, r in
                if fields & fieldBit(i) != 0 {
                    try decodeValue(object, i, &r)
                } else {
                    try r.skip(types[i].type)
                }
            },
            null: { i in if fields & fieldBit(i) != 0 { write(object, i, .null) } })
        {
            return version
        }
        return try codec.decode(buffer, key: String(primaryKey)) { i, v in
            if fields & fieldBit(i) != 0 { write(object, i, v) }
        }
    }

    /// Flags the attributes in `fields` of a registered class object as not fetched.
    func markUnfetched(_ object: AnyObject, _ fields: UInt64) {
        guard layout != nil else { return }
        let base = base(object)
        for field in adoptions where field.slot == nil && fields & fieldBit(field.position) != 0 {
            base.advanced(by: field.info).assumingMemoryBound(to: UInt32.self).pointee |=
                FieldInfo.unfetched
        }
    }

    /// The attributes of the object flagged as not fetched.
    func unfetchedFields(of object: AnyObject) -> UInt64 {
        guard layout != nil else { return 0 }
        let base = base(object)
        var fields: UInt64 = 0
        for field in adoptions where field.slot == nil {
            let info = base.advanced(by: field.info).load(as: UInt32.self)
            if info & FieldInfo.unfetched != 0 { fields |= fieldBit(field.position) }
        }
        return fields
    }

    /// Clears every not-fetched flag of the object.
    func markFetched(_ object: AnyObject) {
        guard layout != nil else { return }
        let base = base(object)
        for field in adoptions where field.slot == nil {
            base.advanced(by: field.info).assumingMemoryBound(to: UInt32.self).pointee &=
                ~FieldInfo.unfetched
        }
    }
}
