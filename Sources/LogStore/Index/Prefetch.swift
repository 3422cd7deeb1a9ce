import CKeyDirectory

/// Cache prefetch hints for the object layer, so that only LogStore touches C.
/// (`@usableFromInline` so that other modules inline `read`: see ``RadixSort``.)
@usableFromInline package enum Prefetch {
    /// Asks the CPU to start loading the cache line holding `address` for reading, without
    /// waiting for it. A hint: it never faults, even on an unmapped or `nil` address.
    @inlinable @inline(__always)
    package static func read(_ address: UnsafeRawPointer?) { logbook_prefetch(address) }
}
