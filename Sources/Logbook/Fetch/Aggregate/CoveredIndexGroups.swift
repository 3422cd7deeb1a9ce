import Foundation

/// The groups of an aggregate read from the entries of a covering index (its leading fields
/// the group keys, every function's attribute among its fields), in index order: a group's
/// entries are contiguous, and an entry belongs to the current group exactly when it starts
/// with the group's key bytes (each field's encoding is self-delimiting). So an entry costs
/// one `memcmp`, and the functions' integers and doubles are added from their bytes without
/// building a value. Used by one aggregate on one thread.
final class CoveredIndexGroups {
    /// How a function's field is read from its entry bytes.
    private enum Reading {
        /// An 8-byte integer payload (``IndexKey/integer(_:)``).
        case integer
        /// An 8-byte double payload (doubles, floats, dates' seconds).
        case double
        /// Any other type, through ``IndexKey/decodeField(_:at:type:)``.
        case value
    }

    private(set) var groups = AggregateGroups()
    /// Whether an entry did not decode (the index is damaged: the caller scans instead).
    private(set) var damaged = false
    private let keyCount: Int
    private let types: [AttributeType]
    private let located: Int
    private let positions: [Int]
    private let operations: [AggregateOperation]
    private let readings: [Reading]
    /// Field offsets of the current entry: the keys' set when its group starts, the others
    /// per entry.
    @exclusivity(unchecked) private var offsets: [Int]
    /// The current group: its key bytes, values, object count and accumulators.
    @exclusivity(unchecked) private var key: [UInt8] = []
    @exclusivity(unchecked) private var values: [AttributeValue] = []
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var current: [Accumulator]

    /// For entries whose fields have `types`, the first `keyCount` of them the group keys, and
    /// the functions over fields at `positions`.
    init(
        keyCount: Int, types: [AttributeType], positions: [Int], functions: [AggregatePlan.Function]
    ) {
        self.keyCount = keyCount
        self.types = types
        self.positions = positions
        located = max(keyCount, (positions.max() ?? -1) + 1)
        operations = functions.map(\.operation)
        readings = positions.map { p in
            switch types[p] {
            case let t where AggregateNumber.isSignedStorage(t): .integer
            case .double, .date, .float: .double
            default: .value
            }
        }
        offsets = Array(repeating: 0, count: located + 1)
        current = Array(repeating: Accumulator(), count: functions.count)
    }

    /// Adds one entry; `false` (stop) if it does not decode.
    @inline(__always)
    func add(_ entry: UnsafeRawBufferPointer) -> Bool {
        let known =
            count > 0 && entry.count > key.count
            && key.withUnsafeBytes { memcmp(entry.baseAddress!, $0.baseAddress!, $0.count) == 0 }
        if !known && !start(entry) {
            damaged = true
            return false
        }
        count += 1
        offsets[keyCount] = key.count
        for k in keyCount..<located {
            guard let end = IndexKey.fieldEnd(entry, at: offsets[k], type: types[k]) else {
                damaged = true
                return false
            }
            offsets[k + 1] = end
        }
        for f in 0..<positions.count {
            let at = offsets[positions[f]]
            switch readings[f] {
            case .integer, .double:
                // Invariant: `fieldEnd` stepped over a null tag or a value tag and 8 bytes.
                if IndexKey.isNull(entry, at: at) { continue }
                if case .integer = readings[f] {
                    current[f].add(integer: IndexKey.integerField(entry, at: at), operations[f])
                } else {
                    current[f].add(double: IndexKey.doubleField(entry, at: at), operations[f])
                }
            case .value:
                var offset = at
                guard
                    let value = IndexKey.decodeField(entry, at: &offset, type: types[positions[f]])
                else {
                    damaged = true
                    return false
                }
                current[f].add(value, operations[f])
            }
        }
        return true
    }

    /// Ends the current group and starts the one of `entry`; `false` if its keys do not
    /// decode.
    private func start(_ entry: UnsafeRawBufferPointer) -> Bool {
        finishGroup()
        var offset = 0
        var keyValues: [AttributeValue] = []
        for k in 0..<keyCount {
            offsets[k] = offset
            guard let value = IndexKey.decodeField(entry, at: &offset, type: types[k]) else {
                return false
            }
            keyValues.append(value)
        }
        // The keys' offsets hold for every entry of the group (they start with the same bytes).
        key = Array(UnsafeRawBufferPointer(rebasing: entry[0..<offset]))
        values = keyValues
        return true
    }

    /// Moves the current group into ``groups``.
    private func finishGroup() {
        guard count > 0 else { return }
        let g = groups.group(key, functions: current.count) { values }
        groups.counts[g] += count
        let base = g * current.count
        for f in 0..<current.count {
            groups.accumulators[base + f].merge(
                current[f], operations[f], type: types[positions[f]])
            current[f] = Accumulator()
        }
        count = 0
    }

    /// The groups of every entry added.
    func finish() -> AggregateGroups {
        finishGroup()
        return groups
    }
}
