import LogStore

/// How a stored field's value is held, for the encode and decode loops: the common types are
/// read and written in place; the rest go through their accessor.
enum FieldKind: UInt8 {
    case string, int64, int, double, bool
    /// Any other type (optionals, dates, data, UUIDs, enums, arrays…), through
    /// ``FieldAccessor``.
    case other
    /// The marker or a field of a composite attribute, through ``FieldAccessor``; a record's
    /// are decoded together (``EntityBinding``).
    case composite
    /// A to-one relationship, stored as the destination's primary key.
    case toOne
}

/// Reads and writes one ``Attribute`` or ``Relationship`` field of model objects of one class,
/// by its offset.
///
/// Invariant: `object` passed to any method is an instance of the class the accessor was made
/// for (callers check the class before using a layout).
protocol FieldAccessor: AnyObject, Sendable {
    var name: String { get }
    var type: AttributeType { get }
    var isOptional: Bool { get }
    var kind: FieldKind { get }
    /// Offsets in the object of the value and of the wrapper's `owner`, `entry` and `info`.
    var valueOffset: Int { get }
    var ownerOffset: Int { get }
    var entryOffset: Int { get }
    var infoOffset: Int { get }
    func read(_ object: AnyObject) -> AttributeValue
    /// Returns `false` (and writes nothing) if `value` has another type.
    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool
    /// Appends the value's encoding; `false` (nothing appended) for `nil`.
    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool
    /// Reads a non-null value of the field's type from `r` into the field.
    func decode(_ r: inout ByteReader, into object: AnyObject) throws
    /// The Swift type of the property (`String`, `Int64?`, …).
    var valueType: Any.Type { get }
    /// Whether `result` has exactly the property's type and equals the field's value in
    /// `object` (how ``KeyPathResolver`` tells a key path that is the property itself).
    func holds(_ result: Any, in object: AnyObject) -> Bool
    /// The attribute the field stores (name, type, optionality, type name, members; no
    /// default or options).
    var attribute: AttributeDescription { get }
    /// Whether the field owns its wrapper's bookkeeping (`entry`, `info`): false for the
    /// fields of a composite after its first (they share one property's wrapper).
    var adoptsWrapper: Bool { get }
    /// Two different values the field can hold, unlikely to be anyone's (how
    /// ``KeyPathResolver`` tells a key path that reads the field); `nil` if there are no two.
    var sentinels: (AttributeValue, AttributeValue)? { get }
}

extension FieldAccessor {
    var attribute: AttributeDescription { AttributeDescription(name, type, optional: isOptional) }
    var adoptsWrapper: Bool { true }
    var sentinels: (AttributeValue, AttributeValue)? { StorableType.scalarSentinels(type) }

    /// The `originalName` given at the declaration of the field of `object`, an unregistered
    /// instance (a prototype), or `nil`.
    func originalName(_ object: AnyObject) -> String? {
        OriginalNames.name(
            inSlotBitsOf: unsafeBitCast(object, to: UnsafeRawPointer.self).load(
                fromByteOffset: infoOffset, as: UInt32.self))
    }

    /// Options given at the declaration.
    func options(_ object: AnyObject) -> Set<AttributeOption> {
        FieldInfo.options(
            unsafeBitCast(object, to: UnsafeRawPointer.self).load(
                fromByteOffset: infoOffset, as: UInt32.self))
    }
}

/// A ``FieldAccessor`` for an `Attribute<Value>` at a fixed offset in the object.
///
/// The offsets of the wrapper's own fields are computed once, so access needs no metadata
/// of `Attribute<Value>` (which unspecialized generic code would look up on every call).
final class TypedFieldAccessor<Value: AttributeStorable>: FieldAccessor {
    let name: String
    let valueOffset: Int
    let ownerOffset: Int
    let entryOffset: Int
    let infoOffset: Int
    let kind: FieldKind
    var type: AttributeType { Value.attributeType }
    var isOptional: Bool { Value.isOptionalAttribute }

    /// `nil` if the wrapper's layout cannot be determined.
    init?(name: String, offset: Int) {
        typealias Wrapper = Attribute<Value>
        guard let value = MemoryLayout<Wrapper>.offset(of: \Wrapper.value),
            let owner = MemoryLayout<Wrapper>.offset(of: \Wrapper.owner),
            let entry = MemoryLayout<Wrapper>.offset(of: \Wrapper.entry),
            let info = MemoryLayout<Wrapper>.offset(of: \Wrapper.info)
        else { return nil }
        self.name = name
        valueOffset = offset + value
        ownerOffset = offset + owner
        entryOffset = offset + entry
        infoOffset = offset + info
        kind =
            Value.self == String.self
            ? .string
            : Value.self == Int64.self
                ? .int64
                : Value.self == Int.self
                    ? .int
                    : Value.self == Double.self ? .double : Value.self == Bool.self ? .bool : .other
    }

    @inline(__always)
    private func value(_ object: AnyObject) -> UnsafeMutablePointer<Value> {
        // A bit cast, not `Unmanaged<AnyObject>`: a class reference is the object's address.
        unsafeBitCast(object, to: UnsafeMutableRawPointer.self).advanced(by: valueOffset)
            .assumingMemoryBound(to: Value.self)
    }

    func read(_ object: AnyObject) -> AttributeValue { value(object).pointee.attributeValue }

    func write(_ object: AnyObject, _ newValue: AttributeValue) -> Bool {
        guard let v = Value(attributeValue: newValue) else { return false }
        value(object).pointee = v
        return true
    }

    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        let v = read(object)
        if v.isNull { return false }
        w.value(v, as: Value.attributeType)
        return true
    }

    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        guard let v = Value(attributeValue: try r.value(Value.attributeType)) else {
            throw ByteReader.Truncated()
        }
        value(object).pointee = v
    }

    var valueType: Any.Type { Value.self }

    func holds(_ result: Any, in object: AnyObject) -> Bool {
        guard let v = result as? Value else { return false }
        return v.attributeValue == read(object)
    }
}
