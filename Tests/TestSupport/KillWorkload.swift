import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The writes a child process (`logbook-crash-child`) makes until it is killed, decided by the
/// seed and the commit's sequence number alone, so the parent can rebuild the model of any prefix.
package enum KillWorkload {
    package static let segmentSize = 16 << 10

    /// The changes of commit `sequence`.
    package static func changes(seed: UInt64, sequence: UInt64) -> [Change] {
        var rng = SeededGenerator(seed: seed ^ (sequence &* 0x9E37_79B9_7F4A_7C15))
        // One commit in 200 is huge (about 1.2 MB: streamed, it reaches the file in two writes
        // before it finishes); rarely, since every open of the growing log replays it.
        let kind =
            Int.random(in: 0..<200, using: &rng) == 0 ? 100 : Int.random(in: 0..<100, using: &rng)
        let count: Int
        switch kind {
        case 0..<70: count = Int.random(in: 1...5, using: &rng)
        case 70..<90: count = Int.random(in: 1...3, using: &rng)
        case 90..<100: count = Int.random(in: 100...600, using: &rng)
        default: count = 3_000
        }
        return (0..<count).map { _ in
            let keyspace = Bool.random(using: &rng) ? "a" : "b"
            let key = "k\(Int.random(in: 0..<300, using: &rng))"
            if (70..<90).contains(kind) { return .delete(keyspace: keyspace, key: key) }
            if kind == 100 {
                // Cheap to make: the child must write it within the parent's kill delay.
                return .put(
                    keyspace: keyspace, key: key,
                    value: [UInt8](repeating: UInt8.random(in: 0...255, using: &rng), count: 400))
            }
            // Eight bytes from each number: a generic call per byte was a quarter of the child's
            // CPU and a fifth of the parent's in a debug build.
            let size = Int.random(in: 0...200, using: &rng)
            return .put(keyspace: keyspace, key: key, value: rng.bytes(size))
        }
    }

    /// Whether the child compacts after commit `sequence`.
    package static func compactsAfter(seed: UInt64, sequence: UInt64) -> Bool {
        var rng = SeededGenerator(seed: seed ^ (sequence &* 0xC2B2_AE3D_27D4_EB4F))
        return Int.random(in: 0..<40, using: &rng) == 0
    }

    /// Whether the child writes commit `sequence` as a streaming commit, in pieces of 50
    /// changes (it does for half of the large ones).
    package static func streams(seed: UInt64, sequence: UInt64, count: Int) -> Bool {
        var rng = SeededGenerator(seed: seed ^ (sequence &* 0x1656_67B1_9E37_79F9))
        return count > 50 && Bool.random(using: &rng)
    }

    package static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = segmentSize
        options.autoCompactionDeadFraction = nil
        return options
    }

    /// The child: opens the store, then commits (and sometimes compacts) until killed, appending
    /// each acknowledged sequence number to `acks` (and syncing it) after the commit returns. It
    /// writes its pid to `pidFile` when it is ready to be killed: before opening the store if
    /// `readyBeforeOpen` (to be killed during recovery), else once it is open. Exits 3 if nobody
    /// kills it within a minute.
    package static func runChild(
        path: String, acks: String, pidFile: String, seed: UInt64, readyBeforeOpen: Bool
    ) -> Never {
        let deadline = Date().addingTimeInterval(60)
        let ackFile = open(acks, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard ackFile >= 0 else { exit(5) }
        let ready = {
            writeFile(pidFile + ".tmp", Array("\(getpid())".utf8))
            rename(pidFile + ".tmp", pidFile)
        }
        if readyBeforeOpen { ready() }
        // The parent's other tests fork children that hold a copy of the lock for a moment.
        var opened: LogStore?
        while opened == nil {
            do {
                opened = try LogStore(path: path, options: options)
            } catch LogStoreError.locked where Date() < deadline {
                usleep(1_000)
            } catch {
                print("child: open failed: \(error)")
                exit(4)
            }
        }
        let store = opened!
        if !readyBeforeOpen { ready() }
        var sequence = store.lastSequence
        while Date() < deadline {
            sequence += 1
            let changes = changes(seed: seed, sequence: sequence)
            do {
                let got =
                    streams(seed: seed, sequence: sequence, count: changes.count)
                    ? try Change.stream(
                        stride(from: 0, to: changes.count, by: 50).map {
                            Array(changes[$0..<min($0 + 50, changes.count)])
                        }, into: store)
                    : try store.commit(Change.batch(changes))
                guard got == sequence else {
                    print("child: commit got \(got), expected \(sequence)")
                    exit(6)
                }
                let line = Array("\(got)\n".utf8)
                guard
                    line.withUnsafeBytes({ write(ackFile, $0.baseAddress, $0.count) })
                        == line.count, fsync(ackFile) == 0
                else { exit(7) }
                if compactsAfter(seed: seed, sequence: sequence) { try store.compact() }
            } catch {
                print("child: \(error)")
                exit(8)
            }
        }
        exit(3)
    }

    /// The highest sequence number in an acknowledgement file (0 if none); a torn last line is
    /// ignored.
    package static func lastAcknowledged(_ acks: String) -> UInt64 {
        let text = String(decoding: readFile(acks), as: UTF8.self)
        var last: UInt64 = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if let n = UInt64(line) { last = max(last, n) }
        }
        return last
    }
}
