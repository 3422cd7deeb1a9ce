/// Encodes and decodes the records of one entity (FORMAT.md Part 2, "Object records").
///
/// A record is `schemaVersion: varint, objectVersion: varint, nulls: bitmap, values…`: the
/// values of the attributes in schema order, `null` optionals omitted and flagged in the
/// bitmap. Records written under an older schema version decode through that version's layout,
/// with attributes added since taking their defaults. Immutable, `Sendable`; a class so that
/// per-record calls do not copy its tables.
final class RecordCodec: Sendable {
    /// One schema version's layout of the entity.
    struct Layout: Sendable, Equatable {
        var types: [AttributeType]
        /// Each stored attribute's whole type (an array's element, …).
        var shapes: [ValueShape]
        /// For each stored attribute, its position among the optional ones, or -1.
        var optionalSlot: [Int]
        var bitmapBytes: Int
        /// For each stored attribute, its position in the current layout (or -1: dropped).
        var currentIndex: [Int]
        /// For each stored attribute, the current type its values are widened to (an `Int32`
        /// become an `Int64`, an `Int` a `Double`), or `nil` when the type is the same.
        var widenedTo: [AttributeType?]
        var widens: Bool
        /// For each current field, what a null of it in this version's records reads as: the
        /// default of the first later version (up to the current one) that made it required,
        /// `nil` when none did. Not compared; see `substitutesNulls`.
        var nullReadsAs: [AttributeValue?] = []
        /// Whether some optional stored field of this version became required since: its
        /// records then never read as current ones do, whatever their layout.
        var substitutesNulls = false

        /// The schema version it is the layout of (not compared: versions can share a layout).
        var version: UInt32 = 0

        static func == (a: Layout, b: Layout) -> Bool {
            a.types == b.types && a.shapes == b.shapes && a.optionalSlot == b.optionalSlot
                && a.bitmapBytes == b.bitmapBytes && a.currentIndex == b.currentIndex
                && a.widenedTo == b.widenedTo
        }

        /// The layout of `entity`, a version whose field names `currentName` maps to the
        /// current version's.
        init(_ entity: Entity, current: Entity, currentName: (String) -> String? = { $0 }) {
            types = entity.attributes.map(\.type)
            shapes = entity.attributes.map(ValueShape.init)
            var slots: [Int] = []
            var next = 0
            for attribute in entity.attributes {
                slots.append(attribute.isOptional ? next : -1)
                if attribute.isOptional { next += 1 }
            }
            optionalSlot = slots
            bitmapBytes = (next + 7) / 8
            currentIndex = entity.attributes.map {
                currentName($0.name).flatMap { current.attributeIndex($0) } ?? -1
            }
            widenedTo = zip(entity.attributes, currentIndex).map { attribute, i in
                i >= 0 && current.attributes[i].type != attribute.type
                    && attribute.members.isEmpty ? current.attributes[i].type : nil
            }
            widens = widenedTo.contains { $0 != nil }
        }
    }

    let entity: Entity
    let schemaVersion: UInt32
    /// The position of the first to-one relationship among the stored fields.
    private let relationshipStart: Int
    let layout: Layout
    private let older: [UInt32: Layout]
    /// Bit v set: records of schema version v (below 64) have the current layout, so the fast
    /// paths read them as they read current ones. Versions that changed only what records do
    /// not hold (an index, a unique constraint) keep the layout: records need no migration.
    private let currentLayoutVersions: UInt64
    /// For each current attribute, the value records of older versions lack it get.
    private let initialValues: [AttributeValue]
    /// For each older version, the value each current field its records lack reads as: the
    /// default the field had in the version that added it (widened since, if it was), so a
    /// default changed later does not change objects stored before the field existed.
    private let missingValues: [UInt32: [AttributeValue]]
    /// An older version whose stored fields are the current ones' first fields, in order (a
    /// version before attributes or to-ones were appended): its records decode in field order,
    /// as current ones do, without collecting their values first.
    final class Prefix: Sendable {
        let layout: Layout
        /// The value each current field its records lack reads as (see `missingValues`).
        let missing: [AttributeValue]
        /// Whether its fields have the current ones' shapes, so that
        /// ``decodePrefix(_:primaryKey:field:null:missing:)`` reads each value as a current
        /// record's value in the same position.
        let inPlace: Bool

        init(layout: Layout, missing: [AttributeValue], inPlace: Bool) {
            self.layout = layout
            self.missing = missing
            self.inPlace = inPlace
        }
    }
    /// `prefixes[v]`: version v's ``Prefix`` if it is one, for v below 64 (records of a prefix
    /// version from 64 up decode through ``decode(_:key:only:_:)``). Found per record by
    /// position: a hashed lookup of the version, and a copy of its layout's tables, cost more
    /// than decoding a small record (a third of `employees list` over older records in perf).
    let prefixes: [Prefix?]
    /// Older versions (below 64) whose records a scan locates as it locates current ones: their
    /// stored fields are the current ones' first fields, of the same shapes and optional slots,
    /// and every field they lack reads as `null`. Each with its field count and bitmap bytes.
    private let scanPrefixes: [(version: UInt32, fields: Int, bitmapBytes: Int)]

    /// A codec for the records of `described` (its attributes, then its to-one relationships
    /// as optional integers: ``Entity/storedFields``).
    init(entity described: Entity, schemaVersion: UInt32, history: SchemaHistory) {
        let entity = described.storedFields
        self.entity = entity
        relationshipStart = described.attributes.count
        self.schemaVersion = schemaVersion
        layout = Layout(entity, current: entity)
        var older: [UInt32: Layout] = [:]
        for (version, schema) in history.versions where version != schemaVersion {
            if let old = schema.entity(named: entity.name) {
                older[version] = Layout(old.storedFields, current: entity) {
                    history.name(of: $0, in: entity.name, from: version, to: schemaVersion)
                }
                older[version]?.version = version
            }
        }
        let initialValues = entity.attributes.map(\.initialValue)
        for version in older.keys {
            Self.settleNulls(
                of: &older[version]!, entity: entity, schemaVersion: schemaVersion,
                history: history, initialValues: initialValues)
        }
        self.older = older
        var same: UInt64 = schemaVersion < 64 ? 1 << UInt64(schemaVersion) : 0
        for (version, old) in older where version < 64 && old == layout && !old.substitutesNulls {
            same |= 1 << UInt64(version)
        }
        currentLayoutVersions = same
        self.initialValues = initialValues
        missingValues = older.mapValues { [entity] old in
            var values = initialValues
            var assigned = Set(old.currentIndex.filter { $0 >= 0 })
            for (version, schema) in history.versions.sorted(by: { $0.key < $1.key })
            where version > old.version && version <= schemaVersion {
                for added in schema.entity(named: entity.name)?.storedFields.attributes ?? [] {
                    guard
                        let name = history.name(
                            of: added.name, in: entity.name, from: version, to: schemaVersion),
                        let i = entity.attributeIndex(name), assigned.insert(i).inserted
                    else { continue }
                    let now = entity.attributes[i]
                    var value = added.initialValue
                    if !value.isNull && added.type != now.type {
                        value = value.converted(to: now.type) ?? initialValues[i]
                    }
                    values[i] = value.isNull && !now.isOptional ? initialValues[i] : value
                }
            }
            return values
        }
        var prefixes = [Prefix?](repeating: nil, count: 64)
        for (version, old) in older
        where version < 64 && !old.widens && !old.substitutesNulls
            && old.currentIndex == Array(0..<old.currentIndex.count)
        {
            let inPlace =
                old.types.count <= layout.types.count
                && old.shapes[...] == layout.shapes[..<old.types.count]
                && old.types[...] == layout.types[..<old.types.count]
            prefixes[Int(version)] = Prefix(
                layout: old, missing: missingValues[version] ?? initialValues, inPlace: inPlace)
        }
        self.prefixes = prefixes
        // Every older version has its missing values, so `prefix.missing` is this version's.
        scanPrefixes = prefixes.enumerated().compactMap { [layout] version, prefix in
            guard let prefix else { return nil }
            let old = prefix.layout
            let fields = old.types.count
            guard fields <= layout.types.count, old.bitmapBytes < 256,
                old.shapes[...] == layout.shapes[..<fields],
                old.optionalSlot[...] == layout.optionalSlot[..<fields],
                prefix.missing[fields...].allSatisfy(\.isNull)
            else { return nil }
            return (UInt32(version), fields, old.bitmapBytes)
        }
    }

    /// Fills `old.nullReadsAs`: for each field of `old` that a later version up to
    /// `schemaVersion` made required, that version's default (widened to the current type),
    /// or the current initial value when it has none.
    private static func settleNulls(
        of old: inout Layout, entity: Entity, schemaVersion: UInt32, history: SchemaHistory,
        initialValues: [AttributeValue]
    ) {
        var reads = [AttributeValue?](repeating: nil, count: entity.attributes.count)
        let present = Set(old.currentIndex.filter { $0 >= 0 })
        for (version, schema) in history.versions.sorted(by: { $0.key < $1.key })
        where version > old.version && version <= schemaVersion {
            for attribute in schema.entity(named: entity.name)?.storedFields.attributes ?? []
            where !attribute.isOptional {
                guard
                    let name = history.name(
                        of: attribute.name, in: entity.name, from: version, to: schemaVersion),
                    let i = entity.attributeIndex(name), present.contains(i), reads[i] == nil
                else { continue }
                var value = attribute.defaultValue ?? initialValues[i]
                if !value.isNull && attribute.type != entity.attributes[i].type {
                    value = value.converted(to: entity.attributes[i].type) ?? initialValues[i]
                }
                reads[i] = value.isNull ? initialValues[i] : value
            }
        }
        old.nullReadsAs = reads
        old.substitutesNulls = zip(old.currentIndex, old.optionalSlot).contains { i, slot in
            i >= 0 && slot >= 0 && reads[i] != nil
        }
    }

    /// Encodes a record: `value(i, &w)` appends attribute i's value and returns `true`, or
    /// appends nothing and returns `false` for `null`.
    /// Invariant: every value written is of its attribute's type (checked by the caller).
    @inline(__always)
    func encode(
        objectVersion: UInt64, into w: inout ByteWriter, value: (Int, inout ByteWriter) -> Bool
    ) {
        w.varint(UInt64(schemaVersion))
        w.varint(objectVersion)
        let bitmapStart = w.bytes.count
        if layout.bitmapBytes > 0 {
            w.bytes.append(contentsOf: repeatElement(0, count: layout.bitmapBytes))
        }
        for i in 0..<layout.types.count where !value(i, &w) {
            let slot = layout.optionalSlot[i]
            if slot >= 0 { w.bytes[bitmapStart + slot / 8] |= 1 << UInt8(slot % 8) }
        }
    }

    /// Fast path for records of the current schema version: calls `field(i, &reader)` with the
    /// reader at attribute i's value (which `field` must consume exactly) and `null(i)` for
    /// nulls. Returns `nil`, having called nothing, for a record of another version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
    @inline(__always)
    func decodeCurrent(
        _ buffer: UnsafeRawBufferPointer, primaryKey: UInt64,
        field: (Int, inout ByteReader) throws -> Void, null: (Int) -> Void
    ) throws -> UInt64? {
        var r = ByteReader(buffer)
        do {
            let version = try r.varint()
            guard hasCurrentLayout(version) else { return nil }
            let objectVersion = try r.varint()
            try Self.decodeFields(buffer, &r, layout, field: field, null: null)
            guard r.isAtEnd else { throw ByteReader.Truncated() }
            return objectVersion
        } catch is ByteReader.Truncated {
            throw corrupt(primaryKey)
        }
    }

    /// Reads the null bitmap and values of a record of `layout`, `r` just past the object
    /// version: `field(i, &r)` for each value, `null(i)` for each null.
    /// - Throws: ``ByteReader/Truncated`` if the bitmap does not fit.
    @inline(__always)
    private static func decodeFields(
        _ buffer: UnsafeRawBufferPointer, _ r: inout ByteReader, _ layout: Layout,
        field: (Int, inout ByteReader) throws -> Void, null: (Int) -> Void
    ) throws {
        let bitmapStart = r.offset
        guard buffer.count - bitmapStart >= layout.bitmapBytes else {
            throw ByteReader.Truncated()
        }
        r.offset += layout.bitmapBytes
        for i in 0..<layout.types.count {
            let slot = layout.optionalSlot[i]
            if slot >= 0 && buffer[bitmapStart + slot / 8] & (1 << UInt8(slot % 8)) != 0 {
                null(i)
            } else {
                try field(i, &r)
            }
        }
    }

    /// The error for a record of object `primaryKey` that ends early or holds an invalid value.
    @inline(never)
    func corrupt(_ primaryKey: UInt64) -> LogbookError {
        .corruptRecord(
            entity: entity.name, key: String(primaryKey),
            reason: "the record ends early or holds an invalid value")
    }

    /// The whole type of stored field `i` in the current layout.
    func shape(_ i: Int) -> ValueShape { layout.shapes[i] }

    /// Whether records of schema version `version` have the current layout.
    @inline(__always)
    func hasCurrentLayout(_ version: UInt64) -> Bool {
        version == UInt64(schemaVersion)
            || (version < 64 && currentLayoutVersions >> version & 1 != 0)
    }

    /// The current layout as raw buffers, for ``locate(_:_:count:layout:)`` in scan loops.
    /// The caller deallocates it.
    func makeScanLayout() -> ScanLayout {
        let skips = UnsafeMutableBufferPointer<ScanLayout.Skip>.allocate(
            capacity: max(layout.types.count, 1))
        _ = skips.initialize(
            from: layout.types.map { type -> ScanLayout.Skip in
                switch type {
                case .string, .data, .url, .decimal, .array, .set: .lengthPrefixed
                case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32, .uint64: .varint
                case .double, .date: .eight
                case .float: .four
                case .bool: .one
                case .uuid: .sixteen
                case .composite: .none
                }
            })
        let slots = UnsafeMutableBufferPointer<Int>.allocate(
            capacity: max(layout.optionalSlot.count, 1))
        _ = slots.initialize(from: layout.optionalSlot)
        let prefixes = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 64)
        prefixes.initialize(repeating: -1)
        var prefixVersions: UInt64 = 0
        for prefix in scanPrefixes {
            prefixes[Int(prefix.version)] = Int32(prefix.fields << 8 | prefix.bitmapBytes)
            prefixVersions |= 1 << UInt64(prefix.version)
        }
        return ScanLayout(
            schemaVersion: UInt64(schemaVersion), currentLayoutVersions: currentLayoutVersions,
            bitmapBytes: layout.bitmapBytes, skips: skips,
            optionalSlot: slots, prefixVersions: prefixVersions, prefixes: prefixes)
    }

    /// The current layout as raw buffers (no reference counting in scan loops).
    struct ScanLayout {
        /// How to step over a value of a field's type.
        enum Skip: UInt8 { case varint, lengthPrefixed, eight, four, one, sixteen, none }

        let schemaVersion: UInt64
        /// As ``RecordCodec/hasCurrentLayout(_:)``.
        let currentLayoutVersions: UInt64
        let bitmapBytes: Int

        @inline(__always)
        func hasCurrentLayout(_ version: UInt64) -> Bool {
            version == schemaVersion
                || (version < 64 && currentLayoutVersions >> version & 1 != 0)
        }
        let skips: UnsafeMutableBufferPointer<Skip>
        let optionalSlot: UnsafeMutableBufferPointer<Int>
        /// Bit v set: records of schema version v hold a prefix of the current fields (see
        /// ``RecordCodec/scanPrefixes``), described at `prefixes[v]`: fields << 8 | bitmap bytes.
        let prefixVersions: UInt64
        let prefixes: UnsafeMutableBufferPointer<Int32>

        func deallocate() {
            skips.deallocate()
            optionalSlot.deallocate()
            prefixes.deallocate()
        }
    }

    /// Steps `i` over the varint at `base + i` (bytes below `end`); `false` if they end first
    /// or the varint is over 10 bytes.
    @inline(__always)
    static func skipVarint(_ base: UnsafeRawPointer, _ i: inout Int, end: Int) -> Bool {
        let limit = min(end, i + 10)
        while i < limit {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            i += 1
            if byte < 0x80 { return true }
        }
        return false
    }

    /// Finds where each of the first `count` fields' values start in a record of the current
    /// schema version, or of a version whose fields are a prefix of the current ones (-1 for
    /// `null`, and for the fields such a record lacks), without decoding them. Returns `false`
    /// for a record of another version, or one that is damaged (which a full decode then
    /// reports).
    @inline(__always)
    static func locate(
        _ buffer: UnsafeRawBufferPointer, _ offsets: UnsafeMutableBufferPointer<Int>, count: Int,
        layout: ScanLayout
    ) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        let end = buffer.count
        var i = 0
        @inline(__always) func skipVarint() -> Bool { Self.skipVarint(base, &i, end: end) }
        // The schema version, usually one byte.
        guard i < end else { return false }
        let first = base.load(fromByteOffset: 0, as: UInt8.self)
        let version: UInt64
        if first < 0x80 {
            version = UInt64(first)
            i = 1
        } else {
            var r = ByteReader(buffer)
            guard let long = try? r.varint() else { return false }
            version = long
            i = r.offset
        }
        var bitmapBytes = layout.bitmapBytes
        var present = count
        if !layout.hasCurrentLayout(version) {
            guard version < 64, layout.prefixVersions >> version & 1 != 0 else { return false }
            let prefix = Int(layout.prefixes[Int(version)])
            bitmapBytes = prefix & 0xFF
            present = min(count, prefix >> 8)
        }
        guard skipVarint() else { return false }  // object version
        let bitmapStart = i
        i += bitmapBytes
        guard i <= end else { return false }
        for f in 0..<count {
            if f >= present {
                offsets[f] = -1
                continue
            }
            let slot = layout.optionalSlot[f]
            if slot >= 0
                && base.load(fromByteOffset: bitmapStart + slot >> 3, as: UInt8.self)
                    & (1 << UInt8(slot & 7)) != 0
            {
                offsets[f] = -1
                continue
            }
            offsets[f] = i
            switch layout.skips[f] {
            case .varint:
                guard skipVarint() else { return false }
            case .lengthPrefixed:
                guard i < end else { return false }
                let byte = base.load(fromByteOffset: i, as: UInt8.self)
                var length: Int
                if byte < 0x80 {
                    length = Int(byte)
                    i += 1
                } else {
                    var r = ByteReader(buffer)
                    r.offset = i
                    guard let long = try? r.varint(), long <= UInt64(end) else { return false }
                    length = Int(long)
                    i = r.offset
                }
                i += length
            case .eight: i += 8
            case .four: i += 4
            case .one: i += 1
            case .sixteen: i += 16
            case .none: break
            }
            guard i <= end else { return false }
        }
        return true
    }

    /// Reads only the object version of a record.
    static func objectVersion(of buffer: UnsafeRawBufferPointer) -> UInt64? {
        var r = ByteReader(buffer)
        guard (try? r.varint()) != nil else { return nil }
        return try? r.varint()
    }

    /// Decodes `buffer`, calling `body` with each current attribute's position and value
    /// (only those `needed` marks, when given; all for records of older schema versions).
    /// Attributes a record from an older schema lacks get their default.
    /// - Returns: the record's object version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` (with `key` as given).
    @inline(__always)
    func decode(
        _ buffer: UnsafeRawBufferPointer, key: @autoclosure () -> String,
        only needed: [Bool]? = nil,
        _ body: (Int, AttributeValue) throws -> Void
    ) throws -> UInt64 {
        var r = ByteReader(buffer)
        do {
            let version = try r.varint()
            let objectVersion = try r.varint()
            if hasCurrentLayout(version) {
                try decodeValues(&r, layout, needed, body)
            } else if version <= UInt64(UInt32.max), let old = older[UInt32(version)] {
                var seen = [Bool](repeating: false, count: initialValues.count)
                try decodeValues(&r, old, nil) { i, v in
                    seen[i] = true
                    // An attribute that became required since took a default where it was nil,
                    // and keeps it if it became optional again.
                    try body(i, v.isNull ? old.nullReadsAs[i] ?? v : v)
                }
                let missing = missingValues[UInt32(version)] ?? initialValues
                for (i, present) in seen.enumerated() where !present {
                    try body(i, missing[i])
                }
            } else {
                throw LogbookError.corruptRecord(
                    entity: entity.name, key: key(), reason: "unknown schema version \(version)")
            }
            guard r.isAtEnd else {
                throw LogbookError.corruptRecord(
                    entity: entity.name, key: key(),
                    reason: "\(buffer.count - r.offset) bytes after the values")
            }
            return objectVersion
        } catch is ByteReader.Truncated {
            throw LogbookError.corruptRecord(
                entity: entity.name, key: key(),
                reason: "the record ends early or holds an invalid value")
        }
    }

    /// Decodes a record of an older version whose fields are the current ones' first fields
    /// (see `prefixes`): calls `body` with every current field in order, the initial value
    /// for those the record lacks, as ``decode(_:key:only:_:)`` would. Returns `nil`, having
    /// called nothing, for a record of any other version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
    func decodeInFieldOrder(
        _ buffer: UnsafeRawBufferPointer, primaryKey: UInt64,
        _ body: (Int, AttributeValue) throws -> Void
    ) throws -> UInt64? {
        var r = ByteReader(buffer)
        do {
            let version = try r.varint()
            guard version < 64, let prefix = prefixes[Int(version)] else { return nil }
            let objectVersion = try r.varint()
            try decodeValues(&r, prefix.layout, nil, body)
            for i in prefix.layout.currentIndex.count..<initialValues.count {
                try body(i, prefix.missing[i])
            }
            guard r.isAtEnd else {
                throw LogbookError.corruptRecord(
                    entity: entity.name, key: String(primaryKey),
                    reason: "\(buffer.count - r.offset) bytes after the values")
            }
            return objectVersion
        } catch is ByteReader.Truncated {
            throw corrupt(primaryKey)
        }
    }

    /// Fast path for records of an older version whose fields are the current ones' first
    /// fields, of the same shapes (`Prefix.inPlace`): as
    /// ``decodeCurrent(_:primaryKey:field:null:)``, through that version's null bitmap, then
    /// `missing(i, value)` for each current field the record lacks, with the value
    /// ``decode(_:key:only:_:)`` gives it. Returns `nil`, having called nothing, for a record
    /// of any other version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, as `decode` words it.
    @inline(__always)
    func decodePrefix(
        _ buffer: UnsafeRawBufferPointer, primaryKey: UInt64,
        field: (Int, inout ByteReader) throws -> Void, null: (Int) -> Void,
        missing: (Int, AttributeValue) -> Void
    ) throws -> UInt64? {
        var r = ByteReader(buffer)
        do {
            let version = try r.varint()
            guard version < 64, let prefix = prefixes[Int(version)], prefix.inPlace else {
                return nil
            }
            let objectVersion = try r.varint()
            try Self.decodeFields(buffer, &r, prefix.layout, field: field, null: null)
            guard r.isAtEnd else {
                throw LogbookError.corruptRecord(
                    entity: entity.name, key: String(primaryKey),
                    reason: "\(buffer.count - r.offset) bytes after the values")
            }
            for i in prefix.layout.types.count..<initialValues.count {
                missing(i, prefix.missing[i])
            }
            return objectVersion
        } catch is ByteReader.Truncated {
            throw corrupt(primaryKey)
        }
    }

    /// Checks that `buffer` decodes, as ``decode(_:key:only:_:)`` and
    /// ``decodeCurrent(_:primaryKey:field:null:)`` would, without building its values. Returns
    /// whether it holds a to-one relationship that is not `null`.
    /// - Throws: what those throw for it (with `key` as given).
    func check(_ buffer: UnsafeRawBufferPointer, key: @autoclosure () -> String) throws -> Bool {
        var r = ByteReader(buffer)
        do {
            let version = try r.varint()
            _ = try r.varint()
            if version == UInt64(schemaVersion) {
                let references = try checkValues(&r, layout)
                // Where the two decoders word it differently, say what each would.
                guard r.isAtEnd else { throw ByteReader.Truncated() }
                return references
            }
            guard version <= UInt64(UInt32.max), let old = older[UInt32(version)] else {
                throw LogbookError.corruptRecord(
                    entity: entity.name, key: key(), reason: "unknown schema version \(version)")
            }
            let references = try checkValues(&r, old)
            guard r.isAtEnd else {
                throw LogbookError.corruptRecord(
                    entity: entity.name, key: key(),
                    reason: "\(buffer.count - r.offset) bytes after the values")
            }
            return references
        } catch is ByteReader.Truncated {
            throw LogbookError.corruptRecord(
                entity: entity.name, key: key(),
                reason: "the record ends early or holds an invalid value")
        }
    }

    /// Steps over the values of `layout`, checking each as ``ByteReader/value(_:)`` does;
    /// returns whether one of them is a to-one relationship that is not `null`.
    @inline(__always)
    private func checkValues(_ r: inout ByteReader, _ layout: Layout) throws -> Bool {
        let bitmapStart = r.offset
        guard r.buffer.count - bitmapStart >= layout.bitmapBytes else {
            throw ByteReader.Truncated()
        }
        r.offset += layout.bitmapBytes
        var references = false
        for i in 0..<layout.types.count {
            let slot = layout.optionalSlot[i]
            if slot >= 0 && r.buffer[bitmapStart + slot / 8] & (1 << UInt8(slot % 8)) != 0 {
                continue
            }
            if layout.currentIndex[i] >= relationshipStart { references = true }
            switch layout.types[i] {
            case .bool:
                guard try r.byte() <= 1 else { throw ByteReader.Truncated() }
            case .string, .integer, .double, .date, .data, .uuid, .composite:
                try r.skip(layout.types[i])
            default:
                // Types whose bytes can be invalid beyond their length: read them whole.
                _ = try r.value(layout.shapes[i])
            }
        }
        return references
    }

    @inline(__always)
    private func decodeValues(
        _ r: inout ByteReader, _ layout: Layout, _ needed: [Bool]?,
        _ body: (Int, AttributeValue) throws -> Void
    ) throws {
        let bitmapStart = r.offset
        guard r.buffer.count - bitmapStart >= layout.bitmapBytes else {
            throw ByteReader.Truncated()
        }
        r.offset += layout.bitmapBytes
        for i in 0..<layout.types.count {
            let slot = layout.optionalSlot[i]
            let target = layout.currentIndex[i]
            if slot >= 0 && r.buffer[bitmapStart + slot / 8] & (1 << UInt8(slot % 8)) != 0 {
                if target >= 0 { try body(target, .null) }
                continue
            }
            if target >= 0 && (needed?[target] ?? true) {
                let value = try r.value(layout.shapes[i])
                if layout.widens, let type = layout.widenedTo[i] {
                    try body(target, value.converted(to: type) ?? value)
                } else {
                    try body(target, value)
                }
            } else {
                try r.skip(layout.types[i])
            }
        }
    }
}
