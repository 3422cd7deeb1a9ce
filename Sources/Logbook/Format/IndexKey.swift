import Foundation

/// The bytes of index entries (FORMAT.md Part 2, "Index sidecar"): each field's value in an
/// order-preserving encoding, then the object's primary key, so that comparing two entries'
/// bytes (`memcmp`, shorter first on a tie) orders them as ``AttributeValue/compare(_:_:)``
/// orders their values field by field, then by primary key.
///
/// ```
/// field := 0x00                          // null: before every value
///        | 0x01 payload                  // a value
/// payload (by type) :=
///   integer:      u64 big-endian of (value XOR 1 << 63)
///   double, date: u64 big-endian of the IEEE bits, sign bit flipped for positives, all bits
///                 flipped for negatives (-0 is stored as +0, every NaN as one NaN, after +inf)
///   bool:         u8 0 or 1
///   string, url:  NFC-normalized UTF-8, each 0x00 byte as 0x00 0xFF, then 0x00 0x01
///   data:         the bytes, each 0x00 as 0x00 0xFF, then 0x00 0x01
///   uuid:         the 16 bytes
///   Int8…UInt32:  as integer
///   uint64:       u64 big-endian
///   float:        as double (of the same value)
///   decimal:      its ordered form (``DecimalBytes``)
///   array, set:   (0x01 field(element))… 0x00
///   composite:    field(member)…          (a composite inside an array or set)
/// entry := field… primaryKey: u64 big-endian
/// ```
/// Every field's encoding is self-delimiting, so the entries of one value of the first fields
/// are exactly those that start with their bytes.
enum IndexKey {
    static let nullTag: UInt8 = 0
    static let valueTag: UInt8 = 1

    /// Appends `value` (of the field's type, or `null`).
    /// Invariant: `value` is `null` or of the field's type (an integer for a to-one
    /// relationship), as ``AttributeDescription/holds(_:)`` says.
    static func append(_ value: AttributeValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(nullTag)
        case .unsigned(let v):
            out.append(valueTag)
            appendBigEndian(v, to: &out)
        case .float(let v):
            out.append(valueTag)
            appendDouble(Double(v), to: &out)
        case .decimal(let v):
            out.append(valueTag)
            DecimalBytes.append(v, to: &out)
        case .array(let items):
            out.append(valueTag)
            for item in items {
                out.append(1)
                append(item, to: &out)
            }
            out.append(0)
        case .composite(let composite):
            out.append(valueTag)
            for item in composite.values { append(item, to: &out) }
        case .integer(let v):
            out.append(valueTag)
            appendInteger(v, to: &out)
        case .double(let v):
            out.append(valueTag)
            appendDouble(v, to: &out)
        case .date(let v):
            out.append(valueTag)
            appendDouble(v.timeIntervalSinceReferenceDate, to: &out)
        case .bool(let v):
            out.append(valueTag)
            out.append(v ? 1 : 0)
        case .string(let v):
            out.append(valueTag)
            appendString(v, to: &out)
            appendTerminator(to: &out)
        case .data(let v):
            out.append(valueTag)
            appendEscaped(v, to: &out)
            appendTerminator(to: &out)
        case .uuid(let v):
            out.append(valueTag)
            withUnsafeBytes(of: v.uuid) { out.append(contentsOf: $0) }
        }
    }

    @inline(__always)
    static func appendInteger(_ v: Int64, to out: inout [UInt8]) {
        appendBigEndian(UInt64(bitPattern: v) ^ (1 << 63), to: &out)
    }

    @inline(__always)
    static func appendDouble(_ v: Double, to out: inout [UInt8]) {
        let canonical = v.isNaN ? Double.nan : (v == 0 ? 0 : v)
        let bits = canonical.bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &out)
    }

    @inline(__always)
    static func appendBigEndian(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) }
    }

    /// Appends the primary key that ends every entry.
    @inline(__always)
    static func appendPrimaryKey(_ pk: UInt64, to out: inout [UInt8]) {
        appendBigEndian(pk, to: &out)
    }

    /// The primary key at the end of an entry.
    /// Invariant: `entry` has at least ``minimumEntryBytes`` (checked when entries are loaded).
    @inline(__always)
    static func primaryKey(_ entry: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: entry.count - 8, as: UInt64.self))
    }

    /// The fewest bytes an entry has: one field (a null) and the primary key.
    static let minimumEntryBytes = 9

    /// The head of `bytes` (an entry, a bound or a prefix): its first 8 bytes as a big-endian
    /// number, zeros after shorter bytes. If `head(a) < head(b)` then `a` sorts before `b`, and
    /// `a <= b` gives `head(a) <= head(b)`: heads order entries that differ in them as their
    /// bytes do (the sidecar records each chunk's first, FORMAT.md Part 2, "Index sidecar").
    @inline(__always)
    static func head(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        if bytes.count >= 8 { return UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)) }
        var value: UInt64 = 0
        for i in 0..<bytes.count { value |= UInt64(bytes[i]) << UInt64(56 - 8 * i) }
        return value
    }

    /// The shortest entry whose head is `head` (its 8 bytes and one more): what a chunk that
    /// fails its check stands in as, so that searches keep their order.
    static func entry(withHead head: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(minimumEntryBytes)
        appendBigEndian(head, to: &bytes)
        bytes.append(0)
        return bytes
    }

    /// Whether the field at `offset` of an entry is null.
    /// Invariant: `offset` is a field's start inside `entry` (``fieldEnd(_:at:type:)`` passed it).
    @inline(__always)
    static func isNull(_ entry: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        entry[offset] == nullTag
    }

    /// The value of the non-null integer field (of any integer type but `uint64`) at `offset`.
    /// Invariant: ``fieldEnd(_:at:type:)`` stepped over it (a value tag and 8 bytes).
    @inline(__always)
    static func integerField(_ entry: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        integer(UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self)))
    }

    /// The value of the non-null `double`, `date` or `float` field at `offset`.
    /// Invariant: ``fieldEnd(_:at:type:)`` stepped over it (a value tag and 8 bytes).
    @inline(__always)
    static func doubleField(_ entry: UnsafeRawBufferPointer, at offset: Int) -> Double {
        double(UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self)))
    }

    /// The text as stored: NFC, so that canonically equal strings (which Swift compares equal)
    /// have the same bytes. ASCII is returned as it is.
    @inline(__always)
    static func normalized(_ text: String) -> String.UTF8View {
        var text = text
        let ascii = text.withUTF8 { $0.allSatisfy { $0 < 0x80 } }
        return ascii ? text.utf8 : text.precomposedStringWithCanonicalMapping.utf8
    }

    /// Appends a string's payload (without its terminator): its bytes as they are when it is
    /// ASCII (one pass over contiguous UTF-8), else its NFC form's, escaped.
    @inline(__always)
    static func appendString(_ text: String, to out: inout [UInt8]) {
        var text = text
        let done = text.withUTF8 { bytes -> Bool in
            var zero = false
            for byte in bytes {
                if byte >= 0x80 { return false }
                if byte == 0 { zero = true }
            }
            if zero {
                appendEscaped(bytes, to: &out)
            } else {
                out.append(contentsOf: bytes)
            }
            return true
        }
        if !done { appendEscaped(text.precomposedStringWithCanonicalMapping.utf8, to: &out) }
    }

    /// Appends bytes with 0x00 written as 0x00 0xFF.
    @inline(__always)
    static func appendEscaped<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        if !bytes.contains(0) {
            out.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
    }

    @inline(__always)
    static func appendTerminator(to out: inout [UInt8]) {
        out.append(0)
        out.append(1)
    }

    /// The prefix every string value starting with `text` has (BEGINSWITH), or `nil` when the
    /// index cannot answer it exactly (text that is not ASCII, whose normalization may join it
    /// with what follows).
    static func stringPrefix(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var out: [UInt8] = [valueTag]
        appendEscaped(text.utf8, to: &out)
        return out
    }

    /// The smallest byte string greater than every string that starts with `prefix`, or `nil`
    /// when there is none (the prefix is empty or all 0xFF).
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    /// Appends the encoding of the field at `offset` of a record (located by
    /// ``RecordCodec/locate(_:_:count:layout:)``; -1 for `null`) without building a value.
    /// - Returns: `false` if the bytes there do not decode (a damaged record).
    @inline(__always)
    static func appendField(
        _ record: UnsafeRawBufferPointer, at offset: Int, shape: ValueShape,
        to out: inout [UInt8]
    ) -> Bool {
        if offset < 0 {
            out.append(nullTag)
            return true
        }
        var r = ByteReader(record)
        r.offset = offset
        guard case .scalar(let type) = shape else {
            guard let v = try? r.value(shape) else { return false }
            append(v, to: &out)
            return true
        }
        switch type {
        case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32:
            guard let v = try? r.zigzag() else { return false }
            out.append(valueTag)
            appendInteger(v, to: &out)
        case .decimal:
            guard let bytes = try? r.lengthPrefixed(), DecimalBytes.decimal(bytes) != nil else {
                return false
            }
            out.append(valueTag)
            out.append(contentsOf: bytes)
        case .string, .url:
            guard let bytes = try? r.lengthPrefixed() else { return false }
            out.append(valueTag)
            if bytes.allSatisfy({ $0 < 0x80 }) {
                appendEscaped(bytes, to: &out)
            } else {
                appendEscaped(normalized(String(decoding: bytes, as: UTF8.self)), to: &out)
            }
            appendTerminator(to: &out)
        case .double, .date:
            guard let v = try? r.double() else { return false }
            out.append(valueTag)
            appendDouble(v, to: &out)
        case .bool, .data, .uuid, .uint64, .float, .array, .set, .composite:
            guard let v = try? r.value(type) else { return false }
            append(v, to: &out)
        }
        return true
    }

    /// Whether ``fieldEnd(_:at:type:)`` and ``decodeField(_:at:type:)`` read fields of `type`:
    /// every scalar type but `URL` (whose text an entry holds NFC-normalized, not as stored).
    /// An index of a URL, an array, a set or a composite answers by its records.
    static func decodesField(_ type: AttributeType) -> Bool {
        switch type {
        case .integer, .double, .date, .bool, .string, .data, .uuid, .int8, .int16, .int32,
            .uint8, .uint16, .uint32, .uint64, .float, .decimal:
            return true
        default: return false
        }
    }

    /// The offset just past the field of type `type` at `offset` of an index entry, without
    /// decoding it; `nil` if the bytes there are not such a field.
    @inline(__always)
    static func fieldEnd(_ entry: UnsafeRawBufferPointer, at offset: Int, type: AttributeType)
        -> Int?
    {
        guard offset < entry.count else { return nil }
        if entry[offset] == nullTag { return offset + 1 }
        guard entry[offset] == valueTag else { return nil }
        var i = offset + 1
        switch type {
        case .integer, .double, .date, .int8, .int16, .int32, .uint8, .uint16, .uint32, .uint64,
            .float:
            i += 8
        case .decimal:
            guard
                let length = DecimalBytes.length(UnsafeRawBufferPointer(rebasing: entry[i...]))
            else { return nil }
            i += length
        case .bool: i += 1
        case .uuid: i += 16
        case .string, .data:
            // Up to the terminator 0x00 0x01 (a zero byte of the value is 0x00 0xFF).
            while i + 1 < entry.count {
                if entry[i] == 0 {
                    if entry[i + 1] == 1 { return i + 2 }
                    i += 2
                } else {
                    i += 1
                }
            }
            return nil
        default: return nil
        }
        return i <= entry.count ? i : nil
    }

    /// The integer whose payload (``appendInteger(_:to:)``) is the big-endian `bits`.
    @inline(__always)
    static func integer(_ bits: UInt64) -> Int64 { Int64(bitPattern: bits ^ (1 << 63)) }

    /// The double whose payload (``appendDouble(_:to:)``) is the big-endian `bits`.
    @inline(__always)
    static func double(_ bits: UInt64) -> Double {
        Double(bitPattern: bits & (1 << 63) != 0 ? bits & ~(1 << 63) : ~bits)
    }

    /// Decodes the field of type `type` at `offset` of an index entry (what ``append(_:to:)``
    /// wrote), moving `offset` past it: how an index answers a minimum, a maximum or a group
    /// key without reading records. Strings come back as stored (NFC).
    /// - Returns: `nil` if the bytes there are not such a field.
    static func decodeField(
        _ entry: UnsafeRawBufferPointer, at offset: inout Int, type: AttributeType
    ) -> AttributeValue? {
        guard offset < entry.count else { return nil }
        let tag = entry[offset]
        if tag == nullTag {
            offset += 1
            return .null
        }
        guard tag == valueTag else { return nil }
        var i = offset + 1
        func bigEndian() -> UInt64? {
            guard entry.count - i >= 8 else { return nil }
            defer { i += 8 }
            return UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        }
        func unescaped() -> [UInt8]? {
            var bytes: [UInt8] = []
            while i + 1 < entry.count {
                let byte = entry[i]
                if byte == 0 {
                    let next = entry[i + 1]
                    i += 2
                    if next == 1 { return bytes }
                    guard next == 0xFF else { return nil }
                    bytes.append(0)
                } else {
                    bytes.append(byte)
                    i += 1
                }
            }
            return nil
        }
        let value: AttributeValue
        switch type {
        case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32:
            guard let bits = bigEndian() else { return nil }
            value = .integer(Self.integer(bits))
        case .uint64:
            guard let bits = bigEndian() else { return nil }
            value = .unsigned(bits)
        case .double, .date, .float:
            guard let bits = bigEndian() else { return nil }
            let number = Self.double(bits)
            switch type {
            case .date: value = .date(Date(timeIntervalSinceReferenceDate: number))
            case .float: value = .float(Float(number))
            default: value = .double(number)
            }
        case .decimal:
            let rest = UnsafeRawBufferPointer(rebasing: entry[i...])
            guard let length = DecimalBytes.length(rest),
                let decimal = DecimalBytes.decimal(
                    UnsafeRawBufferPointer(rebasing: rest[..<length]))
            else { return nil }
            value = .decimal(decimal)
            i += length
        case .bool:
            guard i < entry.count, entry[i] <= 1 else { return nil }
            value = .bool(entry[i] == 1)
            i += 1
        case .string:
            guard let bytes = unescaped(), let text = String(validating: bytes, as: UTF8.self)
            else { return nil }
            value = .string(text)
        case .data:
            guard let bytes = unescaped() else { return nil }
            value = .data(Data(bytes))
        case .uuid:
            guard entry.count - i >= 16 else { return nil }
            value = .uuid(UUID(uuid: entry.loadUnaligned(fromByteOffset: i, as: uuid_t.self)))
            i += 16
        default: return nil
        }
        offset = i
        return value
    }
}
