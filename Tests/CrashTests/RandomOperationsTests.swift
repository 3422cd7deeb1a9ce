import Foundation
import LogStore
import TestSupport
import Testing

/// Model-based random operations (issue 8, part 8): seeded sequences of puts, batches, deletes,
/// compactions, reopens and power losses against a `Dictionary` model. Each round runs on the
/// disk the previous round's power loss left, so recovery, and what comes after it, is tested
/// again and again — including a delete, a compaction cut short, and a restart.
@Suite struct RandomOperationsTests {
    static let rounds =
        ProcessInfo.processInfo.environment["LOGBOOK_RANDOM_ROUNDS"].flatMap { Int($0) }
        ?? TestTier.pick(quick: 40, long: 4_000)

    /// One random step.
    static func step(_ d: WorkloadDriver, _ rng: inout SeededGenerator) throws {
        let key = "k\(Int.random(in: 0..<24, using: &rng))"
        let keyspace = Bool.random(using: &rng) ? "a" : "b"
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<35:
            try d.put(key, in: keyspace, size: Int.random(in: 0...120, using: &rng))
        case 35..<55:
            try d.delete(key, in: keyspace)
        case 55..<70:
            let count = Int.random(in: 1...(Bool.random(using: &rng) ? 8 : 300), using: &rng)
            var changes: [Change] = []
            for _ in 0..<count {
                let key = "k\(Int.random(in: 0..<24, using: &rng))"
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    changes.append(.delete(keyspace: keyspace, key: key))
                } else {
                    changes.append(
                        .put(
                            keyspace: keyspace, key: key,
                            value: d.value(Int.random(in: 0...60, using: &rng))))
                }
            }
            try d.commit(changes)
        case 70..<80:
            try d.put(key, in: keyspace, size: 20, durability: .buffered)
        case 80..<84:
            try d.sync()
        case 84..<94:
            try d.compact()
        default:
            try d.close()
            try d.open()
        }
    }

    @Test func randomOperationsWithPowerLossesMatchTheModel() throws {
        let seed = testSeed("random operations")
        var rng = SeededGenerator(seed: seed)
        let scratch = ScratchDirectory("random")
        defer { scratch.remove() }
        var contents: Contents = [:]
        var sequence: UInt64 = 0
        var previous: String?
        var operations = 0
        var compactionsCut = 0
        for round in 0..<Self.rounds {
            let root = scratch.child("round\(round)")
            try FileManager.default.createDirectory(
                atPath: root, withIntermediateDirectories: false)
            if let previous {
                try FileManager.default.moveItem(atPath: previous, toPath: root + "/store")
            }
            let recorder = RecordingFileSystem(root: root)
            var disk = SimulatedDisk(recorder)
            let d = WorkloadDriver(
                path: root + "/store", fileSystem: recorder,
                segmentSize: Int.random(in: 200...2_000, using: &rng),
                seed: rng.next())
            d.recorder = recorder
            d.assume(contents, at: sequence)
            try d.open()
            for _ in 0..<Int.random(in: 5...40, using: &rng) { try Self.step(d, &rng) }
            if d.store != nil { try? d.store!.close() }
            // A power loss after a random call of this round.
            let events = recorder.events
            let operationsInRound = events.filter(\.isOperation).count
            let cut = Int.random(in: 0...operationsInRound, using: &rng)
            var acknowledged = sequence
            var attempted = sequence
            var done = 0
            var inCompaction = false
            for event in events {
                if event.isOperation {
                    if done == cut { break }
                    done += 1
                }
                switch event {
                case .acknowledged(let s): acknowledged = max(acknowledged, s)
                case .attempt(let s): attempted = max(attempted, s)
                case .create(let path, _): inCompaction = inCompaction || path.hasSuffix(".seg.tmp")
                default: break
                }
                disk.apply(event)
            }
            operations += done
            if inCompaction { compactionsCut += 1 }
            let variant = CrashVariant.variants(8, using: &rng).randomElement(using: &rng)!
            let target = scratch.child("crash\(round)")
            try FileManager.default.createDirectory(
                atPath: target, withIntermediateDirectories: false)
            try disk.image(variant).write(to: target)
            try FileManager.default.removeItem(atPath: root)
            if let problem = checkRecoveredStore(
                at: target + "/store", states: d.states, acknowledged: acknowledged,
                attempted: attempted,
                writeAfter: false)
            {
                Issue.record(
                    "round \(round), seed \(seed), power loss after \(cut) calls, \(variant): \(problem)"
                )
                return
            }
            // The next round goes on from what recovery found.
            let store = try openStore(target + "/store")
            sequence = store.lastSequence
            contents = try CrashTests.contents(of: store)
            try store.close()
            previous = target + "/store"
        }
        print(
            "random operations: \(Self.rounds) rounds, \(operations) calls before the power losses, "
                + "\(compactionsCut) losses during or after a compaction, last sequence \(sequence)"
        )
    }
}
