import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// A memo with two searchable attributes: the model of the text index's power-loss workload.
final class Memo: PersistentModel {
    @Attribute(.searchable) var title = ""
    @Attribute(.searchable) var body = ""
    @Attribute var number: Int64 = 0
    init() {}
}

/// The text index and its sidecar against the log under simulated power loss (issue 39): saves
/// of memos (inserts, edits, deletes), a close that writes the text sidecar, a reopen that reads
/// it, more saves and a second close, cut at every system call; what a power loss could leave is
/// opened with the real file system.
///
/// Every recovered store's text index must be exactly what its records give, whether open read
/// it from the sidecar or built it; a search of each word must find exactly the memos a filter
/// of all of them finds; and after one more save and a close, the reopened store must read the
/// sidecar and still be exact.
@Suite struct TextIndexPowerLossTests {
    static let variantsPerPoint =
        ProcessInfo.processInfo.environment["LOGBOOK_TEXT_CRASH_VARIANTS"].flatMap { Int($0) }
        ?? TestTier.pick(quick: 4, long: 60)

    static let words = ["ann", "lee", "josé", "müller", "north", "south", "river", "stone"]

    @Test func everyCrashPointLeavesAnExactTextIndex() throws {
        let seed = testSeed("text index power loss")
        let scratch = ScratchDirectory("text")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recorder = RecordingFileSystem(root: root)
        let start = SimulatedDisk(recorder)
        try Self.runWorkload(path: root + "/store", recorder: recorder)
        let trace = Trace(events: recorder.events, start: start, acknowledged: 0, attempted: 0)
        var rng = SeededGenerator(seed: seed)
        var seen: Set<Int> = []
        var points = 0
        var sidecarsRead = 0
        var failures: [String] = []
        trace.forEachCrashPoint { point in
            points += 1
            for variant in CrashVariant.variants(
                Self.variantsPerPoint, unorderedEntries: false, using: &rng)
            {
                let image = point.disk.image(variant)
                var hasher = Hasher()
                image.hash(into: &hasher)
                guard seen.insert(hasher.finalize()).inserted else { continue }
                let target = scratch.child("crash-\(seen.count)")
                defer { try? FileManager.default.removeItem(atPath: target) }
                do {
                    try FileManager.default.createDirectory(
                        atPath: target, withIntermediateDirectories: false)
                    try image.write(to: target)
                    let (problem, readSidecar) = try Self.check(at: target + "/store")
                    if readSidecar { sidecarsRead += 1 }
                    if let problem {
                        failures.append(
                            "after \(point.operations) of \(trace.operationCount) calls "
                                + "(last: \(describe(point.last, root: root))), \(variant): \(problem)"
                        )
                    }
                } catch {
                    failures.append(
                        "after \(point.operations) calls, \(variant): open, search or save failed: \(error)"
                    )
                }
            }
        }
        print(
            "text index power loss: \(points) crash points, \(seen.count) distinct images, "
                + "\(sidecarsRead) opened from a text sidecar, \(failures.count) failures")
        for failure in failures.prefix(5) { Issue.record("seed \(seed): \(failure)") }
        #expect(failures.isEmpty)
        // The workload closes twice: some images hold a text sidecar that describes them.
        #expect(sidecarsRead > 0)
    }

    /// The workload: two saves, a close, a reopen, two more saves, a close.
    private static func runWorkload(path: String, recorder: RecordingFileSystem) throws {
        var options = LogStoreOptions()
        options.fileSystem = recorder
        options.segmentSize = 16 << 10
        let url = URL(fileURLWithPath: path)
        var sequence: UInt64 = 0
        func committed(_ container: ModelContainer) {
            sequence = container.store.lastSequence
            recorder.acknowledge(sequence)
        }
        var container = try ModelContainer(for: [Memo.self], at: url, options: options)
        committed(container)
        var context = ModelContext(container)
        var memos: [Memo] = []
        for i in 0..<150 {
            let memo = Memo()
            memo.title = "\(words[i % words.count]) \(words[(i / 3) % words.count])"
            memo.body = "\(words[(i * 7) % words.count]) memo \(i)"
            memo.number = Int64(i)
            context.insert(memo)
            memos.append(memo)
        }
        recorder.attempt(sequence + 1)
        try context.save()
        committed(container)
        for memo in memos.prefix(20) { memo.title = "stone river \(memo.number)" }
        for memo in memos[20..<30] { context.delete(memo) }
        recorder.attempt(sequence + 1)
        try context.save()
        committed(container)
        try container.close()
        recorder.acknowledge(sequence)
        container = try ModelContainer(for: [Memo.self], at: url, options: options)
        committed(container)
        context = ModelContext(container)
        let stored = try context.fetch(FetchDescriptor<Memo>(sortBy: [SortDescriptor(\.number)]))
        for memo in stored.prefix(10) { memo.body = "north josé \(memo.number)" }
        let added = Memo()
        added.title = "Ann Müller"
        context.insert(added)
        recorder.attempt(sequence + 1)
        try context.save()
        committed(container)
        context.delete(stored[50])
        stored[60].title = "south"
        recorder.attempt(sequence + 1)
        try context.save()
        committed(container)
        try container.close()
        recorder.acknowledge(sequence)
    }

    /// Opens the store at `path` and checks its text index; then saves one more memo, closes
    /// (writing the sidecar), reopens and checks again. Returns what was wrong, if anything,
    /// and whether the first open read the text index from a sidecar.
    private static func check(at path: String) throws -> (problem: String?, readSidecar: Bool) {
        let url = URL(fileURLWithPath: path)
        let container = try ModelContainer(for: [Memo.self], at: url)
        let readSidecar = container.textIndexesReadFromSidecar
        if let problem = try searchProblem(container) {
            try? container.close()
            return ("at open (sidecar read: \(readSidecar)): \(problem)", readSidecar)
        }
        let context = ModelContext(container)
        let after = Memo()
        after.title = "after lee"
        context.insert(after)
        try context.save()
        try container.close()
        let reopened = try ModelContainer(for: [Memo.self], at: url)
        defer { try? reopened.close() }
        guard reopened.textIndexesReadFromSidecar else {
            return (
                "the text sidecar written at close was not read at the next open: "
                    + (reopened.textIndexSidecarNote ?? "no note"), readSidecar
            )
        }
        return (
            try searchProblem(reopened).map { "after one more save and a reopen: \($0)" },
            readSidecar
        )
    }

    /// How the text index of `container` is wrong, or `nil`: it differs from the one the records
    /// give, or a search of a word differs from a filter of all the memos.
    private static func searchProblem(_ container: ModelContainer) throws -> String? {
        let problems = try container.textIndexProblems()
        guard problems.isEmpty else { return problems.joined(separator: "; ") }
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Memo>())
        for word in words + ["memo"] {
            let folded = word.folding(
                options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            let found = Set(
                try context.search(SearchDescriptor<Memo>(folded)).map(\.persistentModelID))
            let filtered = Set(
                all.filter { memo in
                    (memo.title + " " + memo.body).split(separator: " ").contains {
                        $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                            == folded
                    }
                }.map(\.persistentModelID))
            guard found == filtered else {
                return
                    "\"\(folded)\": the search gives \(found.count) memos, a filter \(filtered.count)"
            }
        }
        return nil
    }
}
