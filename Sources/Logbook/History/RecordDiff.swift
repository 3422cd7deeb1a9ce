/// Which stored fields differ between two records of one entity: what a batch update changed in
/// each object, for its save record (``SaveRecord``), found without decoding values.
///
/// Not thread-safe; owns scratch buffers for one batch operation.
final class RecordDiff {
    private let codec: RecordCodec
    private let layout: RecordCodec.ScanLayout
    private let count: Int
    /// Where each field starts in the old and the new record, and where it ends.
    private let starts: UnsafeMutableBufferPointer<Int>
    private let ends: UnsafeMutableBufferPointer<Int>

    init(_ codec: RecordCodec) {
        self.codec = codec
        layout = codec.makeScanLayout()
        count = codec.entity.attributes.count
        starts = .allocate(capacity: max(count, 1) * 2)
        ends = .allocate(capacity: max(count, 1) * 2)
    }

    deinit {
        layout.deallocate()
        starts.deallocate()
        ends.deallocate()
    }

    /// The fields (bit i: stored field i, bit 63: any from 63 on) whose values differ between
    /// `old` and `new`.
    func changedFields(_ old: UnsafeRawBufferPointer, _ new: UnsafeRawBufferPointer) -> UInt64 {
        guard locate(old, at: 0), locate(new, at: count) else { return decodedDifference(old, new) }
        var changed: UInt64 = 0
        for i in 0..<count {
            let (a, b) = (starts[i], starts[count + i])
            if a < 0 && b < 0 { continue }
            if a < 0 || b < 0
                || !UnsafeRawBufferPointer(rebasing: old[a..<ends[i]]).elementsEqual(
                    UnsafeRawBufferPointer(rebasing: new[b..<ends[count + i]]))
            {
                changed |= fieldBit(i)
            }
        }
        return changed
    }

    /// Finds the fields of a record of the current schema version, into the half of the buffers
    /// from `base`; `false` for a record of another version.
    private func locate(_ record: UnsafeRawBufferPointer, at base: Int) -> Bool {
        let half = UnsafeMutableBufferPointer(rebasing: starts[base..<base + count])
        guard count > 0, RecordCodec.locate(record, half, count: count, layout: layout) else {
            return count == 0
        }
        var next = record.count
        for i in stride(from: count - 1, through: 0, by: -1) {
            ends[base + i] = next
            if starts[base + i] >= 0 { next = starts[base + i] }
        }
        return true
    }

    /// The slow path, for a record of an older schema version: decode both and compare.
    private func decodedDifference(_ old: UnsafeRawBufferPointer, _ new: UnsafeRawBufferPointer)
        -> UInt64
    {
        var a = [AttributeValue](repeating: .null, count: count)
        var b = a
        guard (try? codec.decode(old, key: "") { a[$0] = $1 }) != nil,
            (try? codec.decode(new, key: "") { b[$0] = $1 }) != nil
        else { return count >= 64 ? UInt64.max : (1 << UInt64(count)) - 1 }
        var changed: UInt64 = 0
        for i in 0..<count where a[i] != b[i] { changed |= fieldBit(i) }
        return changed
    }
}
