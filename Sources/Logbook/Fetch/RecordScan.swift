/// One pass over an entity's stored records: filters each record where it lies in the log and
/// collects the matches, their sort keys and (optionally) their bytes.
///
/// Everything the per-record path reads is fixed at init and held in raw buffers or `let`s, and
/// its outputs skip Swift's dynamic exclusivity checks, so a record that does not match costs a
/// walk over its first fields and a comparison, with no reference counting. Used by one fetch on
/// one thread; freed when the fetch ends.
final class RecordScan {
    @exclusivity(unchecked) var candidates: [FetchCandidate] = []
    /// The matches' sort keys, `sortAttributes.count` per candidate (unless `integerSort`).
    @exclusivity(unchecked) var keys: [AttributeValue] = []
    /// With `integerSort`: each match's sort key (0 for `null`), and the positions of the
    /// matches whose key is `null`, ascending.
    @exclusivity(unchecked) var integerKeys: [Int64] = []
    @exclusivity(unchecked) var nullKeyPositions: [Int32] = []
    @exclusivity(unchecked) var bytes: [UInt8] = []
    /// Records met (tested or kept).
    @exclusivity(unchecked) var visited = 0
    @exclusivity(unchecked) private var scratch: [AttributeValue]

    private let binding: EntityBinding
    private let keepRecords: Bool
    /// When set, a match is turned into a registered object at once, from its bytes in the
    /// log, instead of its bytes being kept. Not retained: its owner keeps it while the scan
    /// runs.
    private let builder: Unmanaged<ObjectBuilder>?
    /// When set, a match is handed to it (its bytes in the log and its primary key) and
    /// neither kept nor counted as a candidate. Not retained, as `builder`.
    private let consumer: Unmanaged<AggregateScan>?
    private let skip: Set<UInt64>
    private let checkSkip: Bool
    /// For predicates evaluated on objects: the test and the reused object.
    private let objectTest: ((AnyObject) throws -> Bool)?
    private let scratchObject: AnyObject?
    private let filter: FilterNode?
    private let compiled: CompiledFilter?
    /// The compiled filter's single leaf, if it is one, and how many fields locating it takes.
    private let leaf: CompiledFilter.Leaf?
    private let leafLocateCount: Int
    /// When the leaf's field and every field before it are required: how to step over those
    /// before it, so the scan finds the leaf's value without ``RecordCodec/locate``.
    private let leafSkips: UnsafeMutableBufferPointer<RecordCodec.ScanLayout.Skip>
    private let leafDirect: Bool
    private let needsValues: Bool
    private let needed: [Bool]?
    /// Fields located in each record: every one up to the last the filter or sort reads.
    private let locateCount: Int
    private let offsets: UnsafeMutableBufferPointer<Int>
    private let types: UnsafeMutableBufferPointer<AttributeType>
    /// Each field's whole type (for arrays and sets).
    private let shapes: UnsafeMutableBufferPointer<ValueShape>
    private let sortAttributes: UnsafeMutableBufferPointer<Int>
    private let sortCount: Int
    /// Whether the one sort key is an integer attribute: keys go to `integerKeys` as plain
    /// numbers, for ``KeySort``.
    let integerSort: Bool
    /// When the one integer sort key is read and nothing else (no filter), and it and every
    /// field before it are required: how to step to it, so its value is read from the record
    /// without ``RecordCodec/locate``.
    private let sortSkips: UnsafeMutableBufferPointer<RecordCodec.ScanLayout.Skip>
    private let sortDirect: Bool
    private let scanLayout: RecordCodec.ScanLayout

    init(
        plan: FetchPlan, keepRecords: Bool, skip: Set<UInt64>,
        build: ObjectBuilder? = nil,
        consume: AggregateScan? = nil
    ) {
        binding = plan.binding
        self.keepRecords = keepRecords
        builder = build.map { .passUnretained($0) }
        consumer = consume.map { .passUnretained($0) }
        self.skip = skip
        checkSkip = !skip.isEmpty
        let entity = plan.binding.stored
        scratch = entity.attributes.map(\.initialValue)
        switch plan.matcher {
        case .all:
            objectTest = nil
            filter = nil
        case .filter(let node):
            objectTest = nil
            filter = node
        case .object(let test), .registeredObject(let test):
            // Invariant: a plan is resolved before it is scanned, so `registeredObject` is
            // gone by then; a scratch object would answer it wrongly.
            objectTest = test
            filter = nil
        }
        scratchObject = objectTest == nil ? nil : plan.binding.makeObject()
        needsValues = filter != nil || objectTest != nil || !plan.sortKeys.isEmpty
        if objectTest != nil {
            needed = nil
            locateCount = 0
        } else {
            var mask = [Bool](repeating: false, count: entity.attributes.count)
            filter?.markAttributes(&mask)
            for key in plan.sortKeys { mask[key.attribute] = true }
            locateCount = (mask.lastIndex(of: true) ?? -1) + 1
            needed = mask
        }
        offsets = .allocate(capacity: max(locateCount, 1))
        types = .allocate(capacity: max(entity.attributes.count, 1))
        _ = types.initialize(from: entity.attributes.map(\.type))
        shapes = .allocate(capacity: max(entity.attributes.count, 1))
        _ = shapes.initialize(from: entity.attributes.map(ValueShape.init))
        sortCount = plan.sortKeys.count
        sortAttributes = .allocate(capacity: max(sortCount, 1))
        _ = sortAttributes.initialize(from: plan.sortKeys.map(\.attribute))
        scanLayout = plan.binding.codec.makeScanLayout()
        compiled = filter.map { CompiledFilter($0, types: entity.attributes.map(\.type)) }
        leaf = compiled?.leaf
        leafLocateCount = (leaf?.attribute ?? -1) + 1
        leafSkips = .allocate(capacity: max(leafLocateCount, 1))
        let layout = scanLayout
        leafDirect =
            leaf != nil && (0..<leafLocateCount).allSatisfy { layout.optionalSlot[$0] < 0 }
        for f in 0..<leafLocateCount {
            (leafSkips.baseAddress! + f).initialize(to: layout.skips[f])
        }
        let sortField = sortCount == 1 ? plan.sortKeys[0].attribute : -1
        integerSort = sortField >= 0 && entity.attributes[sortField].type.isInteger
        sortDirect =
            integerSort && objectTest == nil && filter == nil
            && (0...sortField).allSatisfy { layout.optionalSlot[$0] < 0 }
        sortSkips = .allocate(capacity: max(sortField + 1, 1))
        for f in 0..<max(sortField + 1, 0) {
            (sortSkips.baseAddress! + f).initialize(to: layout.skips[f])
        }
    }

    /// Room for `count` more matches (their candidates and sort keys).
    func reserve(_ count: Int) {
        candidates.reserveCapacity(candidates.count + count)
        if integerSort {
            integerKeys.reserveCapacity(integerKeys.count + count)
        } else {
            keys.reserveCapacity(keys.count + count * sortCount)
        }
    }

    deinit {
        offsets.deallocate()
        types.deallocate()
        shapes.deinitialize()
        shapes.deallocate()
        sortAttributes.deallocate()
        leafSkips.deallocate()
        sortSkips.deallocate()
        scanLayout.deallocate()
    }

    /// Forgets every match and visit, to read again from the start. Only for scans that build
    /// no objects.
    func reset() {
        precondition(
            builder == nil && consumer == nil,
            "a scan that built or handed out matches cannot start again")
        candidates.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        integerKeys.removeAll(keepingCapacity: true)
        nullKeyPositions.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        visited = 0
    }

    /// Filters one stored record and keeps it if it matches.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, errors of the predicate.
    @inline(__always)
    func visit(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
            throw LogbookError.corruptRecord(
                entity: binding.entity.name, key: "\(key.count) bytes", reason: "a key has 8 bytes")
        }
        if checkSkip && skip.contains(pk) { return }
        visited += 1
        if needsValues {
            if sortDirect {
                // The integer sort key, straight from its place in a record of the current
                // layout; other records take the general way below.
                let at = directValueOffset(value, fields: sortAttributes[0] + 1, sortSkips)
                if at >= 0, let key = RecordFilterValues.zigzag(value, at: at) {
                    integerKeys.append(key)
                    return try keep(value, pk)
                }
            }
            if let scratchObject {
                guard try matchesObject(value, pk, scratchObject) else { return }
            } else {
                // A one-leaf filter is tested on the record's bytes first, with only the fields
                // up to its own located: most records of a scan fail it.
                var decided = false
                if let leaf {
                    let at = leafDirect ? leafValueOffset(value) : -1
                    if at >= 0 {
                        switch leaf.test(value, at: at) {
                        case .fails: return
                        case .holds: decided = true
                        case .undecided: break
                        }
                    }
                }
                if !RecordCodec.locate(value, offsets, count: locateCount, layout: scanLayout) {
                    guard try matchesDecoded(value, pk) else { return }
                    return try keep(value, pk)
                }
                let record = RecordFilterValues(
                    buffer: value, offsets: offsets, types: UnsafeBufferPointer(types),
                    shapes: UnsafeBufferPointer(shapes), primaryKey: pk)
                if !decided, let compiled, !(try compiled.evaluate(record)) { return }
                for k in 0..<sortCount { appendKey(record.value(at: sortAttributes[k])) }
            }
        }
        try keep(value, pk)
    }

    /// Where the leaf's (required) value starts in a record of the current layout, found by
    /// stepping over the fields before it; -1 for any other record (``RecordCodec/locate``
    /// and the full decode then answer, and report damage).
    @inline(__always)
    private func leafValueOffset(_ value: UnsafeRawBufferPointer) -> Int {
        directValueOffset(value, fields: leafLocateCount, leafSkips)
    }

    /// Where the value of field `fields - 1` starts in a record of the current layout (or of
    /// a version whose fields are a prefix of it, holding that field), found by stepping over
    /// the fields before it with `skips` (which must all be required); -1 for any other record.
    @inline(__always)
    private func directValueOffset(
        _ value: UnsafeRawBufferPointer, fields: Int,
        _ skips: UnsafeMutableBufferPointer<RecordCodec.ScanLayout.Skip>
    ) -> Int {
        guard let base = value.baseAddress, value.count > 0 else { return -1 }
        let end = value.count
        let first = base.load(as: UInt8.self)
        guard first < 0x80 else { return -1 }
        var bitmapBytes = scanLayout.bitmapBytes
        if !scanLayout.hasCurrentLayout(UInt64(first)) {
            guard first < 64, scanLayout.prefixVersions >> first & 1 != 0 else { return -1 }
            let prefix = Int(scanLayout.prefixes[Int(first)])
            guard fields <= prefix >> 8 else { return -1 }
            bitmapBytes = prefix & 0xFF
        }
        var i = 1
        @inline(__always) func skipVarint() -> Bool { RecordCodec.skipVarint(base, &i, end: end) }
        guard skipVarint() else { return -1 }  // the object version
        i += bitmapBytes
        for f in 0..<fields - 1 {
            guard i < end else { return -1 }
            switch skips[f] {
            case .lengthPrefixed:
                let length = Int(base.load(fromByteOffset: i, as: UInt8.self))
                guard length < 0x80 else { return -1 }
                i += 1 + length
            case .varint: guard skipVarint() else { return -1 }
            case .eight: i += 8
            case .four: i += 4
            case .one: i += 1
            case .sixteen: i += 16
            case .none: break
            }
        }
        return i < end ? i : -1
    }

    /// Adds a match's (one) sort key, where the sort reads it.
    @inline(__always)
    private func appendKey(_ value: AttributeValue) {
        guard integerSort else { return keys.append(value) }
        if case .integer(let key) = value {
            integerKeys.append(key)
        } else {
            nullKeyPositions.append(Int32(candidates.count))
            integerKeys.append(0)
        }
    }

    /// Keeps a match: builds its object, or keeps its bytes.
    @inline(__always)
    private func keep(_ value: UnsafeRawBufferPointer, _ pk: UInt64) throws {
        if let consumer { return try consumer._withUnsafeGuaranteedRef { try $0.visit(value, pk) } }
        if let builder {
            let entry = try builder._withUnsafeGuaranteedRef { try $0.build(value, pk) }
            candidates.append(
                FetchCandidate(primaryKey: pk, live: entry, bytesStart: 0, bytesCount: 0))
            return
        }
        let start = bytes.count
        if keepRecords { bytes.append(contentsOf: value) }
        candidates.append(
            FetchCandidate(primaryKey: pk, live: -1, bytesStart: start, bytesCount: value.count))
    }

    /// Predicates that are not attribute comparisons run on the reused object.
    private func matchesObject(_ value: UnsafeRawBufferPointer, _ pk: UInt64, _ object: AnyObject)
        throws -> Bool
    {
        _ = try binding.load(value, into: object, primaryKey: pk)
        if let objectTest, !(try objectTest(object)) { return false }
        for k in 0..<sortCount { appendKey(binding.read(object, sortAttributes[k])) }
        return true
    }

    /// Records of an older schema version (or damaged ones, which decode reports).
    private func matchesDecoded(_ value: UnsafeRawBufferPointer, _ pk: UInt64) throws -> Bool {
        _ = try binding.codec.decode(value, key: String(pk), only: needed) { i, v in
            scratch[i] = v
        }
        let record = ArrayFilterValues(values: scratch, entity: binding.stored, primaryKey: pk)
        if let filter, !(try filter.evaluate(record)) { return false }
        for k in 0..<sortCount { appendKey(scratch[sortAttributes[k]]) }
        return true
    }
}
