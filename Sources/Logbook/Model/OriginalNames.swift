import Synchronization

/// The `originalName`s given in `@Attribute(originalName:)` declarations, numbered so that a
/// declaration carries one in the position bits of its ``FieldInfo`` word (free until the field
/// is registered): the wrapper stays the size it is, and every object built for a fetched
/// record pays nothing for it.
enum OriginalNames {
    private static let table = Mutex<(names: [String], numbers: [String: UInt32])>(([""], [:]))

    /// The bits that carry `name` (0, so no name, once 1,023 distinct names were declared:
    /// ``ModelLayout`` then refuses the model rather than lose the rename).
    static func slotBits(of name: String) -> UInt32 {
        table.withLock { table in
            if let number = table.numbers[name] { return number }
            let number = UInt32(table.names.count)
            guard number <= FieldInfo.slotMask else { return overflow }
            table.names.append(name)
            table.numbers[name] = number
            return number
        }
    }

    /// The name the position bits of an unregistered field's `info` carry, or `nil`.
    static func name(inSlotBitsOf info: UInt32) -> String? {
        let number = Int(info & FieldInfo.slotMask)
        guard number != 0 else { return nil }
        return table.withLock { number < $0.names.count ? $0.names[number] : nil }
    }

    /// Bits that no name has: a declaration past the table's capacity.
    private static let overflow: UInt32 = 0
}
