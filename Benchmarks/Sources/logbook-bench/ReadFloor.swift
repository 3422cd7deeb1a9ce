import Foundation

/// `readrandom` without the engine: the same keys, values and loop (keys written per get into
/// one buffer, each value checksummed), over two bare in-memory layouts and over no lookup at
/// all. It shows how fast a point read of this shape can be on the machine, whatever the
/// engine does around it:
/// - `two-miss`: LogStore's layout. A hash table of (hash, offset) entries, then the record
///   the entry points at: two cache misses, one after the other.
/// - `one-miss`: records grouped by hash bucket, with an array of bucket offsets small enough
///   to stay in the core's cache, and the whole bucket loaded at once: one round trip to memory.
///   A different file format (records in hash order), measured only here.
/// - `loop-only`: no lookup, the same value every time: what the loop itself costs.
enum ReadFloor {
    static var workload: Workload {
        Workload(
            name: "readrandom-floor", group: "engine",
            summary: "readrandom's loop over bare in-memory layouts, without the engine"
        ) { context in
            let n = context.sizes.keys
            let layouts = Layouts(keys: n, valueSize: context.sizes.valueSize)
            defer { layouts.deallocate() }
            let runs: [(String, String, (UnsafeRawBufferPointer) -> UnsafeRawBufferPointer?)] = [
                (
                    "two-miss", "table entry, then the record (LogStore's layout)",
                    layouts.twoMiss
                ),
                (
                    "one-miss", "records grouped by hash bucket, the bucket loaded at once",
                    layouts.oneMiss
                ),
                ("loop-only", "the same value every time: the loop's own cost", layouts.first),
            ]
            for (name, summary, read) in runs {
                var best = Double.infinity
                for _ in 0..<3 {
                    var rng = SeededGenerator(seed: Seed.access)
                    var key = BenchKey.make(0)
                    var pass = Checksum()
                    let seconds = measure {
                        for _ in 0..<n {
                            BenchKey.write(rng.id(upTo: n), into: &key)
                            key.withUnsafeBytes { key in
                                if let value = read(key) { pass.add(value: value) }
                            }
                        }
                    }
                    try context.expect(
                        "readrandom-floor-\(name)", "machine", "values found", pass.records,
                        equals: n)
                    best = min(best, seconds)
                }
                // A workload name each: RESULTS.md shows one figure a workload.
                context.reporter.figure(
                    "readrandom-floor-\(name)", engine: "machine", value: best * 1e9 / Double(n),
                    unit: "ns a get, best of 3 passes: \(summary), no engine")
            }
        }
    }

    /// Both layouts of the records of ids 1...keys (``BenchKey`` keys, values from
    /// ``valuePool``), in memory of their own.
    final class Layouts {
        /// A record: key length, value length (one byte each), key, value.
        private let recordSize: Int
        private let keySize = BenchKey.size
        private let records: UnsafeMutableRawPointer
        /// (hash, record offset) pairs; an offset of `UInt32.max` marks an empty slot.
        private let table: UnsafeMutablePointer<(hash: UInt32, offset: UInt32)>
        private let tableMask: Int
        /// The records again, bucket by bucket (a bucket: the keys of one hash prefix).
        private let bucketed: UnsafeMutableRawPointer
        /// Where each bucket starts in `bucketed`, and one more entry for the end.
        private let bucketStarts: UnsafeMutablePointer<UInt32>
        private let bucketShift: UInt32
        /// What ``oneMiss(_:)`` read ahead, kept so that the reads are not optimised away (a
        /// pointer: a stored property would cost an exclusivity check a get).
        private let sink = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

        init(keys: Int, valueSize: Int) {
            recordSize = 2 + BenchKey.size + valueSize
            records = .allocate(byteCount: keys * recordSize, alignment: 64)
            bucketed = .allocate(byteCount: keys * recordSize, alignment: 64)
            var capacity = 16
            while capacity / 4 * 3 < keys { capacity <<= 1 }
            tableMask = capacity - 1
            table = .allocate(capacity: capacity)
            table.initialize(repeating: (0, UInt32.max), count: capacity)
            // About eight records a bucket: the bucket offsets take half a byte a key.
            var bits: UInt32 = 4
            while 1 << (bits + 3) < keys { bits += 1 }
            bucketShift = 32 - bits
            let buckets = 1 << bits
            bucketStarts = .allocate(capacity: buckets + 1)
            bucketStarts.initialize(repeating: 0, count: buckets + 1)
            sink.initialize(to: 0)

            var rng = SeededGenerator(seed: Seed.data)
            var value = [UInt8](repeating: 0, count: valueSize)
            var hashes = [UInt32](repeating: 0, count: keys)
            for index in 0..<keys {
                let record = records + index * recordSize
                record.storeBytes(of: UInt8(keySize), as: UInt8.self)
                record.storeBytes(of: UInt8(valueSize), toByteOffset: 1, as: UInt8.self)
                let key = BenchKey.make(index + 1)
                key.withUnsafeBytes {
                    (record + 2).copyMemory(from: $0.baseAddress!, byteCount: keySize)
                }
                valuePool.fill(&value, using: &rng)
                value.withUnsafeBytes {
                    (record + 2 + keySize).copyMemory(from: $0.baseAddress!, byteCount: valueSize)
                }
                let hash = key.withUnsafeBytes { Self.hash($0) }
                hashes[index] = hash
                var slot = Int(hash) & tableMask
                while table[slot].offset != UInt32.max { slot = (slot + 1) & tableMask }
                table[slot] = (hash, UInt32(index * recordSize))
                bucketStarts[Int(hash >> bucketShift) + 1] += UInt32(recordSize)
            }
            for bucket in 0..<buckets { bucketStarts[bucket + 1] += bucketStarts[bucket] }
            var filled = Array(UnsafeBufferPointer(start: bucketStarts, count: buckets))
            for index in 0..<keys {
                let bucket = Int(hashes[index] >> bucketShift)
                (bucketed + Int(filled[bucket])).copyMemory(
                    from: records + index * recordSize, byteCount: recordSize)
                filled[bucket] += UInt32(recordSize)
            }
        }

        func deallocate() {
            records.deallocate()
            bucketed.deallocate()
            table.deallocate()
            bucketStarts.deallocate()
            sink.deallocate()
        }

        /// The first record's value, whatever `key` is: no lookup.
        func first(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
            UnsafeRawBufferPointer(start: records + 2 + keySize, count: recordSize - 2 - keySize)
        }

        /// The value of `key` through the hash table.
        func twoMiss(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
            let hash = Self.hash(key)
            var slot = Int(hash) & tableMask
            while table[slot].offset != UInt32.max {
                if table[slot].hash == hash,
                    let value = match(records + Int(table[slot].offset), key)
                {
                    return value
                }
                slot = (slot + 1) & tableMask
            }
            return nil
        }

        /// The value of `key` through its bucket.
        func oneMiss(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
            let bucket = Int(Self.hash(key) >> bucketShift)
            var record = bucketed + Int(bucketStarts[bucket])
            let end = bucketed + Int(bucketStarts[bucket + 1])
            // Touch every line of the bucket first: the loads do not depend on each other, so
            // the lines are fetched together.
            var line = UnsafeMutableRawPointer(bitPattern: Int(bitPattern: record) & ~63)!
            var touched: UInt8 = 0
            while line < end {
                touched ^= line.load(as: UInt8.self)
                line += 64
            }
            sink.pointee ^= touched
            while record < end {
                if let value = match(record, key) { return value }
                record += recordSize
            }
            return nil
        }

        /// The value of the record at `record` if its key is `key`.
        @inline(__always)
        private func match(_ record: UnsafeMutableRawPointer, _ key: UnsafeRawBufferPointer)
            -> UnsafeRawBufferPointer?
        {
            let keyLength = Int(record.load(as: UInt8.self))
            guard keyLength == key.count, memcmp(record + 2, key.baseAddress!, keyLength) == 0
            else { return nil }
            let valueLength = Int(record.load(fromByteOffset: 1, as: UInt8.self))
            return UnsafeRawBufferPointer(start: record + 2 + keyLength, count: valueLength)
        }

        /// A hash of a ``BenchKey`` (12 bytes): its two words mixed with one multiply. No
        /// dearer than LogStore's hash, so the figures stay a floor.
        @inline(__always)
        static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
            let low = key.loadUnaligned(as: UInt64.self)
            let high = UInt64(key.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            var h = (low ^ high &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 32
            return UInt32(truncatingIfNeeded: h)
        }
    }
}
