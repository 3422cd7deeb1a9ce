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
        /// Set for a table mapped from a key directory file: how to let its memory go.
        private let unmap: ((UnsafeMutableRawPointer) -> Void)?

        /// A table of `capacity` entries already in `memory` (a key directory file's, mapped copy-on-write),
        /// which `unmap` releases when the table goes.
        init(
            capacity: Int, memory: UnsafeMutableRawPointer,
            unmap: @escaping (UnsafeMutableRawPointer) -> Void
        ) {
            count = capacity
            bytes = capacity * MemoryLayout<Entry>.stride
            entries = memory.bindMemory(to: Entry.self, capacity: capacity)
            self.unmap = unmap
        }

        /// The table's bytes (for writing it to a key directory file).
        var rawBytes: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: entries, count: bytes)
        }

        init(capacity: Int) {
            unmap = nil
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

        deinit {
            if let unmap { unmap(UnsafeMutableRawPointer(entries)) } else { free(entries) }
        }

        subscript(slot: Int) -> Entry {
            @inline(__always) get { entries[slot] }
            @inline(__always) set { entries[slot] = newValue }
        }

        @inline(__always)
        func withBuffer<R, E: Error>(
            _ body: (UnsafeBufferPointer<Entry>) throws(E) -> R
        ) throws(E) -> R {
            try body(UnsafeBufferPointer(start: entries, count: count))
        }

        func copy() -> EntryTable {
            let new = EntryTable(capacity: count)
            new.entries.update(from: entries, count: count)
            return new
        }
    }
}
