import Foundation
import LogStore
import TestSupport
import Testing

/// Simulated power loss (issue 8, part 1): every workload's system calls are recorded through the
/// IO seam; at every crash point, variants of what a power loss could leave are built and opened
/// with the real file system, and checked against the model.
@Suite struct PowerLossTests {
    /// Variants per crash point (≥ 20 asked for, issue 8): 20 in the default tier, 2,500 in the
    /// long one. The first four variants (all lost, all kept, and the two mixes) are the same in
    /// every tier.
    static let variantsPerPoint =
        ProcessInfo.processInfo.environment["LOGBOOK_CRASH_VARIANTS"].flatMap { Int($0) }
        ?? TestTier.pick(quick: 20, long: 2_500)

    @Test(arguments: Workload.all)
    func everyCrashPointRecoversTheAcknowledgedCommits(_ workload: Workload) throws {
        let seed = testSeed("power loss, \(workload.name)")
        let summary = try explore(workload, seed: seed, unorderedEntries: false)
        Self.expectEveryCrashPointReached(summary, workload)
    }

    /// What makes an exploration a test: the workload made system calls, a crash was tried after
    /// each of them (and before the first), some of those crashes came after an acknowledged
    /// commit (so recovery had something to keep), and the crashes left more than one disk.
    static func expectEveryCrashPointReached(_ summary: Summary, _ workload: Workload) {
        #expect(summary.operations > 0, "\(workload.name): no system call recorded")
        #expect(
            summary.points == summary.operations + 1,
            "\(workload.name): \(summary.points) crash points for \(summary.operations) calls")
        #expect(
            summary.pointsAfterAcknowledged > 0,
            "\(workload.name): no crash point after an acknowledged commit")
        #expect(summary.distinct > 1, "\(workload.name): every crash left the same disk")
    }

    /// The same, but directory changes that were not synced survive in any subset, not only in
    /// the order they were made (a file system without an ordered journal).
    @Test(arguments: [Workload.compaction, Workload.segmentRolls, Workload.recoveryOfTornTail])
    func everyCrashPointRecoversWithUnorderedDirectoryChanges(_ workload: Workload) throws {
        let seed = testSeed("power loss, unordered entries, \(workload.name)")
        let summary = try explore(workload, seed: seed, unorderedEntries: true)
        Self.expectEveryCrashPointReached(summary, workload)
    }

    struct Summary {
        /// System calls the workload made.
        var operations = 0
        var points = 0
        /// Crash points after at least one acknowledged commit of the recording.
        var pointsAfterAcknowledged = 0
        var states = 0
        var distinct = 0
        var failures: [String] = []
    }

    private func explore(_ workload: Workload, seed: UInt64, unorderedEntries: Bool) throws
        -> Summary
    {
        let started = Date()
        let scratch = ScratchDirectory("power")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recording = try Recording(workload, seed: seed, root: root)
        var rng = SeededGenerator(seed: seed)
        var summary = Summary()
        var seen: Set<CrashImage> = []
        var opened = 0
        summary.operations = recording.operationCount
        recording.forEachCrashPoint { point in
            summary.points += 1
            if point.acknowledged > 0 { summary.pointsAfterAcknowledged += 1 }
            let variants = CrashVariant.variants(
                Self.variantsPerPoint, unorderedEntries: unorderedEntries, using: &rng)
            for (v, variant) in variants.enumerated() {
                summary.states += 1
                let image = point.disk.image(variant)
                // Identical trees with identical promises need opening once.
                var key = image
                key.items.append(("#\(point.acknowledged)/\(point.attempted)", nil))
                guard seen.insert(key).inserted else { continue }
                summary.distinct += 1
                opened += 1
                let target = scratch.child("crash-\(opened)")
                do {
                    try FileManager.default.createDirectory(
                        atPath: target, withIntermediateDirectories: false)
                    try image.write(to: target)
                } catch {
                    summary.failures.append("could not build the crash state: \(error)")
                    continue
                }
                if let problem = checkRecoveredStore(
                    at: target + "/store", states: recording.states,
                    acknowledged: point.acknowledged, attempted: point.attempted,
                    writeAfter: v % 4 == 1)
                {
                    summary.failures.append(
                        "after \(point.operations) of \(recording.operationCount) calls "
                            + "(last: \(describe(point.last, root: root))), variant \(v) "
                            + "(\(variant)): \(problem); files: "
                            + image.items.map { "\($0.path) \($0.bytes?.count ?? -1)" }
                            .joined(separator: ", "))
                }
                try? FileManager.default.removeItem(atPath: target)
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(
            "power loss [\(workload.name)\(unorderedEntries ? ", unordered entries" : "")]: "
                + "\(summary.points) crash points × \(Self.variantsPerPoint) variants = "
                + "\(summary.states) states, \(summary.distinct) distinct opened, "
                + "\(summary.failures.count) failures, "
                + String(format: "%.1f s", seconds))
        for failure in summary.failures.prefix(5) {
            Issue.record("power loss [\(workload.name)], seed \(seed): \(failure)")
        }
        return summary
    }
}
