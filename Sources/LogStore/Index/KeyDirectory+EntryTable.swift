#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension KeyDirectory {
    /// The table's memory: one allocation, with transparent huge pages asked for when it is
    /// large (a lookup's first cache miss then costs no TLB walk).
    final class EntryTable: @unchecked Sendable {
        let count: Int
        private let entries: UnsafeMutablePointer<Entry>
        private let bytes: Int

        init(capacity: Int) {
            count = capacity
            bytes = capacity * MemoryLayout<Entry>.stride
            var raw: UnsafeMutableRawPointer?
            if bytes >= Self.hugePage && posix_memalign(&raw, Self.hugePage, bytes) == 0, let raw {
                #if os(Linux)
                    _ = madvise(raw, bytes, MADV_HUGEPAGE)
                #endif
                entries = raw.bindMemory(to: Entry.self, capacity: capacity)
            } else {
                entries = UnsafeMutableRawPointer(malloc(max(bytes, 1))!).bindMemory(
                    to: Entry.self, capacity: capacity)
            }
            entries.initialize(repeating: .empty, count: capacity)
        }

        static let hugePage = 2 << 20

        deinit { free(entries) }

        subscript(slot: Int) -> Entry {
            @inline(__always) get { entries[slot] }
            @inline(__always) set { entries[slot] = newValue }
        }

        @inline(__always)
        func withBuffer<R>(_ body: (UnsafeBufferPointer<Entry>) throws -> R) rethrows -> R {
            try body(UnsafeBufferPointer(start: entries, count: count))
        }

        func copy() -> EntryTable {
            let new = EntryTable(capacity: count)
            new.entries.update(from: entries, count: count)
            return new
        }
    }
}
