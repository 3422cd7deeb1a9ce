import Foundation
import LogStore
import TestSupport
import Testing

/// The order of system calls in each workload's trace (issue 8, part 6): what the store promises
/// is on the disk before it promises it.
@Suite struct SyscallOrderTests {
    /// Workloads without background work: with it, a compaction's files may be half made when a
    /// commit is acknowledged, and rightly so (the commit does not depend on them).
    @Test(arguments: Workload.all.filter { !$0.background })
    func promisesFollowTheSyncsTheyNeed(_ workload: Workload) throws {
        let scratch = ScratchDirectory("order")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recording = try Recording(workload, seed: testSeed("syscall order"), root: root)
        let store = root + "/store"
        var disk = recording.start
        var acknowledgements = 0
        var commitWrites = 0
        for (i, event) in recording.events.enumerated() {
            let at = "event \(i) of \(workload.name)"
            switch event {
            case .acknowledged(let sequence):
                // A data sync of every file written, and a directory sync of every entry made.
                acknowledgements += 1
                #expect(
                    disk.unsyncedFiles(in: store).isEmpty,
                    "\(at): commit \(sequence) acknowledged with unsynced data in \(disk.unsyncedFiles(in: store))"
                )
                #expect(
                    disk.unsyncedEntries(in: store).isEmpty,
                    "\(at): commit \(sequence) acknowledged before \(disk.unsyncedEntries(in: store)) was synced"
                )
            case .write(let file, let offset, _):
                // A commit goes only into a segment whose header and name are durable.
                if let path = disk.path(of: file), path.hasSuffix(".seg"), offset >= 24 {
                    commitWrites += 1
                    #expect(
                        disk.isDurable(path, atLeast: 24),
                        "\(at): commit written to \(path) before its header and entry were durable")
                }
            case .rename(let from, let to):
                // A file is renamed into place only once its bytes are durable.
                #expect(
                    !disk.unsyncedFiles(in: store).contains(from),
                    "\(at): \(from) renamed to \(to) with unsynced data")
            case .remove(let path) where path.hasSuffix(".seg"):
                // A segment is removed only once what replaces it is durably in place.
                #expect(
                    disk.unsyncedEntries(in: store).isEmpty,
                    "\(at): \(path) removed before \(disk.unsyncedEntries(in: store)) was synced")
            default:
                break
            }
            disk.apply(event)
        }
        #expect(acknowledgements > 0)
        #expect(commitWrites > 0)
    }

    /// A `.sync` commit is one write and one `fdatasync` of the active segment, in that order,
    /// and the acknowledgement comes after the `fdatasync`; one that extends the segment's zero
    /// tail (FORMAT.md, "Zero tail") first writes zeros to the same file and syncs them.
    @Test func syncCommitIsWriteThenDataSyncThenAcknowledgement() throws {
        let scratch = ScratchDirectory("order")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let recording = try Recording(Workload.singlePuts, seed: 1, root: root)
        let events = recording.events
        var checked = 0
        var extended = 0
        for (i, event) in events.enumerated() {
            guard case .attempt = event, i + 3 < events.count else { continue }
            var next = i + 1
            if i + 5 < events.count, case .write(let zeroed, _, let bytes) = events[next],
                bytes.allSatisfy({ $0 == 0 }), case .syncData(zeroed) = events[next + 1]
            {
                next += 2
                extended += 1
            }
            guard case .write(let written, _, _) = events[next],
                case .syncData(let synced) = events[next + 1],
                case .acknowledged = events[next + 2]
            else {
                Issue.record("commit at event \(i): \(events[i...min(i + 5, events.count - 1)])")
                continue
            }
            #expect(written == synced)
            checked += 1
        }
        #expect(checked == 10)
        #expect(extended >= 1)  // the driver extends after 8 durable groups
    }

    /// The zero-tail workload, whose every call the power-loss suite crashes at, does what it is
    /// for: it extends segments with synced zeros several times, and its commits overwrite them
    /// (they write inside a file without growing it).
    @Test func zeroTailWorkloadExtendsSegmentsAndOverwritesTheZeros() throws {
        let scratch = ScratchDirectory("order")
        defer { scratch.remove() }
        let root = scratch.child("run")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let events = try Recording(Workload.zeroTail, seed: 1, root: root).events
        var sizes: [Int: Int] = [:]
        var extensions = 0
        var overwrites = 0
        for (i, event) in events.enumerated() {
            switch event {
            case .create(_, let file): sizes[file] = 0
            case .truncate(let file, let length): sizes[file] = length
            case .write(let file, let offset, let bytes):
                let size = sizes[file] ?? 0
                if bytes.allSatisfy({ $0 == 0 }) && offset == size,
                    i + 1 < events.count, case .syncData(file) = events[i + 1]
                {
                    extensions += 1
                } else if offset + bytes.count <= size && bytes.contains(where: { $0 != 0 }) {
                    overwrites += 1
                }
                sizes[file] = max(size, offset + bytes.count)
            default: break
            }
        }
        #expect(extensions >= 3)
        #expect(overwrites >= 10)
    }
}
