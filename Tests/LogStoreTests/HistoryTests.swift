import Foundation
import LogStore
import Synchronization
import TestSupport
import Testing

/// The log as history: reading commits back, states as of a sequence number, and compaction that
/// keeps what a retention asks for (FORMAT.md, "History").
@Suite struct HistoryTests {
    /// A store written commit by commit with random puts, overwrites and deletes in two
    /// keyspaces across small segments, with the state after every commit.
    struct Run {
        typealias State = [String: [String: [UInt8]]]  // keyspace → key → value
        var states: [State] = [[:]]  // index: sequence number
        var batches: [[Operation]] = [[]]  // index: sequence number

        enum Operation: Equatable {
            case put(String, String, [UInt8])
            case delete(String, String)
        }

        /// Commits `count` random batches to `store`, recording each.
        mutating func write(
            _ count: Int, to store: LogStore, rng: inout SeededGenerator, keys: Int = 60
        ) throws {
            for _ in 0..<count {
                var state = states.last!
                var batch = WriteBatch()
                var operations: [Operation] = []
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let keyspace = Bool.random(using: &rng) ? "a" : "b"
                    let key = "k\(Int.random(in: 0..<keys, using: &rng))"
                    if Int.random(in: 0..<4, using: &rng) == 0 {
                        batch.delete(Array(key.utf8), in: keyspace)
                        state[keyspace]?[key] = nil
                        operations.append(.delete(keyspace, key))
                    } else {
                        let value = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in
                            UInt8.random(in: 0...255, using: &rng)
                        }
                        batch.put(value, for: Array(key.utf8), in: keyspace)
                        state[keyspace, default: [:]][key] = value
                        operations.append(.put(keyspace, key, value))
                    }
                }
                let sequence = try store.commit(batch, durability: .buffered)
                #expect(Int(sequence) == states.count)
                states.append(state)
                batches.append(operations)
            }
        }
    }

    static func contents(of store: LogStore) throws -> Run.State {
        var state: Run.State = [:]
        for keyspace in ["a", "b"] {
            try store.forEach(in: keyspace) { key, value in
                state[keyspace, default: [:]][String(decoding: key, as: UTF8.self)] = [UInt8](value)
            }
            for key in state[keyspace]?.keys.sorted() ?? [] {
                #expect(try store.get(Array(key.utf8), in: keyspace) == state[keyspace]?[key])
            }
        }
        return state
    }

    /// The non-empty keyspaces of a model state (a store lists no empty keyspace).
    static func normalized(_ state: Run.State) -> Run.State { state.filter { !$0.value.isEmpty } }

    static func operations(of commit: LoggedCommit) -> [Run.Operation] {
        var operations: [Run.Operation] = []
        commit.forEachRecord { record in
            let key = String(decoding: record.key, as: UTF8.self)
            if let value = record.value {
                operations.append(.put(record.keyspace, key, [UInt8](value)))
            } else {
                operations.append(.delete(record.keyspace, key))
            }
        }
        return operations
    }

    static func options(retaining: (@Sendable (LogStore) throws -> UInt64?)? = nil)
        -> LogStoreOptions
    {
        var options = LogStoreOptions()
        options.segmentSize = 2048
        options.autoCompactionDeadFraction = nil
        options.historyRetention = retaining
        return options
    }

    @Test func commitsAfterAnySequenceComeBackInOrderWithTheirRecords() throws {
        let seed = testSeed("history commits")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var store = try LogStore(path: dir.child("s"), options: Self.options())
        var run = Run()
        try run.write(150, to: store, rng: &rng)
        for reopen in [false, true] {
            if reopen {
                try store.close()
                store = try LogStore(path: dir.child("s"), options: Self.options())
            }
            for after in stride(from: 0, through: 150, by: 7) {
                let reader = try store.commits(after: UInt64(after))
                var expected = after + 1
                while let commit = try reader.next() {
                    #expect(commit.sequence == UInt64(expected))
                    #expect(Self.operations(of: commit) == run.batches[expected], "seed \(seed)")
                    expected += 1
                }
                #expect(expected == 151)
                #expect(reader.lastSequence == 150)
            }
        }
        #expect(throws: LogStoreError.self) { try store.commits(after: 151) }
        try store.close()
    }

    @Test func aSnapshotHoldsTheStateAfterItsCommit() throws {
        let seed = testSeed("history snapshots")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var store = try LogStore(path: dir.child("s"), options: Self.options())
        var run = Run()
        try run.write(120, to: store, rng: &rng)
        for reopen in [false, true] {
            if reopen {
                // Reopened, sealed segments are replayed from their hint files.
                try store.close()
                store = try LogStore(path: dir.child("s"), options: Self.options())
            }
            for sequence in 0...120 {
                let snapshot = try store.snapshot(asOf: UInt64(sequence))
                #expect(snapshot.lastSequence == UInt64(sequence))
                #expect(
                    try Self.contents(of: snapshot) == Self.normalized(run.states[sequence]),
                    "seed \(seed), sequence \(sequence)")
                #expect(throws: LogStoreError.readOnly(path: dir.child("s"))) {
                    try snapshot.put([1], for: [1], in: "a")
                }
            }
        }
        // The live store is untouched by its snapshots.
        #expect(try Self.contents(of: store) == Self.normalized(run.states[120]))
        let stats = try store.stats()
        try store.close()
        let reopened = try LogStore(path: dir.child("s"), options: Self.options())
        #expect(try reopened.stats().liveBytes == stats.liveBytes)
        #expect(throws: LogStoreError.self) { try reopened.snapshot(asOf: 121) }
    }

    @Test func compactionWithoutRetentionKeepsOnlyTheLiveState() throws {
        let seed = testSeed("history compaction without retention")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var store = try LogStore(path: dir.child("s"), options: Self.options())
        var run = Run()
        try run.write(100, to: store, rng: &rng)
        #expect(try store.historyFloor() == 0)
        try store.compact()
        for reopen in [false, true] {
            if reopen {
                try store.close()
                store = try LogStore(path: dir.child("s"), options: Self.options())
            }
            #expect(try store.historyFloor() == 100)
            #expect(throws: LogStoreError.historyUnavailable(requested: 99, oldest: 100)) {
                try store.snapshot(asOf: 99)
            }
            #expect(throws: LogStoreError.historyUnavailable(requested: 0, oldest: 100)) {
                try store.commits(after: 0)
            }
            #expect(
                try Self.contents(of: store.snapshot(asOf: 100)) == Self.normalized(run.states[100])
            )
        }
        // Commits after the compaction are history again.
        try run.write(20, to: store, rng: &rng)
        let reader = try store.commits(after: 100)
        var sequences: [UInt64] = []
        while let commit = try reader.next() { sequences.append(commit.sequence) }
        #expect(sequences == Array(101...120))
        for sequence in 100...120 {
            #expect(
                try Self.contents(of: store.snapshot(asOf: UInt64(sequence)))
                    == Self.normalized(run.states[sequence]), "seed \(seed)")
        }
        try store.close()
    }

    @Test func compactionWithRetentionKeepsEveryRetainedState() throws {
        let seed = testSeed("history compaction with retention")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let retained = RetainedSequence()
        let options = Self.options(retaining: { _ in retained.value.load(ordering: .relaxed) })
        var store = try LogStore(path: dir.child("s"), options: options)
        var run = Run()
        try run.write(200, to: store, rng: &rng)
        let before = try store.stats()
        retained.value.store(150, ordering: .relaxed)
        let report = try store.compact()
        #expect(report.segmentsCompacted > 0)
        #expect(report.bytesReclaimed > 0)
        let floor = try store.historyFloor()
        #expect(floor <= 150 && floor > 0)
        for reopen in [false, true] {
            if reopen {
                try store.close()
                store = try LogStore(path: dir.child("s"), options: options)
            }
            #expect(try store.historyFloor() == floor)
            for sequence in Int(floor)...200 {
                #expect(
                    try Self.contents(of: store.snapshot(asOf: UInt64(sequence)))
                        == Self.normalized(run.states[sequence]), "seed \(seed), \(sequence)")
            }
            let reader = try store.commits(after: floor)
            var expected = Int(floor) + 1
            while let commit = try reader.next() {
                #expect(Self.operations(of: commit) == run.batches[expected], "seed \(seed)")
                expected += 1
            }
            #expect(expected == 201)
            #expect(throws: LogStoreError.historyUnavailable(requested: floor - 1, oldest: floor)) {
                try store.snapshot(asOf: floor - 1)
            }
        }
        #expect(try Self.contents(of: store) == Self.normalized(run.states[200]))
        #expect(try store.stats().fileBytes < before.fileBytes)
        // As the retained range moves on, a later compaction drops what fell out of it.
        try run.write(100, to: store, rng: &rng)
        retained.value.store(280, ordering: .relaxed)
        try store.compact()
        let later = try store.historyFloor()
        #expect(later > floor && later <= 280)
        for sequence in Int(later)...300 {
            #expect(
                try Self.contents(of: store.snapshot(asOf: UInt64(sequence)))
                    == Self.normalized(run.states[sequence]), "seed \(seed), \(sequence)")
        }
        // Retaining nothing compacts like a store without retention.
        retained.value.store(300, ordering: .relaxed)
        try store.compact()
        #expect(try Self.contents(of: store) == Self.normalized(run.states[300]))
        try store.close()
    }

    @Test func aFollowingReaderSeesLaterCommitsOfItsStore() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let store = try LogStore(path: dir.child("s"), options: Self.options())
        var rng = SeededGenerator(seed: 7)
        var run = Run()
        try run.write(10, to: store, rng: &rng)
        let reader = try store.commits(after: 10, follow: true)
        #expect(try reader.next() == nil)
        try run.write(40, to: store, rng: &rng)  // across several new segments
        var sequences: [UInt64] = []
        while let commit = try reader.next() {
            #expect(Self.operations(of: commit) == run.batches[Int(commit.sequence)])
            sequences.append(commit.sequence)
        }
        #expect(sequences == Array(11...50))
        try store.close()
    }

    @Test func aReadOnlyFollowerSeesCommitsOfAnotherWriter() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let writer = try LogStore(path: dir.child("s"), options: Self.options())
        var rng = SeededGenerator(seed: 8)
        var run = Run()
        try run.write(10, to: writer, rng: &rng)
        var readOnly = Self.options()
        readOnly.readOnly = true
        let follower = try LogStore(path: dir.child("s"), options: readOnly)
        let reader = try follower.commits(after: 5, follow: true)
        var sequences: [UInt64] = []
        while let commit = try reader.next() { sequences.append(commit.sequence) }
        #expect(sequences == Array(6...10))
        try run.write(40, to: writer, rng: &rng)
        while let commit = try reader.next() {
            #expect(Self.operations(of: commit) == run.batches[Int(commit.sequence)])
            sequences.append(commit.sequence)
        }
        #expect(sequences == Array(6...50))
        // A token newer than the follower's open is fine for a follower only.
        #expect(throws: LogStoreError.self) { try follower.commits(after: 50) }
        #expect(try follower.commits(after: 50, follow: true).next() == nil)
        try writer.close()
        try follower.close()
    }

    @Test func aFollowerThatFallsBehindACompactionIsToldItsHistoryIsGone() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let writer = try LogStore(path: dir.child("s"), options: Self.options())
        var rng = SeededGenerator(seed: 9)
        var run = Run()
        try run.write(10, to: writer, rng: &rng)
        var readOnly = Self.options()
        readOnly.readOnly = true
        let follower = try LogStore(path: dir.child("s"), options: readOnly)
        let reader = try follower.commits(after: 10, follow: true)
        // Segments written and compacted away before the follower looks again.
        try run.write(40, to: writer, rng: &rng)
        try writer.compact()
        try run.write(5, to: writer, rng: &rng)
        #expect(throws: LogStoreError.historyUnavailable(requested: 10, oldest: 50)) {
            while try reader.next() != nil {}
        }
        try writer.close()
        try follower.close()
    }
}

/// The sequence number a test's retention keeps from.
private final class RetainedSequence: Sendable {
    let value = Atomic<UInt64>(0)
}
