import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Simulated power loss and history (issue 15): the object layer's recorded workload
/// (``ObjectRecording``: the seed's flows, a 1,000-object save, relationships with a cascading
/// delete, a compaction, a migration), cut at every syscall. Each save writes its save record in
/// the same commit as its changes, so in every recovered store the history is exactly the saves
/// that survived: `history(after:)` lists each save after the oldest token up to the recovered
/// state and no other commit, with the inserts and deletes that state's model says, the updates
/// of objects whose stored values changed; and the feed's values (`historyReader(values:)`, what
/// `logbook changes` writes) are those of the model after each save.
@Suite struct HistoryPowerLossTests {
    /// Variants per crash point: 5 quick, 200 long (the object test covers recovery itself).
    static let variantsPerPoint =
        ProcessInfo.processInfo.environment["LOGBOOK_HISTORY_CRASH_VARIANTS"].flatMap { Int($0) }
        ?? TestTier.pick(quick: 5, long: 200)

    @Test func everyCrashPointKeepsTheHistoryOfTheSurvivingSaves() throws {
        let label = "history power loss"
        let seed = testSeed(label)
        let started = Date()
        let scratch = ScratchDirectory("history")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recording = try ObjectRecording(root: root)
        let saves = recording.saveSequences
        #expect(saves.count == recording.saves)
        var rng = SeededGenerator(seed: seed)
        var points = 0
        var opened = 0
        var seen: Set<Int> = []
        var failures: [String] = []
        var savesRead = 0
        recording.trace.forEachCrashPoint { point in
            points += 1
            let variants = CrashVariant.variants(
                Self.variantsPerPoint, unorderedEntries: false, using: &rng)
            for (v, variant) in variants.enumerated() {
                let image = point.disk.image(variant)
                var hasher = Hasher()
                image.hash(into: &hasher)
                hasher.combine([point.acknowledged, point.attempted])
                guard seen.insert(hasher.finalize()).inserted else { continue }
                opened += 1
                let target = scratch.child("crash-\(opened)")
                defer { try? FileManager.default.removeItem(atPath: target) }
                do {
                    try FileManager.default.createDirectory(
                        atPath: target, withIntermediateDirectories: false)
                    try image.write(to: target)
                } catch {
                    failures.append("could not build the crash state: \(error)")
                    continue
                }
                if let problem = checkRecoveredHistory(
                    at: target + "/store", recording: recording, saves: saves,
                    acknowledged: point.acknowledged, attempted: point.attempted,
                    read: &savesRead)
                {
                    failures.append(
                        "after \(point.operations) of \(recording.trace.operationCount) calls "
                            + "(last: \(describe(point.last, root: root))), variant \(v) "
                            + "(\(variant)), acknowledged \(point.acknowledged), attempted "
                            + "\(point.attempted): \(problem)")
                }
            }
        }
        print(
            "\(label): \(points) crash points × \(Self.variantsPerPoint) variants, "
                + "\(opened) distinct opened, \(savesRead) saves read back, "
                + "\(failures.count) failures, "
                + String(format: "%.1f s", Date().timeIntervalSince(started)))
        for failure in failures.prefix(5) {
            Issue.record("\(label), seed \(seed): \(failure)")
        }
        #expect(points > 0)
        #expect(savesRead > opened, "most recovered stores have saves to read back")
    }
}

extension ObjectRecording {
    /// The commits that are saves: each save of the workload changes the objects, the schema
    /// records opening writes do not.
    var saveSequences: Set<UInt64> {
        Set(
            states.keys.filter { s in
                s > 0 && states[s - 1].map { $0 != states[s] } ?? false
            })
    }
}

/// Opens the recovered store at `path` and checks its history against the recording: for some
/// commit `m` from `acknowledged` to `attempted` whose objects the store holds, the saves read
/// after the oldest token are exactly the recorded saves after it up to `m`, each with the
/// recorded changes and values. Returns what was wrong, or `nil`; adds the saves read back to
/// `read`.
func checkRecoveredHistory(
    at path: String, recording: ObjectRecording, saves: Set<UInt64>, acknowledged: UInt64,
    attempted: UInt64, read: inout Int
) -> String? {
    do {
        let container = try ModelContainer(for: migratedModels, at: URL(fileURLWithPath: path))
        defer { try? container.close() }
        let found = try objectState(of: container)
        let candidates = recording.states.keys.filter {
            $0 >= acknowledged && $0 <= attempted && recording.states[$0] == found
        }
        guard !candidates.isEmpty else { return "the objects are those of no allowed commit" }
        let oldest = try container.oldestHistoryToken.sequence
        let transactions = try container.history(after: nil)
        read += transactions.count
        let sequences = transactions.map(\.sequence)
        guard
            let matched = candidates.first(where: { m in
                sequences == saves.filter { $0 > oldest && $0 <= m }.sorted()
            })
        else {
            return
                "history after \(oldest) lists saves \(sequences), which are the saves up to none "
                + "of the commits \(candidates.sorted()) that hold the recovered objects"
        }
        let reader = try container.historyReader(after: nil, values: true)
        for transaction in transactions {
            let s = transaction.sequence
            let before = recording.states[s - 1]!
            let after = recording.states[s]!
            let inserted = Set(after.keys).subtracting(before.keys)
            let deleted = Set(before.keys).subtracting(after.keys)
            guard Set(transaction.inserted) == inserted, Set(transaction.deleted) == deleted else {
                return "save \(s) (recovered up to \(matched)) lists inserts "
                    + "\(transaction.inserted.count) and deletes \(transaction.deleted.count), "
                    + "not \(inserted.count) and \(deleted.count)"
            }
            // A company's row lists its staff, which is the staff's to-one, not the company's.
            let changed = after.keys.filter {
                before[$0] != nil && before[$0] != after[$0] && $0.entityName != "Company"
            }
            guard Set(changed).isSubset(of: transaction.updated) else {
                return "save \(s) does not list as updated "
                    + "\(Set(changed).subtracting(transaction.updated).sorted().prefix(3))"
            }
            guard let withValues = try reader.next(), withValues.sequence == s else {
                return "the reader with values does not read save \(s) next"
            }
            for change in withValues.changes where change.identifier.entityName == "Employee" {
                guard change.kind != .delete else { continue }
                let values = change.record?.values ?? [:]
                func text(_ name: String) -> String {
                    if case .string(let text) = values[name] { return text }
                    return "?"
                }
                func number(_ name: String) -> Int64 {
                    if case .integer(let number) = values[name] { return number }
                    return -1
                }
                let row = ObjectRow.employee(
                    text("name"), text("designation"), salary: number("salary"),
                    level: number("level"))
                guard row == after[change.identifier] else {
                    return "save \(s) carries \(change.identifier) as \"\(row)\", not "
                        + "\"\(after[change.identifier] ?? "nothing")\""
                }
            }
        }
        guard try reader.next() == nil else { return "the reader with values reads more saves" }
        return nil
    } catch {
        return "open or history failed: \(error)"
    }
}
