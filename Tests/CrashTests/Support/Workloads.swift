import Foundation
import LogStore
import TestSupport

/// A named sequence of store operations whose system calls the crash tests record.
struct Workload: Sendable, CustomStringConvertible {
    var name: String
    var segmentSize = 1 << 20
    /// Whether the store does work in the background (automatic compaction), so that its trace
    /// interleaves calls no acknowledgement depends on.
    var background = false
    /// Builds (without recording) the store the recorded part starts from.
    var prepare: (@Sendable (WorkloadDriver) throws -> Void)?
    /// The recorded part.
    var run: @Sendable (WorkloadDriver) throws -> Void

    var description: String { name }

    static let all: [Workload] = [
        singlePuts, batches, deletes, segmentRolls, compaction, buffered, recoveryOfTornTail,
        recoveryOfHalfCreatedSegment, reopenCycles, automaticCompaction, streamingCommit,
        cancelledStreamingCommit, keyDirectoryFile, zeroTail,
    ]

    /// Durable puts that extend the segment with zeros (512 bytes at a time, from the second
    /// durable group on) and overwrite them, a roll (the extension stops at the segment size,
    /// so the sealed segment keeps no zeros), a close (the zeros stay), a reopen that appends
    /// over them, and a compaction that seals a segment with its zeros and removes it.
    static let zeroTail = Workload(name: "zero tail", segmentSize: 1500) { d in
        d.zeroTail = ZeroTailPolicy(step: 512, afterDurableGroups: 1)
        try d.open()
        for i in 0..<24 { try d.put("k\(i % 9)", size: 60) }
        try d.close()
        try d.open()
        for i in 0..<4 { try d.put("j\(i)", size: 60) }
        try d.delete("k2")
        try d.compact()
        try d.put("after", size: 60)
        try d.close()
    }

    /// Clean closes that write the key directory file, opens that map it (then write, roll
    /// segments and compact past it), and a close with nothing new that leaves it as it is.
    static let keyDirectoryFile = Workload(name: "key directory file", segmentSize: 300) { d in
        d.keyDirectoryFile = true
        try d.open()
        for i in 0..<8 { try d.put("k\(i % 5)", size: 40) }
        try d.close()
        try d.open()
        try d.delete("k1")
        try d.put("k6", in: "b", size: 40)
        try d.put("k3", size: 40)
        try d.close()
        try d.open()
        try d.compact()
        try d.put("k2", size: 40)
        try d.close()
        try d.open()
        try d.close()
    }

    /// Creating the store, then single-record `.sync` puts, some overwriting.
    static let singlePuts = Workload(name: "single puts") { d in
        try d.open()
        for i in 0..<10 { try d.put("k\(i % 6)") }
        try d.close()
    }

    /// Batches of 1, 10 and 1,000 records (the last spans two frames).
    static let batches = Workload(name: "batches of 1, 10, 1000") { d in
        try d.open()
        try d.commit([.put(keyspace: "a", key: "one", value: d.value(10))])
        try d.commit((0..<10).map { .put(keyspace: "a", key: "ten\($0)", value: d.value(30)) })
        try d.commit(
            (0..<1000).map { .put(keyspace: "b", key: "big\($0)", value: d.value(70)) })
        try d.commit((0..<10).map { .put(keyspace: "b", key: "big\($0 * 7)", value: d.value(5)) })
        try d.close()
    }

    /// Deletes alone and mixed with puts, across two keyspaces, and of missing keys.
    static let deletes = Workload(name: "deletes") { d in
        try d.open()
        try d.commit(
            (0..<20).map {
                .put(keyspace: $0 % 2 == 0 ? "a" : "b", key: "k\($0)", value: d.value(16))
            })
        try d.delete("k0")
        try d.delete("k1", in: "b")
        try d.commit([
            .delete(keyspace: "a", key: "k2"), .put(keyspace: "a", key: "k0", value: d.value(8)),
            .delete(keyspace: "b", key: "k3"), .delete(keyspace: "b", key: "missing"),
        ])
        try d.delete("never-there")
        try d.close()
    }

    /// A segment size so small that nearly every commit starts a new segment.
    static let segmentRolls = Workload(name: "segment rolls", segmentSize: 200) { d in
        try d.open()
        for i in 0..<14 {
            if i % 5 == 4 {
                try d.delete("k\(i - 2)")
            } else {
                try d.put("k\(i % 7)", size: 40)
            }
        }
        try d.close()
    }

    /// Overwrites and deletes in several segments, compaction, more writes, compaction again.
    static let compaction = Workload(name: "compaction", segmentSize: 300) { d in
        try d.open()
        for i in 0..<18 {
            if i % 4 == 3 {
                try d.delete("k\((i * 5) % 6)")
            } else {
                try d.put("k\(i % 6)", in: i % 3 == 0 ? "b" : "a", size: 30)
            }
        }
        try d.compact()
        try d.put("after1", size: 30)
        try d.delete("k1")
        try d.delete("k2", in: "b")
        try d.put("after2", in: "b", size: 30)
        try d.compact()
        try d.put("after3")
        try d.close()
    }

    /// Close and open again and again: hint files written at close and read at open, sealed
    /// segments with hints, compaction of them.
    static let reopenCycles = Workload(name: "reopen cycles", segmentSize: 250) { d in
        try d.open()
        for i in 0..<4 { try d.put("k\(i)", size: 50) }
        try d.close()
        try d.open()
        try d.delete("k1")
        try d.put("k0", in: "b", size: 50)
        try d.close()
        try d.open()
        try d.compact()
        try d.put("k5", size: 50)
        try d.close()
        try d.open()
        try d.delete("k2")
        try d.close()
    }

    /// Overwrites of a few keys with automatic compaction on: compactions start in the
    /// background and run while commits go on (the trace interleaves them).
    static let automaticCompaction = Workload(
        name: "automatic compaction", segmentSize: 300, background: true
    ) { d in
        d.automaticCompaction = true
        try d.open()
        for i in 0..<40 {
            if i % 7 == 6 {
                try d.delete("k\(i % 3)")
            } else {
                try d.put("k\(i % 3)", size: 60)
            }
        }
        try d.close()
    }

    /// A streaming commit of 1.2 MB in five pieces (the writer hands part of it to the OS before
    /// it ends), begun in a segment that already holds commits and growing past the segment
    /// size; then a put, which starts a new segment.
    static let streamingCommit = Workload(
        name: "streaming commit", segmentSize: 1 << 20
    ) { d in
        try d.open()
        for i in 0..<3 { try d.put("k\(i)") }
        try d.stream((0..<5).map { d.puts("s", $0 * 240..<($0 + 1) * 240, size: 1000) })
        try d.put("k0")
        try d.delete("s7")
        try d.close()
    }

    /// A streaming commit cancelled after part of it was written, then commits and a second
    /// stream that overwrites and deletes across its pieces.
    static let cancelledStreamingCommit = Workload(name: "cancelled streaming commit") { d in
        try d.open()
        try d.put("k0")
        try d.stream(
            (0..<3).map { d.puts("gone", $0 * 600..<($0 + 1) * 600, size: 900) }, cancelAfter: 2)
        try d.put("k1")
        try d.stream([
            d.puts("s", 0..<200, size: 50), [.delete(keyspace: "a", key: "k0")],
            d.puts("s", 100..<300, in: "b", size: 30),
        ])
        try d.close()
    }

    /// `.buffered` commits made durable by `sync()` and by `close()`.
    static let buffered = Workload(name: "buffered then sync") { d in
        try d.open()
        for i in 0..<5 { try d.put("k\(i % 3)", durability: .buffered) }
        try d.sync()
        for i in 0..<3 { try d.put("m\(i)", durability: .buffered) }
        try d.delete("k0")
        try d.put("m9", durability: .buffered)
        try d.close()
    }

    /// Recovery itself: opening a store whose last commit is torn and which holds a leftover
    /// compaction file, then writing on.
    static let recoveryOfTornTail = Workload(
        name: "recovery of a torn tail", segmentSize: 400,
        prepare: { d in
            try d.open()
            for i in 0..<12 { try d.put("k\(i % 5)", size: 40) }
            try d.commit((0..<6).map { .put(keyspace: "a", key: "t\($0)", value: d.value(50)) })
            let last = d.store!.lastSequence
            try d.close()
            let segment = segmentFiles(d.path).last!
            let bytes = readFile(segment)
            writeFile(segment, Array(bytes.prefix(bytes.count - 150)))
            d.forget(after: last - 1)
            writeFile(d.path + "/00000000000a0001.seg.tmp", d.value(300))
        },
        run: { d in
            try d.open()
            try d.put("r1")
            try d.commit([
                .delete(keyspace: "a", key: "k1"), .put(keyspace: "a", key: "r2", value: [1]),
            ])
            try d.close()
        })

    /// Recovery of a store whose newest segment was created but its header never written.
    static let recoveryOfHalfCreatedSegment = Workload(
        name: "recovery of a half-created segment", segmentSize: 200,
        prepare: { d in
            try d.open()
            for i in 0..<4 { try d.put("k\(i)", size: 60) }
            try d.close()
            let newest = segmentFiles(d.path).last!
            let name = URL(fileURLWithPath: newest).lastPathComponent
            let order = UInt64(name.prefix(16), radix: 16)! + (1 << 16)
            let digits = String(order, radix: 16)
            let next = String(repeating: "0", count: 16 - digits.count) + digits + ".seg"
            writeFile(d.path + "/" + next, Array(readFile(newest).prefix(10)))
        },
        run: { d in
            try d.open()
            try d.put("r1")
            try d.put("r2")
            try d.close()
        })
}
