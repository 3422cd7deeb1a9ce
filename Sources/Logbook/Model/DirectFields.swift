import Foundation
@_spi(Reflection) import Swift

/// Fields read and written in place in a value's memory, by offset and type, without going
/// through `Codable` or boxing values: the fast path of enums and composites. Only built for a
/// layout proved to give the same values as the `Codable` path (``CompositeProperty_``).
enum DirectScalar {
    case string, int, int64, int32, int16, int8, uint64, uint32, uint16, uint8, double, float
    case bool, date, uuid, decimal, url, data
    case enumeration(EnumLayout)
    /// A nested composite that is not optional: its marker (always present).
    case marker

    /// The scalar for values of `type`, or `nil` for a type without a direct form.
    init?(_ type: StorableType) {
        switch type.kind {
        case .scalar:
            let t = type.swiftType
            if t == String.self {
                self = .string
            } else if t == Int.self {
                self = .int
            } else if t == Int64.self {
                self = .int64
            } else if t == Int32.self {
                self = .int32
            } else if t == Int16.self {
                self = .int16
            } else if t == Int8.self {
                self = .int8
            } else if t == UInt64.self {
                self = .uint64
            } else if t == UInt32.self {
                self = .uint32
            } else if t == UInt16.self {
                self = .uint16
            } else if t == UInt8.self {
                self = .uint8
            } else if t == Double.self {
                self = .double
            } else if t == Float.self {
                self = .float
            } else if t == Bool.self {
                self = .bool
            } else if t == Date.self {
                self = .date
            } else if t == UUID.self {
                self = .uuid
            } else if t == Decimal.self {
                self = .decimal
            } else if t == URL.self {
                self = .url
            } else if t == Data.self {
                self = .data
            } else {
                return nil
            }
        case .raw:
            guard let layout = type.enumLayout else { return nil }
            self = .enumeration(layout)
        default: return nil
        }
    }
}

/// One field of a value, at `offset` from the value's start.
struct DirectField {
    let scalar: DirectScalar
    let optional: Bool
    let offset: Int

    /// The field's stored value.
    @inline(__always)
    func read(_ base: UnsafeRawPointer) -> AttributeValue {
        let p = base + offset
        @inline(__always) func get<T>(_: T.Type, _ make: (T) -> AttributeValue) -> AttributeValue {
            if optional {
                return p.assumingMemoryBound(to: T?.self).pointee.map(make) ?? .null
            }
            return make(p.assumingMemoryBound(to: T.self).pointee)
        }
        switch scalar {
        case .string: return get(String.self) { .string($0) }
        case .int: return get(Int.self) { .integer(Int64($0)) }
        case .int64: return get(Int64.self) { .integer($0) }
        case .int32: return get(Int32.self) { .integer(Int64($0)) }
        case .int16: return get(Int16.self) { .integer(Int64($0)) }
        case .int8: return get(Int8.self) { .integer(Int64($0)) }
        case .uint64: return get(UInt64.self) { .unsigned($0) }
        case .uint32: return get(UInt32.self) { .integer(Int64($0)) }
        case .uint16: return get(UInt16.self) { .integer(Int64($0)) }
        case .uint8: return get(UInt8.self) { .integer(Int64($0)) }
        case .double: return get(Double.self) { .double($0) }
        case .float: return get(Float.self) { .float($0) }
        case .bool: return get(Bool.self) { .bool($0) }
        case .date: return get(Date.self) { .date($0) }
        case .uuid: return get(UUID.self) { .uuid($0) }
        case .decimal: return get(Decimal.self) { .decimal($0) }
        case .url: return get(URL.self) { .string($0.absoluteString) }
        case .data: return get(Data.self) { .data($0) }
        case .enumeration(let layout): return layout.read(p, optional: optional)
        case .marker: return .composite(.present)
        }
    }

    /// Writes a stored value of the field's type; `false`, writing nothing, for anything else
    /// (`null` for a required field).
    @inline(__always)
    func write(_ base: UnsafeMutableRawPointer, _ value: AttributeValue) -> Bool {
        let p = base + offset
        @inline(__always) func set<T>(_: T.Type, _ made: T?) -> Bool {
            if optional {
                if value.isNull {
                    p.assumingMemoryBound(to: T?.self).pointee = nil
                    return true
                }
                guard let made else { return false }
                p.assumingMemoryBound(to: T?.self).pointee = made
                return true
            }
            guard let made else { return false }
            p.assumingMemoryBound(to: T.self).pointee = made
            return true
        }
        switch (scalar, value) {
        case (.string, .string(let v)): return set(String.self, v)
        case (.int, .integer(let v)): return set(Int.self, Int(exactly: v))
        case (.int64, .integer(let v)): return set(Int64.self, v)
        case (.int32, .integer(let v)): return set(Int32.self, Int32(exactly: v))
        case (.int16, .integer(let v)): return set(Int16.self, Int16(exactly: v))
        case (.int8, .integer(let v)): return set(Int8.self, Int8(exactly: v))
        case (.uint64, .unsigned(let v)): return set(UInt64.self, v)
        case (.uint32, .integer(let v)): return set(UInt32.self, UInt32(exactly: v))
        case (.uint16, .integer(let v)): return set(UInt16.self, UInt16(exactly: v))
        case (.uint8, .integer(let v)): return set(UInt8.self, UInt8(exactly: v))
        case (.double, .double(let v)): return set(Double.self, v)
        case (.float, .float(let v)): return set(Float.self, v)
        case (.bool, .bool(let v)): return set(Bool.self, v)
        case (.date, .date(let v)): return set(Date.self, v)
        case (.uuid, .uuid(let v)): return set(UUID.self, v)
        case (.decimal, .decimal(let v)): return set(Decimal.self, v)
        case (.url, .string(let v)): return set(URL.self, URL(string: v))
        case (.data, .data(let v)): return set(Data.self, v)
        case (.enumeration(let layout), _): return layout.write(p, value, optional: optional)
        case (.marker, .composite): return true
        default:
            if value.isNull && optional { return writeNull(p) }
            return false
        }
    }

    /// Reads a non-null value of the field's type from a record into the field, without
    /// building an ``AttributeValue`` for the common types.
    /// - Throws: ``ByteReader/Truncated`` for bytes that are not a value of the type.
    @inline(__always)
    func decode(_ r: inout ByteReader, into base: UnsafeMutableRawPointer) throws {
        let p = base + offset
        switch scalar {
        case .string:
            let v = try r.string()
            if optional {
                p.assumingMemoryBound(to: String?.self).pointee = v
            } else {
                p.assumingMemoryBound(to: String.self).pointee = v
            }
        case .int64:
            let v = try r.zigzag()
            if optional {
                p.assumingMemoryBound(to: Int64?.self).pointee = v
            } else {
                p.assumingMemoryBound(to: Int64.self).pointee = v
            }
        case .int:
            guard let v = Int(exactly: try r.zigzag()) else { throw ByteReader.Truncated() }
            if optional {
                p.assumingMemoryBound(to: Int?.self).pointee = v
            } else {
                p.assumingMemoryBound(to: Int.self).pointee = v
            }
        case .double:
            let v = try r.double()
            if optional {
                p.assumingMemoryBound(to: Double?.self).pointee = v
            } else {
                p.assumingMemoryBound(to: Double.self).pointee = v
            }
        case .enumeration(let layout): try layout.decode(&r, into: p)
        case .marker: break
        default:
            let type: AttributeType
            switch scalar {
            case .int32: type = .int32
            case .int16: type = .int16
            case .int8: type = .int8
            case .uint64: type = .uint64
            case .uint32: type = .uint32
            case .uint16: type = .uint16
            case .uint8: type = .uint8
            case .float: type = .float
            case .bool: type = .bool
            case .date: type = .date
            case .uuid: type = .uuid
            case .decimal: type = .decimal
            case .url: type = .url
            default: type = .data
            }
            guard write(base, try r.value(type)) else { throw ByteReader.Truncated() }
        }
    }

    /// Writes `nil` into an optional field of any scalar.
    private func writeNull(_ p: UnsafeMutableRawPointer) -> Bool {
        switch scalar {
        case .string: p.assumingMemoryBound(to: String?.self).pointee = nil
        case .int: p.assumingMemoryBound(to: Int?.self).pointee = nil
        case .int64: p.assumingMemoryBound(to: Int64?.self).pointee = nil
        case .int32: p.assumingMemoryBound(to: Int32?.self).pointee = nil
        case .int16: p.assumingMemoryBound(to: Int16?.self).pointee = nil
        case .int8: p.assumingMemoryBound(to: Int8?.self).pointee = nil
        case .uint64: p.assumingMemoryBound(to: UInt64?.self).pointee = nil
        case .uint32: p.assumingMemoryBound(to: UInt32?.self).pointee = nil
        case .uint16: p.assumingMemoryBound(to: UInt16?.self).pointee = nil
        case .uint8: p.assumingMemoryBound(to: UInt8?.self).pointee = nil
        case .double: p.assumingMemoryBound(to: Double?.self).pointee = nil
        case .float: p.assumingMemoryBound(to: Float?.self).pointee = nil
        case .bool: p.assumingMemoryBound(to: Bool?.self).pointee = nil
        case .date: p.assumingMemoryBound(to: Date?.self).pointee = nil
        case .uuid: p.assumingMemoryBound(to: UUID?.self).pointee = nil
        case .decimal: p.assumingMemoryBound(to: Decimal?.self).pointee = nil
        case .url: p.assumingMemoryBound(to: URL?.self).pointee = nil
        case .data: p.assumingMemoryBound(to: Data?.self).pointee = nil
        case .enumeration(let layout): return layout.write(p, .null, optional: true)
        case .marker: return false
        }
        return true
    }

    /// The fields of the composite `type` (a struct) in ``StorableType/flatten(_:)`` order, at
    /// their offsets from the struct's start plus `base`, if every field is one the struct
    /// stores as a property of the same name and type, in the same order, of a type with a
    /// direct form (nested composites too, when they are not optional); `nil` otherwise.
    static func fields(of type: StorableType, base: Int = 0) -> [DirectField]? {
        // 0x200 is the kind of a struct's type metadata (its first word): a class or an enum
        // does not hold its fields at fixed offsets of the value.
        guard let layout = type.fieldLayout,
            unsafeBitCast(type.swiftType, to: UnsafeRawPointer.self).load(as: UInt.self) == 0x200
        else { return nil }
        var properties: [(name: String, offset: Int, type: Any.Type)] = []
        let complete = _forEachField(of: type.swiftType, options: []) {
            name, offset, fieldType, _ in
            properties.append((String(cString: name), offset, fieldType))
            return true
        }
        guard complete, properties.count == layout.fields.count else { return nil }
        var result: [DirectField] = []
        for (property, field) in zip(properties, layout.fields) {
            let declared =
                field.optional
                ? StorableTypes.optionalType(of: field.type.swiftType)
                : field.type.swiftType
            guard property.name == field.key, property.type == declared else { return nil }
            if field.type.fieldLayout != nil {
                guard !field.optional,
                    let nested = fields(of: field.type, base: base + property.offset)
                else { return nil }
                result.append(DirectField(scalar: .marker, optional: false, offset: base))
                result += nested
            } else {
                guard let scalar = DirectScalar(field.type) else { return nil }
                result.append(
                    DirectField(
                        scalar: scalar, optional: field.optional, offset: base + property.offset))
            }
        }
        return result
    }
}

/// An enum without payloads whose cases are the values 0 … count - 1 of its one or two bytes,
/// and whose `Optional`'s `nil` is the value `count` (checked when the layout is made): its
/// raw values by case, to read and write it in place.
struct EnumLayout: @unchecked Sendable {  // immutable
    let size: Int
    let rawValues: [AttributeValue]
    let index: [AttributeValue: Int]
    /// The String raw values' UTF-8, one after another (case `k`'s at
    /// `textStarts[k]..<textStarts[k + 1]`): one buffer, so matching a record's bytes against
    /// them retains no array per case.
    private let rawText: [UInt8]
    private let textStarts: [Int]
    /// Whether the raw values are Strings (else integers or another type).
    private let hasStringRaws: Bool
    private let rawIntegers: [Int64]

    /// The layout of `type`, whose cases are `cases` (in declaration order) with the raw values
    /// `raws`, if its memory is as described.
    static func make<T>(_ type: T.Type, cases: [T], raws: [AttributeValue]) -> EnumLayout? {
        let size = MemoryLayout<T>.size
        guard size == 1 || size == 2, MemoryLayout<T?>.size == size, cases.count == raws.count,
            !cases.isEmpty, Set(raws).count == raws.count
        else { return nil }
        func tag<V>(_ value: V) -> Int {
            withUnsafeBytes(of: value) { size == 1 ? Int($0[0]) : Int($0.load(as: UInt16.self)) }
        }
        for (k, c) in cases.enumerated() where tag(c) != k { return nil }
        guard tag(T?.none) == cases.count else { return nil }
        let texts: [[UInt8]] = raws.map {
            if case .string(let s) = $0 { Array(s.utf8) } else { [] }
        }
        var hasStringRaws = false
        if case .string = raws[0] { hasStringRaws = true }
        return EnumLayout(
            size: size, rawValues: raws,
            index: Dictionary(uniqueKeysWithValues: raws.enumerated().map { ($1, $0) }),
            rawText: Array(texts.joined()),
            textStarts: texts.reduce(into: [0]) { $0.append($0.last! + $1.count) },
            hasStringRaws: hasStringRaws,
            rawIntegers: raws.map { if case .integer(let i) = $0 { i } else { .min } })
    }

    /// Reads a raw value from a record and stores its case, matching the stored bytes against
    /// the cases' (no string or ``AttributeValue`` is made).
    /// - Throws: ``ByteReader/Truncated`` for a raw value no case has.
    @inline(__always)
    func decode(_ r: inout ByteReader, into p: UnsafeMutableRawPointer) throws {
        var tag = -1
        if hasStringRaws {
            let bytes = try r.lengthPrefixed()
            textStarts.withUnsafeBufferPointer { starts in
                rawText.withUnsafeBytes { text in
                    for k in 0..<starts.count - 1
                    where starts[k + 1] - starts[k] == bytes.count
                        && (bytes.isEmpty
                            || memcmp(
                                text.baseAddress! + starts[k], bytes.baseAddress!, bytes.count)
                                == 0)
                    {
                        tag = k
                        break
                    }
                }
            }
        } else if case .integer? = rawValues.first {
            let v = try r.zigzag()
            tag = rawIntegers.firstIndex(of: v) ?? -1
        } else {
            guard let first = rawValues.first, let type = first.type,
                let k = index[try r.value(type)]
            else { throw ByteReader.Truncated() }
            tag = k
        }
        guard tag >= 0 else { throw ByteReader.Truncated() }
        if size == 1 {
            p.storeBytes(of: UInt8(tag), as: UInt8.self)
        } else {
            p.storeBytes(of: UInt16(tag), as: UInt16.self)
        }
    }

    @inline(__always)
    func read(_ p: UnsafeRawPointer, optional: Bool) -> AttributeValue {
        let tag = size == 1 ? Int(p.load(as: UInt8.self)) : Int(p.loadUnaligned(as: UInt16.self))
        guard tag < rawValues.count else { return .null }
        return rawValues[tag]
    }

    @inline(__always)
    func write(_ p: UnsafeMutableRawPointer, _ value: AttributeValue, optional: Bool) -> Bool {
        let tag: Int
        if value.isNull {
            guard optional else { return false }
            tag = rawValues.count
        } else {
            guard let k = index[value] else { return false }
            tag = k
        }
        if size == 1 {
            p.storeBytes(of: UInt8(tag), as: UInt8.self)
        } else {
            p.storeBytes(of: UInt16(tag), as: UInt16.self)
        }
        return true
    }
}
