/// One value of a row, with its column: NULL, or bytes in the column's format. The
/// ``PostgreSQLDecodable`` types read it.
package struct PostgreSQLCell: Sendable {
    package let column: PostgreSQLColumn
    /// The value's bytes, `nil` for NULL.
    package let bytes: ArraySlice<UInt8>?

    package var isNull: Bool { bytes == nil }

    /// Whether the value is text: sent in text format, or of a type whose binary form is its
    /// text (a parameter whose type the server left as `text`, read back in binary).
    var isText: Bool {
        column.format == .text || PostgreSQLType.isTextual(column.typeOID)
    }

    /// The value as the server's text (for a text-format value, whatever its type; for a
    /// binary one, only of a textual type), `nil` for NULL.
    package var text: String? {
        get throws {
            guard let bytes else { return nil }
            if isText {
                return String(decoding: bytes, as: UTF8.self)
            }
            if column.typeOID == PostgreSQLType.jsonb, bytes.first == 1 {
                return String(decoding: bytes.dropFirst(), as: UTF8.self)
            }
            throw failure("is binary; ask for text results to read it as text")
        }
    }

    /// The bytes of a value that must not be NULL.
    func required() throws -> ArraySlice<UInt8> {
        guard let bytes else { throw failure("is NULL; decode it as an optional") }
        return bytes
    }

    /// The text of a value that must not be NULL.
    func requiredText() throws -> String {
        guard let text = try text else { throw failure("is NULL; decode it as an optional") }
        return text
    }

    /// The error for this value not converting: `reason` follows "the value of column … ".
    func failure(_ reason: String) -> LogbookError {
        .postgreSQL(
            .valueDecoding(
                column: column.name, type: PostgreSQLType.name(column.typeOID), reason: reason))
    }

    /// A big-endian integer of exactly `size` bytes (2, 4 or 8), sign-extended.
    func binaryInteger(_ bytes: ArraySlice<UInt8>, size: Int) throws -> Int64 {
        guard bytes.count == size else {
            throw failure("has \(bytes.count) bytes where \(size) were expected")
        }
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        let shift = UInt64(64 - 8 * size)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    // MARK: Text forms

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `bytea` in either output form: hex (`\x0001ff`) or escape (`a\000\\`).
    func byteaText(_ text: String) throws -> [UInt8] {
        let utf8 = Array(text.utf8)
        if utf8.starts(with: [0x5C, 0x78]) {  // \x
            let digits = utf8.dropFirst(2)
            guard digits.count % 2 == 0 else { throw failure("is not valid bytea hex") }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            var index = digits.startIndex
            while index < digits.endIndex {
                guard let high = Self.hexDigit(digits[index]),
                    let low = Self.hexDigit(digits[index + 1])
                else { throw failure("is not valid bytea hex") }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            guard byte == 0x5C else {
                bytes.append(byte)
                index += 1
                continue
            }
            if index + 1 < utf8.count, utf8[index + 1] == 0x5C {
                bytes.append(0x5C)
                index += 2
            } else if index + 3 < utf8.count,
                case let octal = utf8[(index + 1)...(index + 3)],
                octal.allSatisfy({ (0x30...0x37).contains($0) }), octal.first! <= 0x33
            {
                bytes.append(octal.reduce(0) { $0 << 3 | ($1 - 0x30) })
                index += 4
            } else {
                throw failure("is not valid bytea escape text")
            }
        }
        return bytes
    }

    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
}
