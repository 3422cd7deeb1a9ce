import Foundation

// The three coders behind composite attributes (`Codable` structs stored as structured fields):
// one that learns a type's fields from the calls its `init(from:)` makes, one that turns a
// value into its fields' values, one that builds a value from them. Each supports what
// synthesized `Codable` conformances use (a keyed container; a single value for a wrapper
// type) and refuses the rest with an error saying what it met.

/// Why a composite's coder gave up.
struct CompositeCodingError: Error, CustomStringConvertible {
    let description: String
}

// MARK: - Learning the fields

/// What ``FieldDiscoveryDecoder`` saw a type's `init(from:)` ask for.
final class FieldDiscovery {
    /// The fields asked for, in order: key, type, and whether `decodeIfPresent` (or `decodeNil`)
    /// asked for it.
    var fields: [(key: String, type: Any.Type, optional: Bool)] = []
    /// The type asked for a single value of this type (a wrapper) instead of fields.
    var singleValue: Any.Type?
    /// What it asked for that a composite cannot be.
    var refusal: String?
    /// The types being learned around this one (a type that contains itself is refused).
    var learning: [ObjectIdentifier] = []
    /// Values to hand back, by key (a known instance's encoding), before placeholders.
    let template: [String: Any]
    let singleTemplate: Any?

    init(template: [String: Any], singleTemplate: Any?) {
        self.template = template
        self.singleTemplate = singleTemplate
    }

    func note(_ key: String, _ type: Any.Type, optional: Bool) {
        if let i = fields.firstIndex(where: { $0.key == key }) {
            fields[i].optional = fields[i].optional || optional
            if fields[i].type == Never.self { fields[i].type = type }
        } else {
            fields.append((key, type, optional))
        }
    }

    func refuse(_ reason: String) -> CompositeCodingError {
        if refusal == nil { refusal = reason }
        return CompositeCodingError(description: reason)
    }

    /// A value of `type` to hand back: the template's, else a placeholder.
    func value<T>(_ type: T.Type, template: Any?) throws -> T {
        if let known = template as? T { return known }
        let storable = try StorableTypes.shape(of: type, template: nil, learning: learning)
        guard let placeholder = storable.placeholder as? T else {
            throw refuse(
                "\(type) has no value Logbook can make up while it learns the fields (make it CaseIterable, or give the attribute a non-nil default)"
            )
        }
        return placeholder
    }
}

/// A decoder that records the fields a type's `init(from:)` reads and hands back template
/// values or placeholders.
struct FieldDiscoveryDecoder: Decoder {
    let discovery: FieldDiscovery
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(DiscoveryKeyedContainer<Key>(discovery: discovery))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw discovery.refuse("it decodes itself as a list, not as named fields")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        DiscoverySingleContainer(discovery: discovery)
    }
}

private struct DiscoveryKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let discovery: FieldDiscovery
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] {
        discovery.refusal = discovery.refusal ?? "it reads whichever keys it finds (as a dictionary does), so it has no fixed fields"
        return []
    }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        discovery.note(key.stringValue, Never.self, optional: true)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        discovery.note(key.stringValue, type, optional: false)
        return try discovery.value(type, template: discovery.template[key.stringValue])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        discovery.note(key.stringValue, type, optional: true)
        return discovery.template[key.stringValue] as? T
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        throws -> KeyedDecodingContainer<NestedKey>
    {
        throw discovery.refuse(
            "it reads \(key.stringValue) as a nested container; make that part a Codable type of its own")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw discovery.refuse(
            "it reads \(key.stringValue) as a nested list; declare it an array of a storable type")
    }

    func superDecoder() throws -> any Decoder {
        throw discovery.refuse("it decodes a superclass")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw discovery.refuse("it decodes a superclass")
    }
}

private struct DiscoverySingleContainer: SingleValueDecodingContainer {
    let discovery: FieldDiscovery
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard discovery.singleValue == nil, discovery.fields.isEmpty else {
            throw discovery.refuse("it reads several single values")
        }
        discovery.singleValue = type
        return try discovery.value(type, template: discovery.singleTemplate)
    }
}

// MARK: - Recording a value's parts (templates)

/// An encoder that keeps what a value encodes, by key, as the Swift values themselves (or a
/// single value): the template ``FieldDiscovery`` hands back, so that learning a type's fields
/// from a known instance needs no placeholder.
final class TemplateEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var fields: [String: Any] = [:]
    var single: Any?

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(TemplateKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { IgnoredUnkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        TemplateSingleContainer(encoder: self)
    }
}

private struct TemplateKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: TemplateEncoder
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.fields[key.stringValue] = value
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(TemplateKeyedContainer<NestedKey>(encoder: TemplateEncoder()))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        IgnoredUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { TemplateEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { TemplateEncoder() }
}

private struct TemplateSingleContainer: SingleValueEncodingContainer {
    let encoder: TemplateEncoder
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws { encoder.single = value }
}

/// Takes whatever it is given and keeps nothing.
private struct IgnoredUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(TemplateKeyedContainer<NestedKey>(encoder: TemplateEncoder()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { TemplateEncoder() }
}

// MARK: - Values to fields

/// An encoder that turns a composite value into its fields' values (``CompositeValue``), each
/// converted by its field's ``StorableType``.
final class CompositeEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let layout: StorableType.CompositeLayout
    /// The fields' values, by field position; `null` for those not encoded (`encodeIfPresent`
    /// of `nil`).
    var values: [AttributeValue]
    /// The single value of a wrapper type.
    var single: AttributeValue?
    var failure: String?

    init(layout: StorableType.CompositeLayout) {
        self.layout = layout
        values = Array(repeating: .null, count: layout.fields.count)
    }

    func fail(_ reason: String) -> CompositeCodingError {
        if failure == nil { failure = reason }
        return CompositeCodingError(description: reason)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(CompositeKeyedEncoding<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        _ = fail("it encodes itself as a list")
        return IgnoredUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CompositeSingleEncoding(encoder: self)
    }
}

private struct CompositeKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CompositeEncoder
    var codingPath: [any CodingKey] { [] }

    func field(_ key: Key) throws -> Int {
        guard let i = encoder.layout.index[key.stringValue] else {
            throw encoder.fail("it encodes a field \(key.stringValue) it did not declare")
        }
        return i
    }

    mutating func encodeNil(forKey key: Key) throws {
        encoder.values[try field(key)] = .null
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let i = try field(key)
        guard let v = encoder.layout.fields[i].type.attributeValue(of: value) else {
            throw encoder.fail("its field \(key.stringValue) holds a value of another type")
        }
        encoder.values[i] = v
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        _ = encoder.fail("it encodes \(key.stringValue) as a nested container")
        return KeyedEncodingContainer(TemplateKeyedContainer<NestedKey>(encoder: TemplateEncoder()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        _ = encoder.fail("it encodes \(key.stringValue) as a nested list")
        return IgnoredUnkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        _ = encoder.fail("it encodes a superclass")
        return TemplateEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _ = encoder.fail("it encodes a superclass")
        return TemplateEncoder()
    }
}

private struct CompositeSingleEncoding: SingleValueEncodingContainer {
    let encoder: CompositeEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { encoder.single = .null }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard let inner = encoder.layout.single,
            let v = inner.attributeValue(of: value)
        else { throw encoder.fail("it encodes a single value of another type") }
        encoder.single = v
    }
}

// MARK: - Fields to values

/// A decoder that builds a composite value from its fields' values, each made by its field's
/// ``StorableType``.
struct CompositeDecoder: Decoder {
    let layout: StorableType.CompositeLayout
    let values: [AttributeValue]
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(CompositeKeyedDecoding<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw CompositeCodingError(description: "a composite is not a list")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CompositeSingleDecoding(decoder: self)
    }
}

private struct CompositeKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CompositeDecoder
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        decoder.layout.fields.indices.compactMap {
            decoder.values[$0].isNull ? nil : Key(stringValue: decoder.layout.fields[$0].key)
        }
    }

    private func value(_ key: Key) -> (Int, AttributeValue)? {
        guard let i = decoder.layout.index[key.stringValue] else { return nil }
        return (i, decoder.values[i])
    }

    func contains(_ key: Key) -> Bool { value(key).map { !$0.1.isNull } ?? false }

    func decodeNil(forKey key: Key) throws -> Bool { value(key)?.1.isNull ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let (i, v) = value(key), let made = decoder.layout.fields[i].type.value(from: v),
            let typed = made as? T
        else {
            throw DecodingError.typeMismatch(
                type,
                .init(codingPath: [key], debugDescription: "the stored field does not make a \(type)"))
        }
        return typed
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let (_, v) = value(key), !v.isNull else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        throws -> KeyedDecodingContainer<NestedKey>
    {
        throw CompositeCodingError(description: "no nested containers")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw CompositeCodingError(description: "no nested lists")
    }

    func superDecoder() throws -> any Decoder {
        throw CompositeCodingError(description: "no superclass")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw CompositeCodingError(description: "no superclass")
    }
}

private struct CompositeSingleDecoding: SingleValueDecodingContainer {
    let decoder: CompositeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { decoder.values.first?.isNull ?? true }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let inner = decoder.layout.single, let v = decoder.values.first,
            let made = inner.value(from: v) as? T
        else {
            throw DecodingError.typeMismatch(
                type, .init(codingPath: [], debugDescription: "the stored value does not make a \(type)"))
        }
        return made
    }
}
