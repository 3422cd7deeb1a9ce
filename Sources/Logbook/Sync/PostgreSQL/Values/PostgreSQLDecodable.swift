import Foundation

/// A Swift type a result value converts to, from the text form of any type that spells it
/// and from the binary form of the types that are it. An `Optional` of one takes NULL as
/// `nil`; the others refuse NULL.
package protocol PostgreSQLDecodable {
    /// The value of `cell`.
    ///
    /// - Throws: ``PostgreSQLError/valueDecoding(column:type:reason:)``.
    init(_ cell: PostgreSQLCell) throws
}

extension Optional: PostgreSQLDecodable where Wrapped: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        self = cell.isNull ? nil : try Wrapped(cell)
    }
}

extension String: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws { self = try cell.requiredText() }
}

extension Int64: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        let bytes = try cell.required()
        if !cell.isText {
            switch cell.column.typeOID {
            case PostgreSQLType.int2: self = try cell.binaryInteger(bytes, size: 2)
            case PostgreSQLType.int4: self = try cell.binaryInteger(bytes, size: 4)
            case PostgreSQLType.int8: self = try cell.binaryInteger(bytes, size: 8)
            case PostgreSQLType.oid:
                self = try cell.binaryInteger(bytes, size: 4) & 0xFFFF_FFFF
            default: throw cell.failure("is not an integer type in binary")
            }
            return
        }
        guard let value = Int64(try cell.requiredText()) else {
            throw cell.failure("is not an integer that fits 64 bits")
        }
        self = value
    }
}

extension Int: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        guard let value = Int(exactly: try Int64(cell)) else {
            throw cell.failure("does not fit an Int")
        }
        self = value
    }
}

extension Int32: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        guard let value = Int32(exactly: try Int64(cell)) else {
            throw cell.failure("does not fit 32 bits")
        }
        self = value
    }
}

extension Double: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        let bytes = try cell.required()
        if !cell.isText {
            switch cell.column.typeOID {
            case PostgreSQLType.float8:
                self = Double(
                    bitPattern: UInt64(bitPattern: try cell.binaryInteger(bytes, size: 8)))
            case PostgreSQLType.float4:
                let bits = UInt32(truncatingIfNeeded: try cell.binaryInteger(bytes, size: 4))
                self = Double(Float(bitPattern: bits))
            case PostgreSQLType.int2, PostgreSQLType.int4, PostgreSQLType.int8:
                self = Double(try Int64(cell))
            default: throw cell.failure("is not a floating-point type in binary")
            }
            return
        }
        let text = try cell.requiredText()
        switch text {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default:
            guard let value = Double(text) else { throw cell.failure("is not a number") }
            self = value
        }
    }
}

extension Bool: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        let bytes = try cell.required()
        if !cell.isText {
            guard cell.column.typeOID == PostgreSQLType.bool, bytes.count == 1 else {
                throw cell.failure("is not a boolean in binary")
            }
            self = bytes.first != 0
            return
        }
        switch try cell.requiredText() {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw cell.failure("is not a boolean")
        }
    }
}

extension Array: PostgreSQLDecodable where Element == UInt8 {
    /// A `bytea` value's bytes (the raw bytes of a binary value of any other type).
    package init(_ cell: PostgreSQLCell) throws {
        let bytes = try cell.required()
        if cell.column.format == .binary {
            self = Array(bytes)
        } else if cell.column.typeOID == PostgreSQLType.bytea {
            self = try cell.byteaText(try cell.requiredText())
        } else {
            throw cell.failure("is not bytea; ask for binary results to read its bytes")
        }
    }
}

extension Data: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws { self = Data(try [UInt8](cell)) }
}

extension UUID: PostgreSQLDecodable {
    package init(_ cell: PostgreSQLCell) throws {
        let bytes = try cell.required()
        if !cell.isText {
            guard cell.column.typeOID == PostgreSQLType.uuid, bytes.count == 16 else {
                throw cell.failure("is not a uuid in binary")
            }
            let b = Array(bytes)
            self = UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                    b[12], b[13], b[14], b[15]
                ))
            return
        }
        guard let value = UUID(uuidString: try cell.requiredText()) else {
            throw cell.failure("is not a UUID")
        }
        self = value
    }
}

extension Date: PostgreSQLDecodable {
    /// A `timestamptz`, `timestamp` (taken as UTC) or `date` (midnight UTC).
    package init(_ cell: PostgreSQLCell) throws {
        let bytes = try cell.required()
        let micros: Int64
        if !cell.isText {
            switch cell.column.typeOID {
            case PostgreSQLType.timestamptz, PostgreSQLType.timestamp:
                micros = try cell.binaryInteger(bytes, size: 8)
                guard micros != .max, micros != .min else {
                    throw cell.failure("is infinity, which a Date does not hold")
                }
            case PostgreSQLType.date:
                let days = try cell.binaryInteger(bytes, size: 4)
                guard days != Int64(Int32.max), days != Int64(Int32.min) else {
                    throw cell.failure("is infinity, which a Date does not hold")
                }
                micros = days * PostgreSQLCell.microsecondsPerDay
            default: throw cell.failure("is not a date or timestamp in binary")
            }
        } else {
            micros = try cell.timestampText(try cell.requiredText())
        }
        // One rounding: from PostgreSQL's epoch to Foundation's reference date (2001-01-01).
        self = Date(
            timeIntervalSinceReferenceDate: Double(
                micros - PostgreSQLValue.referenceDateSince2000) / 1_000_000)
    }
}
