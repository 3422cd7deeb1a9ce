/// A peer read through a walk in key order (an LMDB cursor, a LevelDB or RocksDB iterator):
/// the full scan, YCSB's range scan and, where the engine keeps no count, the count are that
/// walk from the first key or from a given one.
protocol KeyOrderWalk: KeyValueEngine {
    /// Calls `body` with each record in key order from the first key, or from the first key at
    /// or after `key`, while it returns `true`.
    func walk(
        from key: UnsafeRawBufferPointer?,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
    ) throws
}

extension KeyOrderWalk {
    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws {
        try walk(from: nil) { key, value in
            body(key, value)
            return true
        }
    }

    func scan(from first: Int, count: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        var left = count
        try BenchKey.make(first).withUnsafeBytes { key in
            try walk(from: key) { _, value in
                body(value)
                left -= 1
                return left > 0
            }
        }
    }

    /// Every key visited, for engines that keep no count.
    func count() throws -> Int {
        var records = 0
        try walk(from: nil) { _, _ in
            records += 1
            return true
        }
        return records
    }
}
