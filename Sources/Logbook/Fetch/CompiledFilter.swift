import Foundation

/// A ``FilterNode`` bound to an entity, prepared for scanning stored records: leaves that
/// compare an attribute with a constant work on the record's bytes (string equality by bytes,
/// integer comparisons on the decoded varint); other leaves decode the values they need.
///
/// Made once per fetch and immutable; evaluation allocates nothing and counts no references
/// for the prepared leaves (the tree and the constants' bytes are raw buffers).
final class CompiledFilter {
    private enum Node {
        case constant(Bool)
        case and(Int32, Int32)
        case or(Int32, Int32)
        case not(Int32)
        /// Attribute `index` (a string) equals the UTF-8 bytes at `start..<start+count` of the
        /// constants (`negate`: not equal); `general` is the original leaf, for when bytes
        /// cannot decide.
        case stringEquals(
            index: Int32, start: Int32, count: Int32, ascii: Bool, negate: Bool, general: Int32)
        /// Attribute `index` (an integer) compared with `value`.
        case integer(index: Int32, op: IntegerTest, value: Int64)
        case general(Int32)
    }

    fileprivate enum IntegerTest: UInt8 {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

        /// Whether `stored` compares with `value` so.
        @inline(__always)
        func holds(_ stored: Int64, _ value: Int64) -> Bool {
            switch self {
            case .equal: return stored == value
            case .notEqual: return stored != value
            case .less: return stored < value
            case .lessOrEqual: return stored <= value
            case .greater: return stored > value
            case .greaterOrEqual: return stored >= value
            }
        }
    }

    private let nodes: UnsafeMutableBufferPointer<Node>
    private let constants: UnsafeMutableRawBufferPointer
    private let generals: [FilterNode]
    private let root: Int
    /// Set when the whole filter is one string (in)equality leaf or one integer comparison: a
    /// scan tests it on the record's bytes before it locates the other fields (``RecordScan``).
    let leaf: Leaf?

    /// What a ``Leaf`` test on one record's bytes decided.
    enum Outcome { case fails, holds, undecided }

    /// A filter that is one `attribute == constant` (or `!=`) on a string, or one comparison of
    /// an integer attribute with a constant: its answer from the record's bytes, exactly as
    /// ``evaluate(_:)`` gives it, or `undecided` where only the general leaf (which compares
    /// canonically equal strings) or the full decode (a damaged value) can answer.
    struct Leaf {
        let attribute: Int
        let constant: UnsafeRawPointer
        let count: Int
        let ascii: Bool
        let negate: Bool
        /// Set for an integer comparison (the string fields are then unused).
        fileprivate let integer: (op: IntegerTest, value: Int64)?

        /// The test on the value at `offset` of `buffer` (-1: `null`).
        @inline(__always)
        func test(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> Outcome {
            if let integer { return Self.test(buffer, at: offset, integer.op, integer.value) }
            if offset < 0 { return negate ? .holds : .fails }
            guard let stored = RecordFilterValues.lengthPrefixed(buffer, at: offset) else {
                return .undecided
            }
            if stored.count == count
                && CompiledFilter.equalBytes(constant, stored.baseAddress, count)
            {
                return negate ? .fails : .holds
            }
            // An ASCII constant and a value whose first byte is another ASCII character differ:
            // that byte starts the value's normalized form too (nothing reorders before a
            // starter, and what it composes into is not ASCII).
            if ascii && count > 0 && stored.count > 0 {
                let first = stored.load(as: UInt8.self)
                if first < 0x80 && first != constant.load(as: UInt8.self) {
                    return negate ? .holds : .fails
                }
            }
            if ascii && CompiledFilter.isASCII(stored, within: buffer) {
                return negate ? .holds : .fails
            }
            return .undecided
        }

        /// The integer comparison on the value at `offset` (-1: `null`), as ``evaluate(_:)``
        /// answers it; `undecided` for a value that does not decode.
        @inline(__always)
        private static func test(
            _ buffer: UnsafeRawBufferPointer, at offset: Int, _ op: IntegerTest, _ value: Int64
        ) -> Outcome {
            if offset < 0 { return op == .notEqual ? .holds : .fails }
            guard let stored = RecordFilterValues.zigzag(buffer, at: offset) else {
                return .undecided
            }
            return op.holds(stored, value) ? .holds : .fails
        }
    }

    init(_ filter: FilterNode, types: [AttributeType]) {
        var builder = Builder(types: types)
        root = builder.add(filter)
        nodes = .allocate(capacity: max(builder.nodes.count, 1))
        _ = nodes.initialize(from: builder.nodes)
        constants = .allocate(byteCount: max(builder.constants.count, 1), alignment: 1)
        constants.copyBytes(from: builder.constants)
        generals = builder.generals
        switch nodes[root] {
        case .stringEquals(let index, let start, let count, let ascii, let negate, _):
            leaf = Leaf(
                attribute: Int(index),
                constant: UnsafeRawPointer(constants.baseAddress!) + Int(start),
                count: Int(count), ascii: ascii, negate: negate, integer: nil)
        case .integer(let index, let op, let value):
            leaf = Leaf(
                attribute: Int(index), constant: UnsafeRawPointer(constants.baseAddress!),
                count: 0, ascii: true, negate: false, integer: (op, value))
        default:
            leaf = nil
        }
    }

    deinit {
        nodes.deallocate()
        constants.deallocate()
    }

    private struct Builder {
        let types: [AttributeType]
        var nodes: [Node] = []
        var constants: [UInt8] = []
        var generals: [FilterNode] = []

        mutating func general(_ filter: FilterNode) -> Int32 {
            generals.append(filter)
            return Int32(generals.count - 1)
        }

        mutating func add(_ filter: FilterNode) -> Int {
            let node: Node
            switch filter {
            case .constant(let b): node = .constant(b)
            case .and(let a, let b): node = .and(Int32(add(a)), Int32(add(b)))
            case .or(let a, let b): node = .or(Int32(add(a)), Int32(add(b)))
            case .not(let a): node = .not(Int32(add(a)))
            case .compare(.attribute(let i), let op, .value(.string(let text)), false, false)
            where (op == .equal || op == .notEqual) && types[i] == .string:
                let utf8 = Array(text.utf8)
                let start = constants.count
                constants.append(contentsOf: utf8)
                node = .stringEquals(
                    index: Int32(i), start: Int32(start), count: Int32(utf8.count),
                    ascii: utf8.allSatisfy { $0 < 0x80 }, negate: op == .notEqual,
                    general: general(filter))
            case .compare(.attribute(let i), let op, .value(.integer(let v)), _, _)
            where types[i].isInteger:
                let test: IntegerTest? =
                    switch op {
                    case .equal: .equal
                    case .notEqual: .notEqual
                    case .less: .less
                    case .lessOrEqual: .lessOrEqual
                    case .greater: .greater
                    case .greaterOrEqual: .greaterOrEqual
                    default: nil
                    }
                node =
                    test.map { .integer(index: Int32(i), op: $0, value: v) }
                    ?? .general(general(filter))
            default: node = .general(general(filter))
            }
            nodes.append(node)
            return nodes.count - 1
        }
    }

    /// Whether `count` bytes at `a` and `b` are equal: 8 bytes a step for short constants
    /// (attribute values are short), `memcmp` for long ones.
    @inline(__always)
    fileprivate static func equalBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer?, _ count: Int)
        -> Bool
    {
        guard count > 0, let b else { return true }
        if count > 32 { return memcmp(a, b, count) == 0 }
        var i = 0
        while i + 8 <= count {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < count {
            if a.load(fromByteOffset: i, as: UInt8.self)
                != b.load(fromByteOffset: i, as: UInt8.self)
            {
                return false
            }
            i += 1
        }
        return true
    }

    /// Whether every byte is below 0x80, eight at a time (a scan tests every record's string).
    @inline(__always)
    fileprivate static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        while i + 8 <= count {
            if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return false
            }
            i += 8
        }
        while i < count {
            if base.load(fromByteOffset: i, as: UInt8.self) >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// As ``isASCII(_:)`` for bytes inside `buffer`: a tail under eight bytes is tested with one
    /// load that ends where they end, when that load stays inside `buffer`.
    @inline(__always)
    fileprivate static func isASCII(
        _ bytes: UnsafeRawBufferPointer, within buffer: UnsafeRawBufferPointer
    ) -> Bool {
        guard let base = bytes.baseAddress, let start = buffer.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        while i + 8 <= count {
            if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return false
            }
            i += 8
        }
        let tail = count - i
        if tail == 0 { return true }
        guard base + count - 8 >= start else { return isASCII(bytes) }
        // The last eight bytes ending at the string's end; its tail is their highest bytes.
        let word = UInt64(littleEndian: (base + count - 8).loadUnaligned(as: UInt64.self))
        return word >> UInt64(8 * (8 - tail)) & 0x8080_8080_8080_8080 >> UInt64(8 * (8 - tail)) == 0
    }

    /// Whether the located record satisfies the filter.
    /// - Throws: what ``FilterNode/evaluate(_:)`` throws for general leaves.
    @inline(__always)
    func evaluate(_ record: RecordFilterValues) throws -> Bool { try evaluate(root, record) }

    private func evaluate(_ i: Int, _ record: RecordFilterValues) throws -> Bool {
        switch nodes[i] {
        case .constant(let b): return b
        case .and(let a, let b): return try evaluate(Int(a), record) && evaluate(Int(b), record)
        case .or(let a, let b): return try evaluate(Int(a), record) || evaluate(Int(b), record)
        case .not(let a): return try !evaluate(Int(a), record)
        case .stringEquals(let index, let start, let count, let ascii, let negate, let general):
            let offset = record.offsets[Int(index)]
            if offset < 0 { return negate }
            guard let stored = RecordFilterValues.lengthPrefixed(record.buffer, at: offset) else {
                return try generals[Int(general)].evaluate(record)
            }
            if stored.count == Int(count)
                && Self.equalBytes(
                    constants.baseAddress! + Int(start), stored.baseAddress, Int(count))
            {
                return !negate
            }
            if ascii && Self.isASCII(stored) { return negate }
            return try generals[Int(general)].evaluate(record)
        case .integer(let index, let op, let value):
            let offset = record.offsets[Int(index)]
            if offset < 0 { return op == .notEqual }
            guard let stored = RecordFilterValues.zigzag(record.buffer, at: offset) else {
                return false
            }
            return op.holds(stored, value)
        case .general(let general):
            return try generals[Int(general)].evaluate(record)
        }
    }
}
