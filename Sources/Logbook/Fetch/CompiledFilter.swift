import Foundation

/// A ``FilterNode`` bound to an entity, prepared for scanning stored records: leaves that
/// compare an attribute with a constant work on the record's bytes (string equality by bytes,
/// integer comparisons on the decoded varint); other leaves decode the values they need.
/// Made once per fetch; evaluation allocates nothing for the prepared leaves.
final class CompiledFilter {
    private enum Node {
        case and(Int, Int)
        case or(Int, Int)
        case not(Int)
        /// Attribute `index` (a string) equals the UTF-8 `bytes` (`negate`: not equal);
        /// `general` indexes the original leaf, used when bytes cannot decide.
        case stringEquals(
            index: Int, bytes: UnsafeRawBufferPointer, ascii: Bool, negate: Bool, general: Int)
        /// Attribute `index` (an integer) compared with `value`.
        case integer(index: Int, op: FilterOperator, value: Int64)
        case general(Int)
    }

    // Invariant: node payloads hold no references, so evaluating copies nothing that counts.
    private var nodes: [Node] = []
    private var generals: [FilterNode] = []
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var root = 0

    init(_ filter: FilterNode, types: [AttributeType]) {
        root = add(filter, types)
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    private func general(_ filter: FilterNode) -> Int {
        generals.append(filter)
        return generals.count - 1
    }

    private func add(_ filter: FilterNode, _ types: [AttributeType]) -> Int {
        let node: Node
        switch filter {
        case .and(let a, let b): node = .and(add(a, types), add(b, types))
        case .or(let a, let b): node = .or(add(a, types), add(b, types))
        case .not(let a): node = .not(add(a, types))
        case .compare(.attribute(let i), let op, .value(.string(let text)), false, false)
        where (op == .equal || op == .notEqual) && types[i] == .string:
            let utf8 = Array(text.utf8)
            let buffer = UnsafeMutableRawBufferPointer.allocate(
                byteCount: max(utf8.count, 1), alignment: 1)
            buffer.copyBytes(from: utf8)
            buffers.append(buffer)
            node = .stringEquals(
                index: i, bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<utf8.count]),
                ascii: utf8.allSatisfy { $0 < 0x80 }, negate: op == .notEqual,
                general: general(filter))
        case .compare(.attribute(let i), let op, .value(.integer(let v)), _, _)
        where types[i] == .integer
            && [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op):
            node = .integer(index: i, op: op, value: v)
        default: node = .general(general(filter))
        }
        nodes.append(node)
        return nodes.count - 1
    }

    /// Whether the located record satisfies the filter.
    /// - Throws: what ``FilterNode/evaluate(_:)`` throws for general leaves.
    @inline(__always)
    func evaluate(_ record: RecordFilterValues) throws -> Bool { try evaluate(root, record) }

    private func evaluate(_ i: Int, _ record: RecordFilterValues) throws -> Bool {
        switch nodes[i] {
        case .and(let a, let b): return try evaluate(a, record) && evaluate(b, record)
        case .or(let a, let b): return try evaluate(a, record) || evaluate(b, record)
        case .not(let a): return try !evaluate(a, record)
        case .stringEquals(let index, let bytes, let ascii, let negate, let general):
            let offset = record.offsets[index]
            if offset < 0 { return negate }
            var r = ByteReader(record.buffer)
            r.offset = offset
            guard let stored = try? r.lengthPrefixed() else {
                return try generals[general].evaluate(record)
            }
            if stored.count == bytes.count
                && (bytes.isEmpty
                    || memcmp(bytes.baseAddress!, stored.baseAddress!, bytes.count) == 0)
            {
                return !negate
            }
            if ascii && !stored.contains(where: { $0 >= 0x80 }) { return negate }
            return try generals[general].evaluate(record)
        case .integer(let index, let op, let value):
            let offset = record.offsets[index]
            if offset < 0 { return op == .notEqual }
            var r = ByteReader(record.buffer)
            r.offset = offset
            guard let stored = try? r.zigzag() else { return false }
            switch op {
            case .equal: return stored == value
            case .notEqual: return stored != value
            case .less: return stored < value
            case .lessOrEqual: return stored <= value
            case .greater: return stored > value
            default: return stored >= value
            }
        case .general(let general):
            return try generals[general].evaluate(record)
        }
    }
}
