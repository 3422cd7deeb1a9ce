/// Rewriting a record of an older schema version in the current one without decoding its
/// values, where the older version's fields are the current ones' first fields in place
/// (a version before attributes or to-ones were appended): what compaction does to every
/// record of a store after such a lightweight migration (``RecordUpgrader``).
extension RecordCodec {
    /// `buffer`, a record of an in-place prefix version (see ``Prefix/inPlace``), in the
    /// current version: the current header and null bitmap, the record's value bytes as they
    /// are, then the values of the fields it lacks. It reads as `buffer` does. `nil` for a
    /// record of any other version, or one whose values do not step over to its end (what
    /// ``RecordUpgrader`` leaves to the full decode, which copies a damaged record as it is).
    func upgradedInPlace(_ buffer: UnsafeRawBufferPointer) -> [UInt8]? {
        var r = ByteReader(buffer)
        guard let version = try? r.varint(), version < 64, version != UInt64(schemaVersion),
            let prefix = prefixes[Int(version)], prefix.inPlace,
            let objectVersion = try? r.varint()
        else { return nil }
        // The layouts' tables are read in place: a copy of a layout retains each of them, per
        // record.
        let fields = prefix.layout.types.count
        let bitmapStart = r.offset
        guard buffer.count - bitmapStart >= prefix.layout.bitmapBytes else { return nil }
        let valuesStart = bitmapStart + prefix.layout.bitmapBytes
        r.offset = valuesStart
        @inline(__always) func isNull(_ i: Int) -> Bool {
            let slot = prefix.layout.optionalSlot[i]
            return slot >= 0 && buffer[bitmapStart + slot / 8] & (1 << UInt8(slot % 8)) != 0
        }
        for i in 0..<fields where !isNull(i) {
            guard (try? r.skip(prefix.layout.types[i])) != nil else { return nil }
        }
        guard r.isAtEnd else { return nil }
        var w = ByteWriter(capacity: buffer.count + 16)
        w.varint(UInt64(schemaVersion))
        w.varint(objectVersion)
        let newBitmap = w.bytes.count
        if layout.bitmapBytes > 0 {
            w.bytes.append(contentsOf: repeatElement(0, count: layout.bitmapBytes))
        }
        func markNull(_ i: Int) -> Bool {
            let slot = layout.optionalSlot[i]
            guard slot >= 0 else { return false }
            w.bytes[newBitmap + slot / 8] |= 1 << UInt8(slot % 8)
            return true
        }
        // A prefix version has no optional field that became required (those read nulls as
        // a default: not in place), so every null keeps a slot.
        for i in 0..<fields where isNull(i) {
            guard markNull(i) else { return nil }
        }
        w.bytes.append(contentsOf: buffer[valuesStart...])
        for i in fields..<layout.types.count {
            let value = prefix.missing[i]
            if value.isNull {
                guard markNull(i) else { return nil }
            } else {
                w.value(value, as: layout.shapes[i])
            }
        }
        return w.bytes
    }
}
