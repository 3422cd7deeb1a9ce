import Logbook

/// One line of JSON laid out in a fixed buffer (on the stack), for the records `dump` writes by
/// the million: each piece is copied in place, with no array growth per piece. A line longer
/// than the buffer sets ``overflowed``; the caller then writes it the slower way. The JSON is
/// byte for byte what `AttributeValue.append(as: .json, to:)` and the `[UInt8]` helpers write.
struct JSONLine {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0
    /// Whether a piece did not fit (the line is then incomplete).
    private(set) var overflowed = false

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// The bytes laid out so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    @inline(__always)
    private mutating func room(_ size: Int) -> Bool {
        if count + size <= capacity { return true }
        overflowed = true
        return false
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        guard room(1) else { return }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, room(bytes.count) else { return }
        (base + count).copyMemory(from: start, byteCount: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal, with its sign.
    @inline(__always)
    mutating func append(decimal value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        append(decimal: value.magnitude)
    }

    /// `value` in decimal.
    @inline(__always)
    mutating func append(decimal value: UInt64) {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        guard room(digits) else { return }
        rest = value
        var position = count + digits
        repeat {
            position -= 1
            base.storeBytes(
                of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10),
                toByteOffset: position, as: UInt8.self)
            rest /= 10
        } while rest > 0
        count += digits
    }

    /// `bytes` as lower-case hex digits.
    mutating func append(hex bytes: UnsafeRawBufferPointer) {
        guard room(2 * bytes.count) else { return }
        for byte in bytes {
            base.storeBytes(of: Self.hexDigits[Int(byte >> 4)], toByteOffset: count, as: UInt8.self)
            base.storeBytes(
                of: Self.hexDigits[Int(byte & 15)], toByteOffset: count + 1, as: UInt8.self)
            count += 2
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string, quotes included (escaped by the library's one escaper).
    mutating func append(jsonString text: String) {
        append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            TextRendering.escapeJSON(bytes) { run, escape in
                append(run)
                append(escape)
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// A stored field as JSON, as ``append(_:)-(AttributeValue)`` writes the value it decodes
    /// to: a string's bytes are escaped in place when they are ASCII (they are then the
    /// string's UTF-8 as they are), and go through `String(decoding:as:)` otherwise.
    mutating func append(_ field: FieldBytes) {
        switch field {
        case .utf8(let bytes):
            guard ASCIIScan.isASCII(bytes) else {
                return append(jsonString: String(decoding: bytes, as: UTF8.self))
            }
            append(UInt8(ascii: "\""))
            TextRendering.escapeJSON(bytes.assumingMemoryBound(to: UInt8.self)) { run, escape in
                append(run)
                append(escape)
            }
            append(UInt8(ascii: "\""))
        case .value(let value): append(value)
        }
    }

    /// `value` as JSON (strings, integers and `null` in place; the rest through
    /// `AttributeValue.append(as:to:)`).
    mutating func append(_ value: AttributeValue) {
        switch value {
        case .string(let text): append(jsonString: text)
        case .integer(let number): append(decimal: number)
        case .null: append("null")
        default:
            var json: [UInt8] = []
            value.append(as: .json, to: &json)
            append(json)
        }
    }
}
