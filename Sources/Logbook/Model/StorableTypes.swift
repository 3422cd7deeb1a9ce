import Foundation

/// Finds, once per Swift type, how its values are stored (``StorableType``), and refuses a type
/// that cannot be stored with the reason.
///
/// What can be stored: an ``AttributeStorable`` type (the built-in ones, or one the app
/// conforms); an `Optional`, `Array` or `Set` of a storable type; an enum or other
/// `RawRepresentable` whose raw value is a built-in type; a `Codable` value type whose
/// `init(from:)` reads named fields of storable types (stored as structured fields), or one
/// single value (stored as that value). Thread-safe: the cache is behind a lock, and learning
/// a type runs outside it.
enum StorableTypes {
    private static let cache = Locked<[ObjectIdentifier: StorableType]>([:])

    /// Why a type cannot be stored.
    struct Refusal: Error {
        let reason: String
    }

    /// How values of `type` are stored; `template`, a value of the type if the caller has one,
    /// helps learn a composite's fields.
    /// - Throws: ``Refusal`` saying why the type cannot be stored.
    static func shape(of type: Any.Type, template: Any? = nil) throws -> StorableType {
        try shape(of: type, template: template, learning: [])
    }

    /// How values of `type` are stored, or `nil` if they cannot be.
    static func known(_ type: Any.Type, template: Any? = nil) -> StorableType? {
        try? shape(of: type, template: template)
    }

    static func shape(of type: Any.Type, template: Any?, learning: [ObjectIdentifier]) throws
        -> StorableType
    {
        let key = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[key] }) { return known }
        guard !learning.contains(key) else {
            throw Refusal(reason: "\(type) contains itself, which structured fields cannot hold")
        }
        let made = try learn(type, template: template, learning: learning + [key])
        return cache.withLock { cache in
            if let known = cache[key] { return known }
            cache[key] = made
            return made
        }
    }

    /// `Optional<type>`.
    static func optionalType(of type: Any.Type) -> Any.Type {
        func optional<T>(_: T.Type) -> Any.Type { T?.self }
        return _openExistential(type, do: optional)
    }

    /// The cases of a `CaseIterable` type, in order; `nil` for another type.
    static func cases(of type: Any.Type) -> [Any]? {
        func all<T: CaseIterable>(_ t: T.Type) -> [Any] { t.allCases.map { $0 } }
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        return all(iterable)
    }

    private static func learn(_ type: Any.Type, template: Any?, learning: [ObjectIdentifier])
        throws -> StorableType
    {
        if let optional = type as? any OptionalMarker.Type {
            let wrapped = try shape(
                of: optional.wrappedType, template: template.flatMap(optional.unwrap),
                learning: learning)
            guard !wrapped.isOptional else {
                throw Refusal(reason: "an optional of an optional cannot be stored")
            }
            var description = wrapped.description
            description.isOptional = true
            return StorableType(
                type, kind: .optional(wrapped), description: description,
                placeholder: optional.nilValue,
                toValue: { value in
                    guard let inner = optional.unwrap(value) else { return .null }
                    return wrapped.attributeValue(of: inner)
                },
                fromValue: { stored in
                    if stored.isNull { return optional.nilValue }
                    return wrapped.value(from: stored).flatMap(optional.wrap)
                })
        }
        if type is any PersistentModel.Type {
            throw Refusal(
                reason: "\(type) is a model class: declare it with @Relationship, not @Attribute")
        }
        if let storable = type as? any AttributeStorable.Type {
            return try scalar(storable)
        }
        if let array = type as? any CollectionMarker.Type {
            let element = try shape(of: array.elementType, template: nil, learning: learning)
            if case .composite(let layout) = element.unwrapped.kind, layout.single == nil,
                layout.fields.isEmpty
            {
                throw Refusal(reason: "its elements, \(element.swiftType), have no fields to store")
            }
            let isSet = array.isSet
            var elementDescription = element.description
            elementDescription.name = "element"
            let description = AttributeDescription(
                "element", isSet ? .set : .array, members: [elementDescription])
            return StorableType(
                type, kind: .collection(element, isSet: isSet), description: description,
                placeholder: array.empty,
                toValue: { value in
                    guard let items = array.elements(of: value) else { return nil }
                    var values: [AttributeValue] = []
                    values.reserveCapacity(items.count)
                    for item in items {
                        guard let v = element.attributeValue(of: item) else { return nil }
                        values.append(v)
                    }
                    return .array(isSet ? AttributeValue.canonicalSet(values) : values)
                },
                fromValue: { stored in
                    guard case .array(let values) = stored else { return nil }
                    var items: [Any] = []
                    items.reserveCapacity(values.count)
                    for v in values {
                        guard let item = element.value(from: v) else { return nil }
                        items.append(item)
                    }
                    return array.make(items)
                })
        }
        if type is any DictionaryMarker.Type {
            throw Refusal(
                reason:
                    "a dictionary has no fixed fields; store an array of a Codable struct (key and value), or a Codable struct"
            )
        }
        if let raw = type as? any RawRepresentable.Type {
            return try rawRepresentable(raw, learning: learning)
        }
        if type is AnyClass {
            throw Refusal(
                reason:
                    "\(type) is a class; attributes hold values: make it a struct, or a model with a @Relationship"
            )
        }
        if let codable = type as? any Codable.Type {
            return try composite(codable, template: template, learning: learning)
        }
        throw Refusal(
            reason:
                "\(type) is not a type Logbook stores: use a built-in type, an enum with a String or integer raw value, a Codable struct, or an array, set or optional of one"
        )
    }

    private static func scalar<T: AttributeStorable>(_ type: T.Type) throws -> StorableType {
        let stored = T.attributeType
        guard stored != .array && stored != .set && stored != .composite else {
            throw Refusal(
                reason:
                    "\(type) conforms to AttributeStorable with the type \(stored), which needs members; let Logbook store it (remove the conformance)"
            )
        }
        return StorableType(
            type, kind: .scalar,
            description: AttributeDescription("element", stored, optional: T.isOptionalAttribute),
            placeholder: T(attributeValue: placeholderValue(stored)),
            toValue: { ($0 as? T)?.attributeValue },
            fromValue: { T(attributeValue: $0) })
    }

    /// A value of each scalar type (zero, empty, the epoch).
    static func placeholderValue(_ type: AttributeType) -> AttributeValue {
        switch type {
        case .string: return .string("")
        case .url: return .string("about:blank")
        case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32: return .integer(0)
        case .uint64: return .unsigned(0)
        case .double: return .double(0)
        case .float: return .float(0)
        case .decimal: return .decimal(0)
        case .bool: return .bool(false)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .data: return .data(Data())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .array, .set: return .array([])
        case .composite: return .composite(.present)
        }
    }

    private static func rawRepresentable<T: RawRepresentable>(
        _ type: T.Type, learning: [ObjectIdentifier]
    ) throws -> StorableType {
        let raw = try shape(of: T.RawValue.self, template: nil, learning: learning)
        guard case .scalar = raw.kind else {
            throw Refusal(
                reason:
                    "\(type) is stored as its raw value, a \(T.RawValue.self), which is not a built-in type"
            )
        }
        var description = raw.description
        description.typeName = String(describing: type)
        // Every case that reads back through its raw value.
        let cases = (cases(of: type) as? [T] ?? noPayloadCases(type))?.filter {
            T(rawValue: $0.rawValue).flatMap { raw.attributeValue(of: $0.rawValue) }
                == raw.attributeValue(of: $0.rawValue)
        }
        let placeholder: Any? =
            cases?.first ?? (raw.placeholder as? T.RawValue).flatMap { T(rawValue: $0) }
        let raws = cases?.compactMap { raw.attributeValue(of: $0.rawValue) }
        let layout = cases.flatMap { cases in
            raws.flatMap { EnumLayout.make(type, cases: cases, raws: $0) }
        }
        return StorableType(
            type, kind: .raw(raw), description: description, placeholder: placeholder,
            cases: cases, enumLayout: layout,
            toValue: { value in (value as? T).flatMap { raw.attributeValue(of: $0.rawValue) } },
            fromValue: { stored in
                (raw.value(from: stored) as? T.RawValue).flatMap { T(rawValue: $0) }
            })
    }

    /// The cases of an enum without payloads, in declaration order, read from its type
    /// metadata (the Swift ABI's: an enum's metadata kind 0x201; its descriptor, of kind 18,
    /// counts payload cases and empty cases; a case without payload is its index in the
    /// enum's one or two bytes); `nil` for any other type or layout.
    static func noPayloadCases<T>(_ type: T.Type) -> [T]? {
        let metadata = unsafeBitCast(type as Any.Type, to: UnsafeRawPointer.self)
        guard metadata.load(as: UInt.self) == 0x201 else { return nil }
        let descriptor = metadata.load(
            fromByteOffset: MemoryLayout<UInt>.size, as: UnsafeRawPointer.self)
        guard descriptor.load(as: UInt32.self) & 0x1F == 18,
            descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF == 0
        else { return nil }
        let count = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
        let size = MemoryLayout<T>.size
        guard
            (count == 1 && size == 0) || (count > 1 && count <= 256 && size == 1)
                || (count > 256 && count <= 65536 && size == 2)
        else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: max(size, 1), alignment: MemoryLayout<T>.alignment)
        defer { buffer.deallocate() }
        var result: [T] = []
        for k in 0..<count {
            if size == 1 { buffer.storeBytes(of: UInt8(k), as: UInt8.self) }
            if size == 2 { buffer.storeBytes(of: UInt16(k), as: UInt16.self) }
            result.append(buffer.load(as: T.self))
        }
        return result
    }

    private static func composite(
        _ type: any Codable.Type, template: Any?, learning: [ObjectIdentifier]
    ) throws -> StorableType {
        let name = String(describing: type)
        // A known instance's parts are handed back while the fields are learned, so its
        // `init(from:)` sees real values where it has them.
        let recorder = TemplateEncoder()
        if let known = template as? any Encodable { try? known.encode(to: recorder) }
        let discovery = FieldDiscovery(template: recorder.fields, singleTemplate: recorder.single)
        discovery.learning = learning
        let instance: Any
        do {
            instance = try type.init(from: FieldDiscoveryDecoder(discovery: discovery))
        } catch {
            if let inner = error as? Refusal { throw inner }
            throw Refusal(
                reason:
                    "\(name)'s init(from:) failed while Logbook learned its fields: \(discovery.refusal ?? String(describing: error))"
            )
        }
        if let refusal = discovery.refusal { throw Refusal(reason: "\(name): \(refusal)") }
        let layout: StorableType.CompositeLayout
        var description: AttributeDescription
        if let single = discovery.singleValue {
            let inner = try shape(of: single, template: nil, learning: learning)
            guard !inner.isOptional else {
                throw Refusal(reason: "\(name) encodes itself as an optional value")
            }
            layout = StorableType.CompositeLayout(fields: [], single: inner)
            description = inner.description
            description.typeName = name
        } else {
            var fields: [(key: String, type: StorableType, optional: Bool)] = []
            for field in discovery.fields {
                guard field.type != Never.self else {
                    throw Refusal(reason: "\(name) checks \(field.key) for nil but never reads it")
                }
                let fieldType = try shape(
                    of: field.type, template: recorder.fields[field.key], learning: learning)
                fields.append(
                    (field.key, fieldType.unwrapped, field.optional || fieldType.isOptional))
            }
            guard !fields.isEmpty else {
                throw Refusal(reason: "\(name) has no fields to store")
            }
            for field in fields where field.key.contains(".") || field.key.isEmpty {
                throw Refusal(
                    reason: "\(name)'s coding key \"\(field.key)\" is empty or holds a dot")
            }
            layout = StorableType.CompositeLayout(fields: fields, single: nil)
            description = AttributeDescription(
                "element", .composite, typeName: name,
                members: fields.map { field in
                    var member = field.type.description
                    member.name = field.key
                    member.isOptional = field.optional
                    return member
                })
        }
        return StorableType(
            type, kind: .composite(layout), description: description, placeholder: instance,
            toValue: { value in
                guard let encodable = value as? any Encodable else { return nil }
                let encoder = CompositeEncoder(layout: layout)
                guard (try? encodable.encode(to: encoder)) != nil, encoder.failure == nil else {
                    return nil
                }
                if layout.single != nil { return encoder.single }
                for (field, v) in zip(layout.fields, encoder.values)
                where v.isNull && !field.optional {
                    return nil
                }
                return .composite(
                    CompositeValue(fields: layout.fields.map(\.key), values: encoder.values))
            },
            fromValue: { stored in
                let values: [AttributeValue]
                if layout.single != nil {
                    values = [stored]
                } else {
                    guard case .composite(let composite) = stored,
                        composite.values.count == layout.fields.count
                    else { return nil }
                    values = composite.values
                }
                return try? type.init(from: CompositeDecoder(layout: layout, values: values))
            })
    }
}

// MARK: - Generic types, seen from `Any.Type`

/// `Optional`, for code that holds its type as `Any.Type`.
protocol OptionalMarker {
    static var wrappedType: Any.Type { get }
    /// `nil` of this optional type.
    static var nilValue: Any { get }
    /// The wrapped value of `value` (an optional of this type), or `nil`.
    static func unwrap(_ value: Any) -> Any?
    /// `value` (of the wrapped type) as a value of this optional type.
    static func wrap(_ value: Any) -> Any?
    /// Whether the value of this optional type at `pointer` is `nil`.
    static func isNil(_ pointer: UnsafeRawPointer) -> Bool
}

extension Optional: OptionalMarker {
    static var wrappedType: Any.Type { Wrapped.self }
    static var nilValue: Any { Optional<Wrapped>.none as Any }
    static func unwrap(_ value: Any) -> Any? {
        guard let optional = value as? Wrapped? else { return nil }
        return optional.map { $0 as Any }
    }
    static func wrap(_ value: Any) -> Any? {
        guard let wrapped = value as? Wrapped else { return nil }
        return Wrapped?.some(wrapped) as Any
    }
    static func isNil(_ pointer: UnsafeRawPointer) -> Bool {
        pointer.assumingMemoryBound(to: Wrapped?.self).pointee == nil
    }
}

/// `Array` and `Set`, for code that holds their type as `Any.Type`.
protocol CollectionMarker {
    static var elementType: Any.Type { get }
    static var isSet: Bool { get }
    static var empty: Any { get }
    /// The elements of `value` (a collection of this type), or `nil`.
    static func elements(of value: Any) -> [Any]?
    /// A collection of this type holding `items` (each of the element type), or `nil`.
    static func make(_ items: [Any]) -> Any?
    /// `\.count` and `\.isEmpty` of this type.
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: CollectionMarker {
    static var elementType: Any.Type { Element.self }
    static var isSet: Bool { false }
    static var empty: Any { [Element]() }
    static func elements(of value: Any) -> [Any]? { (value as? [Element])?.map { $0 } }
    static func make(_ items: [Any]) -> Any? {
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let element = item as? Element else { return nil }
            result.append(element)
        }
        return result
    }
    static var countKeyPath: AnyKeyPath { \[Element].count }
    static var isEmptyKeyPath: AnyKeyPath { \[Element].isEmpty }
}

extension Set: CollectionMarker {
    static var elementType: Any.Type { Element.self }
    static var isSet: Bool { true }
    static var empty: Any { Set<Element>() }
    static func elements(of value: Any) -> [Any]? { (value as? Set<Element>)?.map { $0 } }
    static func make(_ items: [Any]) -> Any? {
        var result = Set<Element>()
        for item in items {
            guard let element = item as? Element else { return nil }
            result.insert(element)
        }
        return result
    }
    static var countKeyPath: AnyKeyPath { \Set<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \Set<Element>.isEmpty }
}

/// `Dictionary`, refused with its own reason.
protocol DictionaryMarker {}
extension Dictionary: DictionaryMarker {}

extension StorableTypes {
    /// A Swift value as it is stored (an enum as its raw value, a composite as its fields…), or
    /// `nil` if its type cannot be stored.
    static func attributeValue(of value: Any) -> AttributeValue? {
        if let storable = value as? any AttributeStorable { return storable.attributeValue }
        return known(type(of: value), template: value)?.attributeValue(of: value)
    }

    private static let fieldKeys = Locked<[FieldKeyCacheKey: String?]>([:])

    fileprivate struct FieldKeyCacheKey: Hashable, @unchecked Sendable {  // key paths are immutable
        let type: ObjectIdentifier
        let keyPath: AnyKeyPath
    }

    /// The field key of the composite `type` that `keyPath` reads, found once and kept.
    static func fieldKey(of type: StorableType, reachedBy keyPath: AnyKeyPath) -> String? {
        let key = FieldKeyCacheKey(type: ObjectIdentifier(type.swiftType), keyPath: keyPath)
        if let known = fieldKeys.withLock({ $0[key] }) { return known }
        let found = type.probeFieldKey(keyPath)
        fieldKeys.withLock { $0[key] = found }
        return found
    }
}

extension StorableType {
    /// The key of the field a key path rooted at this composite type reads exactly
    /// (`\Address.city` → `city`), or `nil`.
    func fieldKey(reachedBy keyPath: AnyKeyPath) -> String? {
        StorableTypes.fieldKey(of: self, reachedBy: keyPath)
    }

    /// Applies `keyPath` to values whose fields differ from each other: a field reads exactly
    /// when the result follows it, twice over.
    fileprivate func probeFieldKey(_ keyPath: AnyKeyPath) -> String? {
        guard let layout = fieldLayout, case .composite(let a)? = sentinels?.0,
            case .composite(let b)? = sentinels?.1
        else { return nil }
        let valueType = Swift.type(of: keyPath).valueType
        for (j, field) in layout.fields.enumerated() {
            let fieldType =
                field.optional
                ? StorableTypes.known(StorableTypes.optionalType(of: field.type.swiftType))
                : field.type
            guard let fieldType, fieldType.swiftType == valueType else { continue }
            var reads = true
            for (whole, own) in [(a, b.values[j]), (b, a.values[j])] {
                var values = whole.values
                values[j] = own
                guard
                    let made = value(
                        from: .composite(CompositeValue(fields: whole.fields, values: values))),
                    let result = made[keyPath: keyPath],
                    fieldType.attributeValue(of: result) == own
                else {
                    reads = false
                    break
                }
            }
            if reads { return field.key }
        }
        return nil
    }
}
