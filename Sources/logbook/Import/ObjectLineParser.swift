import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses the object lines that `export --format jsonl` writes —
/// `{"_entity":"Employee","_id":1,"name":"Ann",…}`, no spaces, no escapes in names — straight
/// into values, with no JSON tree in between: the import of a million lines spends its time on
/// the objects, not on the syntax.
///
/// Anything else it does not try to understand: other spacing or member order, escapes, a value
/// of the wrong type, a missing required attribute. It returns `nil` and the caller parses the
/// line with ``JSONParser``, which accepts all of JSON and names the problem.
struct ObjectLineParser {
    private struct Target {
        var entity: Entity
        /// Each attribute's name as UTF-8, in attribute order.
        var names: [[UInt8]]
    }

    private let targets: [(name: [UInt8], target: Target)]

    /// A parser of objects of `entities`.
    init(entities: [Entity]) {
        targets = entities.map { entity in
            (
                Array(entity.name.utf8),
                Target(entity: entity, names: entity.attributes.map { Array($0.name.utf8) })
            )
        }
    }

    /// The object `line` holds, or `nil` if it is not a line of the form above.
    func parse(_ line: UnsafeBufferPointer<UInt8>) -> (
        entity: Entity, values: [AttributeValue?], id: Int64?
    )? {
        var cursor = Cursor(bytes: line)
        guard cursor.take("{\"_entity\":"), let name = cursor.plainString(),
            let target = targets.first(where: { same($0.name, name) })?.target
        else { return nil }
        var id: Int64? = nil
        if cursor.take(",\"_id\":") {
            guard let read = cursor.integer() else { return nil }
            id = read
        }
        let attributes = target.entity.attributes
        // Filled in order as export writes it; a gap is `nil` (the default).
        var values: [AttributeValue?] = []
        values.reserveCapacity(attributes.count)
        var next = 0
        while cursor.take(",") {
            guard let key = cursor.plainString(), cursor.take(":") else { return nil }
            // Export writes the attributes in order: try the next one first.
            let index: Int
            if next < attributes.count && same(target.names[next], key) {
                index = next
            } else if let found = target.names.firstIndex(where: { same($0, key) }) {
                index = found
            } else {
                return nil
            }
            next = index + 1
            let attribute = attributes[index]
            guard let value = cursor.value(of: attribute),
                !value.isNull || attribute.isOptional
            else { return nil }
            if index < values.count {
                values[index] = value
            } else {
                while values.count < index { values.append(nil) }
                values.append(value)
            }
        }
        guard cursor.take("}"), cursor.isAtEnd else { return nil }
        while values.count < attributes.count { values.append(nil) }
        for (attribute, value) in zip(attributes, values)
        where value == nil && !attribute.isOptional && attribute.defaultValue == nil {
            return nil
        }
        return (target.entity, values, id)
    }
}

/// Whether `a` and `b` hold the same bytes.
private func same(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    a.count == b.count
        && (b.isEmpty
            || a.withUnsafeBufferPointer { memcmp($0.baseAddress!, b.baseAddress!, b.count) == 0 })
}

private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

/// A position in a line, with the few readers ``ObjectLineParser`` needs. Every reader returns
/// `nil` or `false`, and may have moved, when the bytes are not what it reads.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    var isAtEnd: Bool {
        var end = position
        while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == 0x09 {
            end += 1
        }
        return end == bytes.count
    }

    /// Moves past `literal` if the bytes start with it.
    mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count,
            memcmp(bytes.baseAddress! + position, literal.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }

    /// A string without escapes or control characters: the bytes between its quotes.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        guard let end = ASCIIScan.firstQuoteBackslashOrControl(in: bytes, from: start),
            bytes[end] == UInt8(ascii: "\"")
        else { return nil }
        position = end + 1
        return bytes.part(start..<end)
    }

    /// A decimal integer that fits in 64 bits, followed by `,` or `}`.
    mutating func integer() -> Int64? {
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        var end = negative ? position + 1 : position
        var magnitude: UInt64 = 0
        let first = end
        // JSON writes no leading zero: "01" is not a number there, nor here.
        if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "0"), isDigit(bytes[end + 1]) {
            return nil
        }
        while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[end] - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            magnitude = sum
            end += 1
        }
        guard end > first, end < bytes.count,
            bytes[end] == UInt8(ascii: ",") || bytes[end] == UInt8(ascii: "}")
        else { return nil }
        let value: Int64
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        position = end
        return value
    }

    /// A value of `attribute` in the form ``AttributeValue/TextFormat/json`` writes, or `null`;
    /// `nil` for what the full parser reads instead (arrays, sets, composites, a non-finite
    /// float, a decimal NaN).
    mutating func value(of attribute: AttributeDescription) -> AttributeValue? {
        if take("null") { return .null }
        let type = attribute.type
        switch type {
        case .integer: return integer().map { .integer($0) }
        case .int8, .int16, .int32, .uint8, .uint16, .uint32:
            return integer().flatMap {
                AttributeValue.converting(AttributeValue.integer($0), to: type)
            }
        case .uint64, .float, .decimal:
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: ","),
                bytes[position] != UInt8(ascii: "}"), bytes[position] != UInt8(ascii: "\"")
            {
                position += 1
            }
            let text = String(decoding: bytes.part(start..<position), as: UTF8.self)
            return AttributeValue(text: text, as: type)
        case .array, .set, .composite: return nil
        case .bool:
            if take("true") { return .bool(true) }
            return take("false") ? .bool(false) : nil
        case .double:
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: ","),
                bytes[position] != UInt8(ascii: "}"), bytes[position] != UInt8(ascii: "\"")
            {
                position += 1
            }
            // Only a JSON number: `Double(_:)` also takes hex, "+1", ".5" and stops at a NUL.
            let token = bytes.part(start..<position)
            guard JSONParser.isNumber(token),
                let value = Double(String(decoding: token, as: UTF8.self)), value.isFinite
            else { return nil }
            return .double(value)
        case .string, .date, .data, .uuid, .url:
            guard let raw = plainString(), let text = String(validatingUTF8: raw) else {
                return nil
            }
            return AttributeValue(text: text, as: type)
        }
    }
}
