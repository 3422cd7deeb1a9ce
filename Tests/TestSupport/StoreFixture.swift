import Foundation
import LogStore

/// A store built commit by commit, remembering the newest segment's size after each commit, so
/// tests can damage the file at commit boundaries and know what must survive.
package struct CommitHistory {
    /// The store's directory.
    package let path: String
    /// Size of the newest segment after each commit (index 0: before any commit).
    package var sizes: [Int] = []
    /// Expected contents of keyspace "k" after each commit (index 0: empty).
    package var states: [[String: [UInt8]]] = [[:]]

    /// Writes `commits` commits of `recordsPerCommit` puts each (with some overwrites and deletes)
    /// into a new store at `path` and closes it.
    package init(
        path: String, commits: Int, recordsPerCommit: Int = 3, valueSize: Int = 20, seed: UInt64 = 1
    ) throws {
        self.path = path
        var rng = SeededGenerator(seed: seed)
        let store = try LogStore(path: path)
        sizes.append(segmentSize())
        var model: [String: [UInt8]] = [:]
        for c in 0..<commits {
            var batch = WriteBatch()
            for r in 0..<recordsPerCommit {
                let key =
                    "key\(Int.random(in: 0..<(commits * recordsPerCommit / 2 + 1), using: &rng))"
                if r == 0 && c % 4 == 3, let victim = model.keys.sorted().first {
                    batch.delete(Array(victim.utf8), in: "k")
                    model[victim] = nil
                } else {
                    let value = (0..<valueSize).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    batch.put(value, for: Array(key.utf8), in: "k")
                    model[key] = value
                }
            }
            try store.commit(batch, durability: .buffered)
            sizes.append(segmentSize())
            states.append(model)
        }
        try store.close()
    }

    /// The newest segment's path.
    package var newestSegment: String { segmentFiles(path).last! }

    /// Truncates the newest segment to its size after the last commit, dropping the sync mark
    /// that the clean close appended: the segment as a crash just before the close leaves it.
    package func removeCloseMark() {
        let bytes = readFile(newestSegment)
        precondition(bytes.count == sizes.last! + 25 && bytes[sizes.last! + 8] == 5)
        writeFile(newestSegment, Array(bytes[..<sizes.last!]))
    }

    private func segmentSize() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: segmentFiles(path).last!)[.size])
            as? Int) ?? 0
    }

    /// The contents of keyspace "k" in the store at `path`.
    package static func contents(of store: LogStore) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        try store.forEach(in: "k") { key, value in
            result[String(decoding: key, as: UTF8.self)] = [UInt8](value)
        }
        return result
    }
}

extension LogStoreOptions {
    /// Options under which every close writes a key directory file (`keys.dir`), whatever the
    /// store's size, so the next open maps its index; automatic compaction is off.
    package static var alwaysWritingKeyDirectoryFile: LogStoreOptions {
        var options = LogStoreOptions()
        options.autoCompactionDeadFraction = nil
        options.keyDirectoryFileMinimumKeys = 0
        options.keyDirectoryFileMaximumShare = nil
        return options
    }
}
