/// The stored fields of a class object as raw bits, to tell cheaply which fields a piece of app
/// code changed (a batch update's `set` closure) without decoding or encoding anything.
///
/// Not thread-safe; one snapshot buffer per batch operation.
struct FieldSnapshot {
    /// Two words per stored field: a `String`'s bits, or a number's bits in the first word.
    private var words: [UInt64]
    let binding: EntityBinding
    /// Whether every stored field is of a kind compared by its bits (else ``changedFields``
    /// cannot answer).
    let isAvailable: Bool

    init(_ binding: EntityBinding) {
        self.binding = binding
        words = Array(repeating: 0, count: max(binding.kinds.count, 1) * 2)
        isAvailable =
            binding.layout != nil && binding.kinds.count == binding.stored.attributes.count
            && binding.kinds.allSatisfy { $0 != .other && $0 != .toOne }
    }

    /// Takes the bits of `object`'s stored fields.
    mutating func take(_ object: AnyObject) {
        guard isAvailable else { return }
        let base = binding.base(object)
        for i in 0..<binding.kinds.count {
            let raw = base + binding.valueOffsets[i]
            switch binding.kinds[i] {
            case .string:
                words[2 * i] = raw.loadUnaligned(as: UInt64.self)
                words[2 * i + 1] = (raw + 8).loadUnaligned(as: UInt64.self)
            case .int64, .int, .double: words[2 * i] = raw.loadUnaligned(as: UInt64.self)
            case .bool: words[2 * i] = UInt64(raw.load(as: UInt8.self))
            case .other, .toOne, .composite: break
            }
        }
    }

    /// The fields (bit i: stored field i, bit 63: any from 63 on) whose bits differ from the
    /// ones taken; `nil` if the snapshot is not available. A string given new storage with the
    /// same contents counts as changed, as an assignment of an equal value does at a save.
    func changedFields(_ object: AnyObject) -> UInt64? {
        guard isAvailable else { return nil }
        let base = binding.base(object)
        var changed: UInt64 = 0
        for i in 0..<binding.kinds.count {
            let raw = base + binding.valueOffsets[i]
            let differs: Bool
            switch binding.kinds[i] {
            case .string:
                differs =
                    words[2 * i] != raw.loadUnaligned(as: UInt64.self)
                    || words[2 * i + 1] != (raw + 8).loadUnaligned(as: UInt64.self)
            case .int64, .int, .double: differs = words[2 * i] != raw.loadUnaligned(as: UInt64.self)
            case .bool: differs = words[2 * i] != UInt64(raw.load(as: UInt8.self))
            case .other, .toOne, .composite: differs = true
            }
            if differs { changed |= fieldBit(i) }
        }
        return changed
    }
}
