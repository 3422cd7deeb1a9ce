import LogStore

/// Reads the searchable fields of one entity's records (or objects) into a ``TextDocument``:
/// records of the current schema version in place (a field's UTF-8 straight from the record),
/// older ones decoded first.
///
/// Immutable and `Sendable`; its scan layout is read only.
final class TextFieldReader: @unchecked Sendable {  // raw buffers below are written once in init
    /// The searchable attributes' stored positions, ascending.
    let attributes: [Int]
    /// Their names.
    let names: [String]
    private let codec: RecordCodec
    private let layout: RecordCodec.ScanLayout
    private let locateCount: Int
    private let needed: [Bool]
    private let entityName: String

    /// A reader of `binding`'s searchable attributes, or `nil` if it has none.
    init?(binding: EntityBinding) {
        let attributes = binding.entity.searchableAttributes
        guard !attributes.isEmpty else { return nil }
        self.attributes = attributes
        names = attributes.map { binding.entity.attributes[$0].name }
        codec = binding.codec
        layout = binding.codec.makeScanLayout()
        locateCount = (attributes.last ?? -1) + 1
        var needed = [Bool](repeating: false, count: binding.stored.attributes.count)
        for a in attributes { needed[a] = true }
        self.needed = needed
        entityName = binding.entity.name
    }

    deinit { layout.deallocate() }

    /// Adds the searchable fields of record `pk` to `document` (which the caller resets).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a record that does not
    ///   decode.
    func read(_ record: UnsafeRawBufferPointer, _ pk: UInt64, into document: TextDocument) throws {
        let done = withUnsafeTemporaryAllocation(of: Int.self, capacity: locateCount) {
            offsets -> Bool in
            guard RecordCodec.locate(record, offsets, count: locateCount, layout: layout) else {
                return false
            }
            for a in attributes {
                let offset = offsets[a]
                guard offset >= 0 else {
                    document.skipField()
                    continue
                }
                var r = ByteReader(record)
                r.offset = offset
                // Invariant: `locate` stepped over this value, so its length is in the record.
                guard let text = try? r.lengthPrefixed() else { return false }
                document.add(utf8: text)
            }
            return true
        }
        if done { return }
        document.reset()
        var values = [AttributeValue](repeating: .null, count: needed.count)
        _ = try codec.decode(record, key: String(pk), only: needed) { values[$0] = $1 }
        for a in attributes { add(values[a], to: document) }
    }

    /// Adds the searchable fields of an object, given by its stored values, to `document`.
    func read(_ value: (Int) -> AttributeValue, into document: TextDocument) {
        for a in attributes { add(value(a), to: document) }
    }

    private func add(_ value: AttributeValue, to document: TextDocument) {
        if case .string(let text) = value { document.add(text) } else { document.skipField() }
    }
}
