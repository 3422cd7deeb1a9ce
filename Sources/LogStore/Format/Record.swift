/// Operation codes of records inside a frame payload (FORMAT.md, "Records"). 0 and 4…255 are
/// invalid.
enum RecordOp {
    static let put: UInt8 = 1
    static let delete: UInt8 = 2
    /// Names a keyspace: `id: varint, nameLength: varint, name: UTF-8`.
    static let defineKeyspace: UInt8 = 3
}

/// The record grammar (FORMAT.md, "Records"), coded once: the encoder and the checked decoder
/// for bytes read from a file live here; ``StoredRecord`` reads a record in place (trusted, for
/// bytes the store wrote or has checked, or checked with ``StoredRecord/init(checkedAt:end:)``).
///
/// ```
/// record := op: u8, then by op:
///   1 put:             keyspace: varint, keyLength: varint, valueLength: varint, key, value
///   2 delete:          keyspace: varint, keyLength: varint, key
///   3 define-keyspace: keyspace: varint, nameLength: varint, name   // UTF-8
/// ```
///
/// A ``WriteBatch`` holds its operations in the same grammar, with keyspaces numbered locally.
enum RecordFormat {
    /// The longest op and varints a record starts with.
    static let maxHeaderSize = 1 + 3 * Varint.maxSize

    // MARK: - Encoder

    /// Appends a record's op and varints to `bytes`; its key (or name) and value follow. `value`
    /// is `nil` for a delete or a definition.
    @inline(__always)
    static func appendHeader(
        op: UInt8, keyspace: Int, keyLength: Int, valueLength: Int?, to bytes: inout [UInt8]
    ) {
        // Byte by byte: for the usual one-byte varints, cheaper than one copy of a few bytes.
        bytes.append(op)
        Varint.append(UInt64(keyspace), to: &bytes)
        Varint.append(UInt64(keyLength), to: &bytes)
        if let valueLength { Varint.append(UInt64(valueLength), to: &bytes) }
    }

    /// Appends a whole record.
    @inline(__always)
    static func append(
        op: UInt8, keyspace: Int, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?,
        to bytes: inout [UInt8]
    ) {
        appendHeader(
            op: op, keyspace: keyspace, keyLength: key.count, valueLength: value?.count, to: &bytes)
        // A key and value that lie side by side (a batch's record) are copied in one piece.
        if let value, let start = key.baseAddress, start + key.count == value.baseAddress {
            bytes.append(
                contentsOf: UnsafeRawBufferPointer(start: start, count: key.count + value.count))
            return
        }
        bytes.append(contentsOf: key)
        if let value { bytes.append(contentsOf: value) }
    }

    /// Appends a `define-keyspace` record giving `keyspace` its `name`.
    static func appendDefinition(keyspace: Int, name: String, to bytes: inout [UInt8]) {
        var name = name
        name.withUTF8 {
            append(
                op: RecordOp.defineKeyspace, keyspace: keyspace, key: UnsafeRawBufferPointer($0),
                value: nil, to: &bytes)
        }
    }

    /// Bytes a record with these lengths takes when written with the shortest varints, as the
    /// encoder writes them; `valueLength` is `nil` for a delete or a definition.
    @inline(__always)
    static func encodedSize(keyspace: Int, keyLength: Int, valueLength: Int?) -> Int {
        var size = 1 + Varint.size(UInt64(keyspace)) + Varint.size(UInt64(keyLength)) + keyLength
        if let valueLength { size += Varint.size(UInt64(valueLength)) + valueLength }
        return size
    }

    // MARK: - Checked decoder

    /// Decodes the record at `offset` (advancing it past the record), or returns `nil` (and leaves
    /// `offset` alone) if it is malformed, has an unknown op, breaks a limit (FORMAT.md, "Limits")
    /// or runs past `end`. Never reads outside `bytes[..<end]`.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: inout Int, end: Int)
        -> RecordView?
    {
        let start = offset
        guard start < end else { return nil }
        // A `Range`, not `..<end`: the partial range goes through Collection's generic
        // subscript, which in a debug build was a tenth of verify's and dump's time.
        let payload = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        var position = offset
        let op = payload[position]
        position += 1
        guard op == RecordOp.put || op == RecordOp.delete || op == RecordOp.defineKeyspace,
            let keyspace = Varint.read(payload, &position), keyspace > 0,
            let keyLength = Varint.read(payload, &position)
        else { return nil }
        var valueLength: UInt64 = 0
        if op == RecordOp.put {
            guard let length = Varint.read(payload, &position) else { return nil }
            valueLength = length
        }
        let keyLimit =
            op == RecordOp.defineKeyspace
            ? UInt64(KeyspaceTable.maxNameLength) : UInt64(Frame.maxKeyLength)
        guard keyLength <= keyLimit, valueLength <= UInt64(Frame.maxValueLength),
            Int(keyLength) + Int(valueLength) <= end - position
        else { return nil }
        let key = UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(keyLength)])
        position += Int(keyLength)
        var value: UnsafeRawBufferPointer?
        if op == RecordOp.put {
            value = UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(valueLength)])
            position += Int(valueLength)
        }
        offset = position
        return RecordView(
            op: op, keyspace: keyspace, key: key, value: value, recordOffset: start,
            encodedSize: position - start)
    }
}

/// One record decoded by ``RecordFormat/decode(_:at:end:)``. Buffers point into the decoded bytes.
struct RecordView {
    var op: UInt8
    var keyspace: UInt64
    /// Key bytes, or the keyspace name for `defineKeyspace`.
    var key: UnsafeRawBufferPointer
    /// Value bytes of a put.
    var value: UnsafeRawBufferPointer?
    /// Offset of the record's first byte in the decoded bytes.
    var recordOffset: Int
    /// Bytes the record takes.
    var encodedSize: Int
    /// Offset of the frame that holds it (set by ``SegmentScanner/forEachRecord(start:end:_:)``).
    var frameOffset = 0
}

/// A record read by the trusted decoder: no bounds or limit checks, so only for bytes the store
/// wrote itself or has already checked with ``RecordFormat/decode(_:at:end:)`` (mapped segments behind
/// the index, a ``WriteBatch``'s buffer).
struct StoredRecord {
    var op: UInt8
    var keyspace: Int
    /// The key (or, for a definition, the name).
    var key: UnsafeRawBufferPointer
    /// The value of a put; empty otherwise.
    var value: UnsafeRawBufferPointer
    /// Bytes the whole record takes.
    var encodedSize: Int

    /// Decodes the record whose op byte is at `start`.
    @inline(__always)
    init(at start: UnsafeRawPointer) {
        var p = start
        op = p.load(as: UInt8.self)
        p += 1
        keyspace = Varint.readTrusted(&p)
        let keyLength = Varint.readTrusted(&p)
        let valueLength = op == RecordOp.put ? Varint.readTrusted(&p) : 0
        key = UnsafeRawBufferPointer(start: p, count: keyLength)
        value = UnsafeRawBufferPointer(start: p + keyLength, count: valueLength)
        encodedSize = p - start + keyLength + valueLength
    }

    /// The most bytes a put record's header takes: the op and three varints of up to 10 bytes.
    static let maxHeaderSize = 31

    /// Decodes the put record an index entry says starts at `start`, which is before `end` (the
    /// segment's readable end), or returns `nil` if what is there is not a put record that ends
    /// by `end`. Never reads at or past `end`. An entry mapped from a key directory file is
    /// checked at open only for pointing inside its segment, so a damaged or forged one can
    /// point into the middle of a record; reads decode through here.
    ///
    /// Costs the trusted decoder's work plus two well-predicted branches while at least
    /// ``maxHeaderSize`` bytes are left in the segment.
    @inline(__always)
    init?(checkedAt start: UnsafeRawPointer, end: UnsafeRawPointer) {
        guard end - start >= Self.maxHeaderSize else {
            guard let record = Self.nearEnd(start, end: end) else { return nil }
            self = record
            return
        }
        var p = start
        let op = p.load(as: UInt8.self)
        p += 1
        let keyspace = Varint.readBounded(&p)
        let keyLength = Varint.readBounded(&p)
        let valueLength = Varint.readBounded(&p)
        // Lengths below 2^32 (an overlong or negative one is not), op a put: then the sum
        // cannot overflow and one compare bounds the record.
        guard
            (UInt(bitPattern: keyLength) | UInt(bitPattern: valueLength)) >> 32
                | UInt(op ^ RecordOp.put) == 0,
            keyLength &+ valueLength <= end - p
        else { return nil }
        self.op = op
        self.keyspace = keyspace
        key = UnsafeRawBufferPointer(start: p, count: keyLength)
        value = UnsafeRawBufferPointer(start: p + keyLength, count: valueLength)
        encodedSize = p - start + keyLength + valueLength
    }

    /// ``init(checkedAt:end:)`` for a record that starts less than ``maxHeaderSize`` bytes
    /// before `end`: through the checked decoder (cold).
    @inline(never)
    private static func nearEnd(_ start: UnsafeRawPointer, end: UnsafeRawPointer) -> StoredRecord? {
        guard start < end else { return nil }
        var offset = 0
        guard
            let record = RecordFormat.decode(
                UnsafeRawBufferPointer(start: start, count: end - start), at: &offset,
                end: end - start),
            record.op == RecordOp.put
        else { return nil }
        // Checked: the trusted decoder reads the same bytes, all before `end`.
        return StoredRecord(at: start)
    }
}
