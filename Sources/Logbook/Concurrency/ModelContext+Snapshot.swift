extension RecordCodec {
    /// The object version a record carries (every schema version puts it second), or `nil` if
    /// the record is too short to hold one.
    @inline(__always)
    static func objectVersion(_ record: UnsafeRawBufferPointer) -> UInt64? {
        var r = ByteReader(record)
        guard (try? r.varint()) != nil else { return nil }
        return try? r.varint()
    }
}

extension ModelContext {
    /// Snapshot reads: a fetch that meets a registered object whose record is newer than the
    /// values it holds brings the object up to that record, so every object of one result
    /// shows the one state the fetch read; `generation` is the save generation from before the
    /// read. Fields with an unsaved change here keep it (the
    /// record's value becomes what a rollback restores).
    @inline(__always)
    func refreshIfStale(
        _ e: Int32, _ binding: EntityBinding, _ record: UnsafeRawBufferPointer, generation: UInt64
    ) {
        guard let version = RecordCodec.objectVersion(record),
            version > table[e].version
        else { return }
        refresh(e, binding, record, version: version, generation: generation)
    }

    /// Takes the stored values of `record` into entry `e`'s object, except fields with an
    /// unsaved change here (which win, and whose saved value becomes the stored one).
    func refresh(
        _ e: Int32, _ binding: EntityBinding, _ record: UnsafeRawBufferPointer,
        version: UInt64? = nil, generation: UInt64
    ) {
        guard let object = table.objects[Int(e)] else { return }
        let edited = table[e].changedSlots
        let pk = table[e].primaryKey
        let decoded =
            (try? binding.codec.decode(record, key: String(pk)) { i, value in
                let bit: UInt64 = i < 63 ? 1 << UInt64(i) : 1 << 63
                if edited & bit == 0 {
                    binding.write(object, i, value)
                    table.noteChanged(e, slot: i)
                } else {
                    table.replaceSavedValue(e, slot: i, with: value)
                }
            }) ?? 0
        table[e].version = version ?? decoded
        table[e].readGeneration = generation
    }
}
