/// The `info` word every ``Attribute`` and ``Relationship`` field carries, and the slow paths its
/// accessors call.
///
/// ```
/// bits  0…9   the field's position among the entity's stored fields (set when registered);
///             until then, an `originalName` given at the declaration (``OriginalNames``)
/// bit     10  declared .searchable
/// bit     11  not fetched: the value is a placeholder until the first read faults it in
///             (``FetchDescriptor/propertiesToFetch``)
/// bit     12  registered: writes are tracked by the table the anchor names
/// bit     13  probe: reads report themselves (key-path resolution)
/// bit     14  declared .indexed        bit 15  declared .unique
/// bits 16…31  byte offset, in the object, of the anchor's `owner` field
/// ```
/// The anchor is the object's first field: only it holds the (strong) reference to the
/// context's ``ObjectTable``, so registering an object costs one reference, whatever its
/// number of fields.
@usableFromInline
enum FieldInfo {
    @usableFromInline static let adopted: UInt32 = 1 << 12
    @usableFromInline static let probe: UInt32 = 1 << 13
    @usableFromInline static let unfetched: UInt32 = 1 << 11
    /// Bits that send a read to ``slowRead(_:info:entry:)``.
    @usableFromInline static let slowReadBits: UInt32 = probe | unfetched
    static let indexed: UInt32 = 1 << 14
    static let unique: UInt32 = 1 << 15
    static let searchable: UInt32 = 1 << 10
    static let slotMask: UInt32 = 0x3FF
    /// Bits set at the declaration, kept when a field is registered or detached.
    static let declared: UInt32 = indexed | unique | searchable
    /// The largest position and anchor offset the word can hold.
    static let maxSlot = Int(slotMask)
    static let maxOffset = Int(UInt16.max)

    @inlinable
    static func bits(of option: AttributeOption) -> UInt32 {
        switch option {
        case .indexed: 1 << 14
        case .unique: 1 << 15
        case .searchable: 1 << 10
        }
    }

    @usableFromInline static func slot(_ info: UInt32) -> Int { Int(info & 0x3FF) }

    static func options(_ info: UInt32) -> Set<AttributeOption> {
        var result = Set<AttributeOption>()
        if info & indexed != 0 { result.insert(.indexed) }
        if info & unique != 0 { result.insert(.unique) }
        if info & searchable != 0 { result.insert(.searchable) }
        return result
    }

    /// The word of a field registered at `slot`, with its anchor at `anchorOffset`.
    static func registered(_ info: UInt32, slot: Int, anchorOffset: Int, probe: Bool) -> UInt32 {
        (info & declared) | UInt32(slot) | adopted | (probe ? Self.probe : 0)
            | UInt32(anchorOffset) << 16
    }

    /// The table the object's anchor names, without retaining it.
    @inline(__always)
    static func table(_ object: AnyObject, _ info: UInt32) -> Unmanaged<ObjectTable>? {
        let base = unsafeBitCast(object, to: UnsafeRawPointer.self)
        guard let raw = (base + Int(info >> 16)).load(as: UnsafeRawPointer?.self) else {
            return nil
        }
        return Unmanaged<ObjectTable>.fromOpaque(raw)
    }

    /// Called by a registered field's setter before the value changes.
    @usableFromInline @inline(never)
    static func willChange(_ object: AnyObject, info: UInt32, entry: Int32) {
        table(object, info)?._withUnsafeGuaranteedRef {
            $0.willChange(entry, slot: slot(info), object: object)
        }
    }

    /// Called by a getter whose field is a probe's or not fetched yet: records which field a
    /// probe read, or has the table fault the object's unfetched values in.
    @usableFromInline @inline(never)
    static func slowRead(_ object: AnyObject, info: UInt32, entry: Int32) {
        table(object, info)?._withUnsafeGuaranteedRef { table in
            if info & probe != 0 { table.probe?.note(slot: slot(info), keyPath: nil) }
            if info & unfetched != 0 { table.fulfill(entry, object) }
        }
    }

    /// Called by a probe object's getter: records which field was read.
    @usableFromInline @inline(never)
    static func noteProbe(_ object: AnyObject, info: UInt32, slot: Int, keyPath: AnyKeyPath) {
        table(object, info)?._withUnsafeGuaranteedRef {
            $0.probe?.note(slot: slot, keyPath: keyPath)
        }
    }
}
