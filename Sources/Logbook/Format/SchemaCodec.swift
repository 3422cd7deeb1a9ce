/// Encodes and decodes a ``Schema`` (FORMAT.md Part 2, "Schema records").
enum SchemaCodec {
    /// The encoding's own format number, first byte of every schema record: 1; 2 for a schema
    /// that declares compound indexes or a unique policy; 3 for one with an attribute of a type
    /// format 2 does not know, an enum or composite type name, or members, or a searchable
    /// attribute, or with a many-to-many relationship (its storing side is flagged 2), or with a
    /// superentity (a trailing section names each entity's). Each format is the lowest that
    /// holds the schema, so a schema without what a format added keeps its older bytes and
    /// fingerprint. 4 marks a schema version of a store whose schema history renamed, removed,
    /// widened or made required a field (``SchemaHistory/changesFields(through:)``): its layout
    /// is format 3's, and only a reader that decodes older records through those changes knows
    /// it, so an older Logbook refuses the store instead of misreading its older records.
    static let formatVersion: UInt8 = 4
    /// The format that marks a store whose older records decode through changed fields.
    static let changedFieldsFormat: UInt8 = 4
    /// The first format whose attribute flags have the searchable bit (bit 4).
    static let searchableFormat: UInt8 = 3

    /// The deepest nesting of members a reader accepts (`[[[Int]]]` is 3).
    static let maxDepth = 16

    /// `changedFields`: write format 4 (format 3's layout), whatever the schema needs.
    static func encode(_ schema: Schema, changedFields: Bool = false) -> [UInt8] {
        let searchable = schema.entities.contains { $0.attributes.contains(where: \.isSearchable) }
        let linked = schema.entities.contains {
            $0.relationships.contains(where: \.storesLinks) || $0.superentity != nil
        }
        let format: UInt8 =
            changedFields
            ? changedFieldsFormat
            : linked || searchable
                || schema.entities.contains { $0.attributes.contains(where: \.needsTypeDetail) }
                ? 3
                : schema.entities.contains { !$0.indexes.isEmpty || $0.uniquePolicy != .error }
                    ? 2 : 1
        var w = ByteWriter(capacity: 256)
        w.bytes.append(format)
        w.varint(UInt64(schema.version))
        w.varint(UInt64(schema.entities.count))
        for entity in schema.entities {
            w.string(entity.name)
            w.varint(UInt64(entity.attributes.count))
            for attribute in entity.attributes {
                w.string(attribute.name)
                w.bytes.append(attribute.type.rawValue)
                let hasDefault = attribute.defaultValue.map { !$0.isNull } ?? false
                var flags: UInt8 = 0
                if attribute.isOptional { flags |= 1 }
                if attribute.isIndexed { flags |= 2 }
                if attribute.isUnique { flags |= 4 }
                if hasDefault { flags |= 8 }
                if attribute.isSearchable { flags |= 16 }
                w.bytes.append(flags)
                if format >= 3 { encodeDetail(attribute, into: &w) }
                if hasDefault, let value = attribute.defaultValue {
                    w.value(value, as: ValueShape(attribute))
                }
            }
        }
        // Relationships: a trailing section, present only when some entity has any (or in
        // format 2), so schemas without relationships keep their bytes.
        if format >= 2 || schema.entities.contains(where: { !$0.relationships.isEmpty }) {
            for entity in schema.entities {
                w.varint(UInt64(entity.relationships.count))
                for relationship in entity.relationships {
                    w.string(relationship.name)
                    w.string(relationship.destination)
                    w.bytes.append(relationship.storesLinks ? 2 : relationship.isToMany ? 1 : 0)
                    w.string(relationship.inverse ?? "")
                    w.bytes.append(relationship.deleteRule.rawValue)
                }
            }
        }
        if format >= 2 {
            for entity in schema.entities {
                w.bytes.append(entity.uniquePolicy.rawValue)
                w.varint(UInt64(entity.indexes.count))
                for index in entity.indexes {
                    w.bytes.append(index.isUnique ? 1 : 0)
                    w.varint(UInt64(index.fields.count))
                    for field in index.fields { w.string(field) }
                }
            }
        }
        if format >= 3 {
            for entity in schema.entities { w.string(entity.superentity ?? "") }
        }
        return w.bytes
    }

    /// `newestFormat` is the newest format read (a test stands in for an older reader with it).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` naming `logbook.schema`.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, key: String, newestFormat: UInt8 = formatVersion
    ) throws -> Schema {
        func corrupt(_ reason: String) -> LogbookError {
            .corruptRecord(entity: Keyspaces.schema, key: key, reason: reason)
        }
        var r = ByteReader(bytes)
        do {
            let format = try r.byte()
            guard format >= 1 && format <= newestFormat else {
                throw corrupt(
                    "schema format \(format) is not supported (this library reads formats 1 to \(newestFormat))"
                )
            }
            let version = try r.varint()
            guard version <= UInt32.max else { throw corrupt("version \(version) out of range") }
            let entityCount = try r.varint()
            guard entityCount <= UInt64(bytes.count) else {
                throw corrupt("entity count \(entityCount) too large")
            }
            var entities: [Entity] = []
            for _ in 0..<entityCount {
                let name = try r.string()
                let attributeCount = try r.varint()
                guard attributeCount <= UInt64(bytes.count) else {
                    throw corrupt("attribute count \(attributeCount) too large")
                }
                var attributes: [AttributeDescription] = []
                for _ in 0..<attributeCount {
                    let attributeName = try r.string()
                    let rawType = try r.byte()
                    guard let type = AttributeType(rawValue: rawType) else {
                        throw corrupt(
                            "unknown attribute type \(rawType) for \(name).\(attributeName)")
                    }
                    guard format >= 3 || rawType <= AttributeType.uuid.rawValue else {
                        throw corrupt(
                            "attribute type \(rawType) of \(name).\(attributeName) needs format 3")
                    }
                    let flags = try r.byte()
                    let known: UInt8 = format >= searchableFormat ? 0x1F : 0x0F
                    guard flags & ~known == 0 else { throw corrupt("unknown flags \(flags)") }
                    var attribute = AttributeDescription(
                        attributeName, type, optional: flags & 1 != 0,
                        indexed: flags & 2 != 0, unique: flags & 4 != 0, searchable: flags & 16 != 0
                    )
                    if format >= 3 {
                        try decodeDetail(into: &attribute, &r, depth: 0, corrupt: corrupt)
                    }
                    if flags & 8 != 0 {
                        let value = try r.value(ValueShape(attribute))
                        guard attribute.holds(value) else {
                            throw corrupt(
                                "the default of \(name).\(attributeName) is not of its type")
                        }
                        attribute.defaultValue = value
                    }
                    attributes.append(attribute)
                }
                entities.append(Entity(name: name, attributes: attributes))
            }
            if format >= 2 || !r.isAtEnd {
                for e in entities.indices {
                    let count = try r.varint()
                    guard count <= UInt64(bytes.count) else {
                        throw corrupt("relationship count \(count) too large")
                    }
                    for _ in 0..<count {
                        let name = try r.string()
                        let destination = try r.string()
                        let flags = try r.byte()
                        guard flags <= (format >= 3 ? 2 : 1) else {
                            throw corrupt("unknown relationship flags \(flags)")
                        }
                        let inverse = try r.string()
                        let rawRule = try r.byte()
                        guard let rule = DeleteRule(rawValue: rawRule) else {
                            throw corrupt("unknown delete rule \(rawRule)")
                        }
                        entities[e].relationships.append(
                            RelationshipDescription(
                                name, destination: destination, toMany: flags != 0,
                                inverse: inverse.isEmpty ? nil : inverse, deleteRule: rule,
                                storesLinks: flags == 2))
                    }
                }
            }
            if format >= 2 {
                for e in entities.indices {
                    let rawPolicy = try r.byte()
                    guard let policy = UniquePolicy(rawValue: rawPolicy) else {
                        throw corrupt("unknown unique policy \(rawPolicy)")
                    }
                    entities[e].uniquePolicy = policy
                    let count = try r.varint()
                    guard count <= UInt64(bytes.count) else {
                        throw corrupt("index count \(count) too large")
                    }
                    for _ in 0..<count {
                        let unique = try r.byte()
                        guard unique <= 1 else { throw corrupt("unknown index flags \(unique)") }
                        let fieldCount = try r.varint()
                        guard fieldCount <= UInt64(bytes.count) else {
                            throw corrupt("index field count \(fieldCount) too large")
                        }
                        var fields: [String] = []
                        for _ in 0..<fieldCount { fields.append(try r.string()) }
                        entities[e].indexes.append(IndexDescription(fields, unique: unique == 1))
                    }
                }
            }
            if format >= 3 {
                for e in entities.indices {
                    let superentity = try r.string()
                    entities[e].superentity = superentity.isEmpty ? nil : superentity
                }
            }
            guard r.isAtEnd else {
                throw corrupt("\(bytes.count - r.offset) bytes after the schema")
            }
            return Schema(entities, version: UInt32(version))
        } catch is ByteReader.Truncated {
            throw corrupt("the record ends early")
        }
    }

    /// Format 3's detail of an attribute or member: its type name (empty: none), then its
    /// members, each `name: string, type: u8, flags: u8 (bit 0 optional), detail`.
    private static func encodeDetail(_ attribute: AttributeDescription, into w: inout ByteWriter) {
        w.string(attribute.typeName ?? "")
        w.varint(UInt64(attribute.members.count))
        for member in attribute.members {
            w.string(member.name)
            w.bytes.append(member.type.rawValue)
            w.bytes.append(member.isOptional ? 1 : 0)
            encodeDetail(member, into: &w)
        }
    }

    private static func decodeDetail(
        into attribute: inout AttributeDescription, _ r: inout ByteReader, depth: Int,
        corrupt: (String) -> LogbookError
    ) throws {
        guard depth < maxDepth else { throw corrupt("members nested over \(maxDepth) deep") }
        let typeName = try r.string()
        attribute.typeName = typeName.isEmpty ? nil : typeName
        let count = try r.varint()
        guard count <= UInt64(r.buffer.count - r.offset) else {
            throw corrupt("member count \(count) too large")
        }
        for _ in 0..<count {
            let name = try r.string()
            let rawType = try r.byte()
            guard let type = AttributeType(rawValue: rawType) else {
                throw corrupt("unknown type \(rawType) of the member \(name) of \(attribute.name)")
            }
            let flags = try r.byte()
            guard flags <= 1 else { throw corrupt("unknown member flags \(flags)") }
            var member = AttributeDescription(name, type, optional: flags == 1)
            try decodeDetail(into: &member, &r, depth: depth + 1, corrupt: corrupt)
            attribute.members.append(member)
        }
        let collection = attribute.type == .array || attribute.type == .set
        guard
            collection
                ? attribute.members.count == 1
                : attribute.type == .composite
                    || attribute.members.isEmpty
        else {
            throw corrupt(
                "\(attribute.name) has \(attribute.members.count) members for a \(attribute.type)")
        }
    }

    /// FNV-1a, 64 bits, over the encoding with version 0.
    static func fingerprint(of schema: Schema) -> UInt64 {
        var unversioned = schema
        unversioned.version = 0
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in encode(unversioned) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
