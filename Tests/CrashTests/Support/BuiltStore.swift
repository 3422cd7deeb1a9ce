import Foundation
import LogStore
import TestSupport

/// A store written commit by commit and closed, with the model after every commit and where
/// each commit ends in the newest segment, so tests can damage its files and know what must
/// survive.
struct BuiltStore {
    let path: String
    /// Contents after each commit (0: empty).
    var states: [UInt64: Contents] = [:]
    /// The sequence of the last commit.
    var last: UInt64 = 0
    /// The newest segment and, for each commit written into it, its size after the commit.
    var newestSegment = ""
    var ends: [(sequence: UInt64, size: Int)] = []

    /// Writes `commits` commits; each is one of `batches` (called with the commit's index and
    /// the driver), compacting after the indices in `compactAfter`.
    init(
        path: String, segmentSize: Int = 1 << 20, seed: UInt64, commits: Int,
        compactAfter: Set<Int> = [], batch: (Int, WorkloadDriver) -> [Change]
    ) throws {
        self.path = path
        let driver = WorkloadDriver(path: path, segmentSize: segmentSize, seed: seed)
        // Commits' ends are read off the file's size, and tests tear the file at every byte up
        // to its end: no zero tail (ZeroTailTests and the "zero tail" workload tear those).
        driver.zeroTail = ZeroTailPolicy(afterDurableGroups: .max)
        try driver.open()
        var sizes: [(segment: String, sequence: UInt64, size: Int)] = []
        for i in 0..<commits {
            let sequence = try driver.commit(batch(i, driver))
            let segment = segmentFiles(path).last!
            sizes.append((segment, sequence, readFile(segment).count))
            if compactAfter.contains(i) { try driver.compact() }
        }
        last = driver.store!.lastSequence
        try driver.close()
        states = driver.states
        newestSegment = segmentFiles(path).last!
        ends = sizes.filter { $0.segment == newestSegment }.map { ($0.sequence, $0.size) }
    }

    /// Every file of the store but `LOCK`, sorted.
    var files: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0 != "LOCK" }.sorted().map { path + "/" + $0 }
    }

    /// The last commit that ends at or before `offset` of the newest segment (the commit
    /// before the segment's first if none does).
    func lastCommit(endingBy offset: Int) -> UInt64 {
        var result = (ends.first?.sequence ?? 1) - 1
        for end in ends where end.size <= offset { result = end.sequence }
        return result
    }

    /// Where the final commit's group write starts in the newest segment (at its sync mark, if
    /// it has one).
    var finalCommitStart: Int {
        ends.count >= 2 ? ends[ends.count - 2].size : 24
    }

    /// Where recovery lands when the newest segment, written as `original`, is damaged after
    /// its first `intact` bytes: the end of the last commit complete within them, and
    /// of any whole sync marks that follow it (a mark is never cut: what it records stays true).
    func landing(intact: Int, original: [UInt8]) -> Int {
        let last = lastCommit(endingBy: intact)
        var end = ends.last { $0.sequence == last }?.size ?? 24
        while end + 25 <= intact && original[end + 8] == 5 { end += 25 }
        return end
    }

    /// Truncates the newest segment to its size after the last commit, dropping the sync mark
    /// the clean close appended: the segment as a crash just before the close leaves it.
    func removeCloseMark() {
        let bytes = readFile(newestSegment)
        precondition(bytes.count == ends.last!.size + 25 && bytes[ends.last!.size + 8] == 5)
        writeFile(newestSegment, Array(bytes[..<ends.last!.size]))
    }
}
