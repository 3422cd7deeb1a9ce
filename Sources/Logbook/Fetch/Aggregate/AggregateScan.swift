import LogStore

/// The groups of an aggregate as its matches come: each group's key values, object count and
/// one ``Accumulator`` per function.
struct AggregateGroups {
    /// Per group: its key values.
    var values: [[AttributeValue]] = []
    /// Per group: its objects.
    var counts: [Int] = []
    /// `functions` accumulators per group, group after group.
    var accumulators: [Accumulator] = []
    /// Groups by their key's index encoding (``IndexKey``: canonical, so equal values, however
    /// they are spelled, share a group).
    var index: [[UInt8]: Int] = [:]
    /// The stored records read to find the groups: 0 when indexes answered.
    var recordsRead = 0

    var count: Int { counts.count }

    /// The group of `key` (its encoding), made with `values()` and `functions` accumulators if
    /// it is new.
    @inline(__always)
    mutating func group(
        _ key: [UInt8], functions: Int, values makeValues: () -> [AttributeValue]
    ) -> Int {
        if let known = index[key] { return known }
        let g = counts.count
        index[key] = g
        values.append(makeValues())
        counts.append(0)
        accumulators.append(contentsOf: repeatElement(Accumulator(), count: functions))
        return g
    }
}

/// Groups an aggregate's matches and accumulates its functions: stored records are read in
/// place, locating only the fields up to the last one the aggregate reads and decoding only
/// those it reads (integers and doubles without building a value); pending objects through
/// their fields. Used by one aggregate on one thread.
final class AggregateScan {
    @exclusivity(unchecked) private(set) var groups = AggregateGroups()
    private let binding: EntityBinding
    private let groupFields: [Int]
    private let functions: [AggregatePlan.Function]
    private let shapes: [ValueShape]
    private let locateCount: Int
    private let offsets: UnsafeMutableBufferPointer<Int>
    private let layout: RecordCodec.ScanLayout
    private let needed: [Bool]
    @exclusivity(unchecked) private var key: [UInt8] = []
    @exclusivity(unchecked) private var scratch: [AttributeValue]

    init(_ plan: AggregatePlan) {
        binding = plan.binding
        groupFields = plan.groups.map(\.storedField)
        functions = plan.functions
        let stored = plan.binding.stored.attributes
        shapes = stored.map { ValueShape($0) }
        let fields = groupFields + plan.functions.map(\.field)
        locateCount = (fields.max() ?? -1) + 1
        offsets = .allocate(capacity: max(locateCount, 1))
        layout = plan.binding.codec.makeScanLayout()
        var needed = [Bool](repeating: false, count: stored.count)
        for f in fields { needed[f] = true }
        self.needed = needed
        scratch = stored.map(\.initialValue)
        key.reserveCapacity(64)
        if groupFields.isEmpty {
            // One group, there even when nothing matches.
            _ = groups.group([], functions: functions.count) { [] }
        }
    }

    deinit {
        offsets.deallocate()
        layout.deallocate()
    }

    /// Adds the stored record of object `pk`.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
    @inline(__always)
    func visit(_ record: UnsafeRawBufferPointer, _ pk: UInt64) throws {
        guard RecordCodec.locate(record, offsets, count: locateCount, layout: layout) else {
            return try visitDecoded(record, pk)
        }
        var g = 0
        if !groupFields.isEmpty {
            key.removeAll(keepingCapacity: true)
            for f in groupFields {
                guard IndexKey.appendField(record, at: offsets[f], shape: shapes[f], to: &key)
                else {
                    return try visitDecoded(record, pk)
                }
            }
            g = groups.group(key, functions: functions.count) {
                groupFields.map { f in value(record, f) }
            }
        }
        groups.counts[g] += 1
        let base = g * functions.count
        for (i, function) in functions.enumerated() {
            let offset = offsets[function.field]
            if offset < 0 { continue }
            var r = ByteReader(record)
            r.offset = offset
            switch function.type {
            case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32:
                guard let v = try? r.zigzag() else { throw binding.codec.corrupt(pk) }
                groups.accumulators[base + i].add(integer: v, function.operation)
            case .double, .date:
                guard let v = try? r.double() else { throw binding.codec.corrupt(pk) }
                groups.accumulators[base + i].add(double: v, function.operation)
            default:
                guard let v = try? r.value(function.type) else { throw binding.codec.corrupt(pk) }
                groups.accumulators[base + i].add(v, function.operation)
            }
        }
    }

    /// The value of field `f` of a located record.
    private func value(_ record: UnsafeRawBufferPointer, _ f: Int) -> AttributeValue {
        guard offsets[f] >= 0 else { return .null }
        var r = ByteReader(record)
        r.offset = offsets[f]
        // Invariant: `locate` stepped over this value and `appendField` decoded it.
        return (try? r.value(shapes[f])) ?? .null
    }

    /// Records of an older schema version (or damaged ones, which decode reports).
    private func visitDecoded(_ record: UnsafeRawBufferPointer, _ pk: UInt64) throws {
        _ = try binding.codec.decode(record, key: String(pk), only: needed) { i, v in
            scratch[i] = v
        }
        add { scratch[$0] }
    }

    /// Adds a pending object.
    func visit(object: AnyObject) {
        add { binding.read(object, $0) }
    }

    /// Adds an object whose stored field `f` has the value `value(f)`.
    private func add(_ value: (Int) -> AttributeValue) {
        var g = 0
        if !groupFields.isEmpty {
            let values = groupFields.map(value)
            key.removeAll(keepingCapacity: true)
            for v in values { IndexKey.append(v, to: &key) }
            g = groups.group(key, functions: functions.count) { values }
        }
        groups.counts[g] += 1
        let base = g * functions.count
        for (i, function) in functions.enumerated() {
            groups.accumulators[base + i].add(value(function.field), function.operation)
        }
    }
}
