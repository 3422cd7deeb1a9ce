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
        /// Set for a mapped table: drops pages from memory (`madvise(MADV_DONTNEED)`).
        private let dropPages: ((UnsafeMutableRawPointer, Int) -> Void)?
        /// Whether the table is a key directory file's mapping that nothing has written since:
        /// its pages may then be dropped from memory, and come back from the file when touched.
        /// (A write makes a page this process's own; dropping it would lose the write.)
        /// Invariant: cleared (by ``noteWritten()``) before any entry of a mapped table changes.
        private(set) var isUnwrittenMapping: Bool

        /// A table of `capacity` entries already in `memory` (a key directory file's, mapped
        /// copy-on-write), which `unmap` releases when the table goes, and whose pages
        /// `dropPages(start, length)` drops from memory.
        init(
            capacity: Int, memory: UnsafeMutableRawPointer,
            dropPages: @escaping (UnsafeMutableRawPointer, Int) -> Void,
            unmap: @escaping (UnsafeMutableRawPointer) -> Void
        ) {
            count = capacity
            bytes = capacity * MemoryLayout<Entry>.stride
            entries = memory.bindMemory(to: Entry.self, capacity: capacity)
            self.unmap = unmap
            self.dropPages = dropPages
            isUnwrittenMapping = true
        }

        /// Whether the table is a key directory file's mapping (not memory of its own).
        var isMapped: Bool { unmap != nil }

        /// Writes to a mapped table so far (counted by ``shouldMoveToOwnMemory()``).
        private var mappedWrites = 0

        /// Called before an entry changes in place.
        @inline(__always) func noteWritten() { isUnwrittenMapping = false }

        /// Called before each write: whether this table, a key directory file's mapping, has
        /// taken enough writes that its owner should copy it into memory of its own
        /// (``copy()``). The mapping is private: the first write to each of its pages costs a
        /// page fault that copies the page, and writes at random slots reach a new page almost
        /// every time. A few such faults cost less than copying the table; after writes to an
        /// eighth of its pages, the copy costs less than the faults still to come. Always
        /// `false` for a table in memory of its own.
        @inline(__always) func shouldMoveToOwnMemory() -> Bool {
            guard isMapped else { return false }
            mappedWrites &+= 1
            return mappedWrites > writesBeforeMoving
        }

        /// How many writes a mapped table takes before it moves into memory of its own.
        var writesBeforeMoving: Int { bytes / KeyDirectoryFile.pageSize / 8 }

        /// Drops the whole pages below slot `slot` from memory if the table is an unwritten
        /// mapping (a walk over the table keeps only what it is reading); otherwise nothing.
        func releasePages(below slot: Int) {
            guard isUnwrittenMapping, let dropPages else { return }
            let length = (min(slot, count) * MemoryLayout<Entry>.stride) & ~4095
            if length > 0 { dropPages(UnsafeMutableRawPointer(entries), length) }
        }

        /// The table's bytes (for writing it to a key directory file).
        var rawBytes: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: entries, count: bytes)
        }

        init(capacity: Int) {
            unmap = nil
            dropPages = nil
            isUnwrittenMapping = false
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

        /// The entries, for a holder of the table that keeps it alive while it reads them
        /// (``KeyDirectory``): valid as long as the table lives.
        var borrowedEntries: UnsafeBufferPointer<Entry> {
            UnsafeBufferPointer(start: entries, count: count)
        }

        @inline(__always)
        func withBuffer<R, E: Error>(
            _ body: (UnsafeBufferPointer<Entry>) throws(E) -> R
        ) throws(E) -> R {
            try body(borrowedEntries)
        }

        /// A copy in memory of its own. Copying a mapping that nothing wrote reads all of it;
        /// its pages are dropped again behind the copy (they stay in the page cache), so the
        /// copy does not hold the table twice.
        func copy() -> EntryTable {
            let new = EntryTable(capacity: count)
            let step = WalkPageRelease.step / MemoryLayout<Entry>.stride
            var start = 0
            while start < count {
                let n = Swift.min(step, count - start)
                (new.entries + start).update(from: entries + start, count: n)
                start += n
                releasePages(below: start)
            }
            return new
        }
    }
}
