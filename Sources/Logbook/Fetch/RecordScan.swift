/// One pass over an entity's stored records: filters each record and collects the matches,
/// their sort keys and (optionally) their bytes.
///
/// A class with unchecked-exclusivity storage so the per-record path, called from the
/// engine's iteration closure, pays no dynamic exclusivity checks. Used by one fetch on one
/// thread; freed when the fetch ends.
final class RecordScan {
    @exclusivity(unchecked) var candidates: [FetchCandidate] = []
    @exclusivity(unchecked) var keys: [AttributeValue] = []
    @exclusivity(unchecked) var bytes: [UInt8] = []
    @exclusivity(unchecked) private var scratch: [AttributeValue]
    @exclusivity(unchecked) private var chunkUsed = 0
    @exclusivity(unchecked) private var chunkCount = 0
    private let chunk = UnsafeMutableRawPointer.allocate(
        byteCount: RecordScan.chunkBytes, alignment: 8)
    private let entries = UnsafeMutablePointer<(pk: UInt64, start: Int, count: Int)>.allocate(
        capacity: RecordScan.chunkRecords)

    private let plan: FetchPlan
    private let binding: EntityBinding
    private let keepRecords: Bool
    private let skip: Set<UInt64>
    private let scratchObject: AnyObject?
    private let needsValues: Bool
    private let needed: [Bool]?
    private let locateCount: Int
    private let offsets: UnsafeMutableBufferPointer<Int>
    private let types: UnsafeMutableBufferPointer<AttributeType>
    private let compiled: CompiledFilter?
    private let sortAttributes: [Int]
    private let scanLayout: RecordCodec.ScanLayout

    init(plan: FetchPlan, keepRecords: Bool, skip: Set<UInt64>) {
        self.plan = plan
        self.binding = plan.binding
        self.keepRecords = keepRecords
        self.skip = skip
        let entity = plan.binding.stored
        scratch = entity.attributes.map(\.initialValue)
        scratchObject = if case .object = plan.matcher { plan.binding.makeObject() } else { nil }
        needsValues = if case .all = plan.matcher { !plan.sortKeys.isEmpty } else { true }
        // Attributes the filter and the sort read; the scan locates attributes up to the last
        // of them and decodes only what it compares.
        if case .object = plan.matcher {
            needed = nil
            locateCount = 0
        } else {
            var mask = [Bool](repeating: false, count: entity.attributes.count)
            if case .filter(let node) = plan.matcher { node.markAttributes(&mask) }
            for key in plan.sortKeys { mask[key.attribute] = true }
            locateCount = (mask.lastIndex(of: true) ?? -1) + 1
            needed = mask
        }
        offsets = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(locateCount, 1))
        types = UnsafeMutableBufferPointer<AttributeType>.allocate(
            capacity: max(entity.attributes.count, 1))
        _ = types.initialize(from: entity.attributes.map(\.type))
        compiled =
            if case .filter(let node) = plan.matcher {
                CompiledFilter(node, types: entity.attributes.map(\.type))
            } else { nil }
        sortAttributes = plan.sortKeys.map(\.attribute)
        scanLayout = plan.binding.codec.makeScanLayout()
    }

    deinit {
        chunk.deallocate()
        entries.deallocate()
        offsets.deallocate()
        types.deallocate()
        scanLayout.deallocate()
    }

    /// Copies one stored record into the chunk (filtering waits for ``flush()``): a loop this
    /// small lets the processor overlap the cache misses of the engine's hash-order visit.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, errors of the predicate.
    @inline(__always)
    func visit(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        guard let pk = RecordCodec.primaryKey(key) else {
            throw LogbookError.corruptRecord(
                entity: binding.entity.name, key: "\(key.count) bytes", reason: "a key has 8 bytes")
        }
        let count = value.count
        if chunkUsed + count > Self.chunkBytes || chunkCount == Self.chunkRecords {
            try flush()
            if count > Self.chunkBytes {
                try process(value, pk)
                return
            }
        }
        if let base = value.baseAddress {
            (chunk + chunkUsed).copyMemory(from: base, byteCount: count)
        }
        entries[chunkCount] = (pk, chunkUsed, count)
        chunkCount += 1
        chunkUsed += count
    }

    /// Filters the records copied so far.
    func flush() throws {
        for i in 0..<chunkCount {
            let entry = entries[i]
            try process(
                UnsafeRawBufferPointer(start: chunk + entry.start, count: entry.count), entry.pk)
        }
        chunkCount = 0
        chunkUsed = 0
    }

    /// Bytes and records copied before they are filtered.
    static let chunkBytes = 1 << 20
    static let chunkRecords = 1 << 14

    /// Filters one stored record and keeps it if it matches.
    private func process(_ value: UnsafeRawBufferPointer, _ pk: UInt64) throws {
        if !skip.isEmpty && skip.contains(pk) { return }
        if needsValues {
            if let scratchObject {
                _ = try binding.load(value, into: scratchObject, primaryKey: pk)
                if case .object(let test) = plan.matcher, !(try test(scratchObject)) { return }
                for attribute in sortAttributes {
                    keys.append(binding.read(scratchObject, attribute))
                }
            } else if (try? RecordCodec.locate(
                value, offsets, count: locateCount, layout: scanLayout)) == true
            {
                let record = RecordFilterValues(
                    buffer: value, offsets: offsets, types: UnsafeBufferPointer(types))
                if let compiled, !(try compiled.evaluate(record)) { return }
                for attribute in sortAttributes { keys.append(record.value(at: attribute)) }
            } else {
                // Older schema version (or damage, which decode reports).
                _ = try binding.codec.decode(value, key: String(pk), only: needed) { i, v in
                    scratch[i] = v
                }
                let record = ArrayFilterValues(values: scratch, entity: binding.stored)
                if case .filter(let node) = plan.matcher, !(try node.evaluate(record)) { return }
                for attribute in sortAttributes { keys.append(scratch[attribute]) }
            }
        }
        let start = bytes.count
        if keepRecords { bytes.append(contentsOf: value) }
        candidates.append(
            FetchCandidate(
                primaryKey: pk, live: -1, bytesStart: start, bytesCount: value.count))
    }
}
