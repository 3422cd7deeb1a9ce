import Foundation
import LogStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Security (issue 8, part 10): owner-only files whatever the umask, no following of symbolic
/// links planted in the store, and hostile length fields rejected before anything is allocated.
@Suite struct SecurityTests {
    /// The permission bits of `path` (not following a link).
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0o7777 }
        return info.st_mode & 0o7777
    }

    /// Child: with umask 0, creates a store, writes, compacts (temporary files, renames, hints)
    /// and closes; exits 0 if every file is 0600 and the directory 0700, else prints and exits 1.
    static func createWithPermissiveUmask(path: String) -> Never {
        umask(0)
        do {
            var options = LogStoreOptions()
            options.segmentSize = 300
            options.autoCompactionDeadFraction = nil
            let store = try LogStore(path: path, options: options)
            for i in 0..<12 {
                try store.put(
                    [UInt8](repeating: 7, count: 60), for: Array("k\(i % 4)".utf8), in: "a")
            }
            try store.compact()
            try store.put([1], for: Array("after".utf8), in: "a")
            try store.close()
        } catch {
            print("store failed: \(error)")
            exit(2)
        }
        var bad: [String] = []
        if mode(path) != 0o700 { bad.append("directory \(String(mode(path), radix: 8))") }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names where mode(path + "/" + name) != 0o600 {
            bad.append("\(name) \(String(mode(path + "/" + name), radix: 8))")
        }
        guard names.contains("LOCK"), names.contains(where: { $0.hasSuffix(".hint") }) else {
            print("missing files: \(names)")
            exit(3)
        }
        if !bad.isEmpty {
            print("not owner-only: \(bad)")
            exit(1)
        }
        exit(0)
    }

    @Test func filesAreOwnerOnlyWhateverTheUmask() async throws {
        let scratch = ScratchDirectory("umask")
        defer { scratch.remove() }
        await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [path = scratch.child("store") as String] in
            SecurityTests.createWithPermissiveUmask(path: path)
        }
    }

    private func makeStore(_ path: String) throws {
        let store = try openStore(path)
        try store.put([1, 2, 3], for: Array("k".utf8), in: "a")
        try store.close()
    }

    @Test func symlinkedSegmentIsRefused() throws {
        let scratch = ScratchDirectory("symlink")
        defer { scratch.remove() }
        let path = scratch.child("store")
        try makeStore(path)
        let segment = segmentFiles(path)[0]
        let elsewhere = scratch.child("elsewhere.seg")
        try FileManager.default.moveItem(atPath: segment, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: segment, withDestinationPath: elsewhere)
        for readOnly in [false, true] {
            var options = LogStoreOptions()
            options.readOnly = readOnly
            #expect(throws: LogStoreError.io(operation: "open", path: segment, errno: ELOOP)) {
                _ = try openStore(path, options: options)
            }
        }
    }

    @Test func symlinkedLockFileIsRefused() throws {
        let scratch = ScratchDirectory("symlink")
        defer { scratch.remove() }
        let path = scratch.child("store")
        try makeStore(path)
        let victim = scratch.child("victim")
        writeFile(victim, [42])
        try FileManager.default.removeItem(atPath: path + "/LOCK")
        try FileManager.default.createSymbolicLink(
            atPath: path + "/LOCK", withDestinationPath: victim)
        #expect(throws: LogStoreError.io(operation: "open", path: path + "/LOCK", errno: ELOOP)) {
            _ = try openStore(path)
        }
        // A dangling link must not make the store create its target either.
        try FileManager.default.removeItem(atPath: victim)
        #expect(throws: LogStoreError.self) { _ = try openStore(path) }
        #expect(!FileManager.default.fileExists(atPath: victim))
    }

    @Test func storePathThatIsASymlinkOrAFileIsRefused() throws {
        let scratch = ScratchDirectory("symlink")
        defer { scratch.remove() }
        let path = scratch.child("store")
        try makeStore(path)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.child("link"), withDestinationPath: path)
        #expect(
            throws: LogStoreError.invalidArgument(
                "\(scratch.child("link")) is a symbolic link; open the store by its real path")
        ) {
            _ = try openStore(scratch.child("link"))
        }
        writeFile(scratch.child("file"), [1])
        #expect(throws: LogStoreError.self) { _ = try openStore(scratch.child("file")) }
    }

    /// Every descriptor the store holds is close-on-exec, so a child process the app starts
    /// neither inherits the lock nor can write the segments.
    @Test func descriptorsAreCloseOnExec() throws {
        let scratch = ScratchDirectory("cloexec")
        defer { scratch.remove() }
        let path = scratch.child("store")
        var options = LogStoreOptions()
        options.segmentSize = 200
        let store = try openStore(path, options: options)
        for i in 0..<6 {
            try store.put([UInt8](repeating: 1, count: 100), for: b("k\(i)"), in: "a")
        }
        var checked = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let fd = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(
                    atPath: "/proc/self/fd/" + name),
                target.hasPrefix(path + "/")
            else { continue }
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "\(target) is inherited by children")
            checked += 1
        }
        #expect(checked >= 3)  // LOCK and the segments
        try store.close()
    }

    // MARK: - Hostile lengths

    /// A store of two commits whose only segment gets `frames` appended, and no hint file.
    private func storeWith(_ frames: [UInt8], at path: String) throws -> String {
        try makeStore(path)
        let store = try openStore(path)
        try store.put([4], for: Array("k2".utf8), in: "a")
        try store.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: path)
        where name.hasSuffix(".hint") {
            try FileManager.default.removeItem(atPath: path + "/" + name)
        }
        let segment = segmentFiles(path).last!
        writeFile(segment, readFile(segment) + frames)
        return segment
    }

    static let max64 = UInt64.max

    /// Frames (with correct CRCs) whose records carry hostile lengths and numbers.
    static let hostileRecords: [(String, [UInt8])] = [
        (
            "key length 2^64-1",
            [1] + FrameBuilder.varint(1) + FrameBuilder.varint(max64) + FrameBuilder.varint(1) + [0]
        ),
        (
            "value length 2^64-1",
            [1] + FrameBuilder.varint(1) + FrameBuilder.varint(1) + FrameBuilder.varint(max64) + [0]
        ),
        (
            "value length 2^63",
            [1] + FrameBuilder.varint(1) + FrameBuilder.varint(1) + FrameBuilder.varint(1 << 63) + [
                0
            ]
        ),
        ("key length 2^32", [2] + FrameBuilder.varint(1) + FrameBuilder.varint(1 << 32) + [0]),
        ("keyspace 2^64-1", FrameBuilder.put(keyspace: max64, key: [1], value: [2])),
        (
            "keyspace name length 2^64-1",
            [3] + FrameBuilder.varint(2) + FrameBuilder.varint(max64) + [0x41]
        ),
        (
            "an 11-byte varint",
            [1] + FrameBuilder.varint(1) + [UInt8](repeating: 0xFF, count: 10) + [1, 1, 0]
        ),
        (
            "a varint overflowing 64 bits",
            [1] + FrameBuilder.varint(1) + [UInt8](repeating: 0xFF, count: 9) + [0x02, 1, 0]
        ),
    ]

    @Test(arguments: 0..<hostileRecords.count)
    func hostileRecordLengthIsCorruptionWithoutAllocating(_ index: Int) throws {
        let (name, payload) = Self.hostileRecords[index]
        let scratch = ScratchDirectory("hostile")
        defer { scratch.remove() }
        let before = Self.peakMemory()
        // At the tail (bytes that passed their CRC are never cut) and mid-segment.
        for position in ["tail", "middle"] {
            let path = scratch.child(position)
            var frames = FrameBuilder.frame(sequence: 3, payload: payload)
            if position == "middle" {
                frames += FrameBuilder.frame(
                    sequence: 4, payload: FrameBuilder.put(key: [9], value: [9]))
            }
            let segment = try storeWith(frames, at: path)
            #expect(throws: LogStoreError.self, "\(name) at the \(position)") {
                do {
                    _ = try openStore(path)
                } catch let error as LogStoreError {
                    guard case .corruption(let file, let offset, _) = error, file == segment,
                        offset > 24
                    else {
                        Issue.record("\(name) at the \(position): \(error)")
                        throw error
                    }
                    throw error
                }
            }
        }
        #expect(Self.peakMemory() - before < 256 << 20, "\(name): memory grew")
    }

    /// Frame lengths up to 2^32-1: past the end of the file, or over the 1 GiB limit.
    @Test(arguments: [UInt32.max, UInt32(1 << 30) + 1, UInt32(1 << 30), 1 << 20])
    func hostileFrameLengthIsATornTailOrCorruptionWithoutAllocating(_ length: UInt32) throws {
        let scratch = ScratchDirectory("hostile")
        defer { scratch.remove() }
        let before = Self.peakMemory()
        let hostile = FrameBuilder.frame(
            sequence: 3, payload: FrameBuilder.put(key: [1], value: [1]), length: length)
        // At the tail, with nothing valid after it: a torn write, cut.
        let tail = scratch.child("tail")
        let segment = try storeWith(hostile, at: tail)
        let store = try openStore(tail)
        #expect(try store.get(Array("k2".utf8), in: "a") == [4])
        #expect(store.recovery.droppedTailBytes == Int64(hostile.count))
        try store.close()
        // Followed by a valid commit and a sync mark saying the segment was durable past it:
        // corruption, naming the file and the frame.
        let middle = scratch.child("middle")
        let valid = FrameBuilder.frame(sequence: 3, payload: FrameBuilder.put(key: [9], value: [9]))
        let durable = UInt64(readFile(segment).count + hostile.count + valid.count)
        let mark = FrameBuilder.frame(type: 5, sequence: 0, payload: FrameBuilder.le(durable))
        let segment2 = try storeWith(hostile + valid + mark, at: middle)
        let offset = Int64(readFile(segment2).count - hostile.count - valid.count - mark.count)
        do {
            _ = try openStore(middle)
            Issue.record("a frame of length \(length) mid-segment was accepted")
        } catch LogStoreError.corruption(let file, let at, _) {
            #expect(file == segment2 && at == offset)
        }
        #expect(Self.peakMemory() - before < 256 << 20)
        #expect(
            readFile(segment).count
                == readFile(segment2).count - hostile.count - valid.count - mark.count)
    }

    /// A commit whose sequence number is 2^64-1 must not make opening (or the next commit) trap on
    /// overflow: an error, never a crash.
    static func openStoreWithMaximalSequence(path: String) -> Never {
        do {
            let store = try LogStore(path: path)
            _ = try? store.put([1], for: Array("next".utf8), in: "a")
            try? store.close()
        } catch {}
        exit(0)
    }

    @Test func maximalSequenceNumberDoesNotTrap() async throws {
        let scratch = ScratchDirectory("hostile")
        defer { scratch.remove() }
        let path = scratch.child("store")
        _ = try storeWith(
            FrameBuilder.frame(sequence: .max, payload: FrameBuilder.put(key: [1], value: [1])),
            at: path)
        await #expect(processExitsWith: .success) { [path = path as String] in
            SecurityTests.openStoreWithMaximalSequence(path: path)
        }
    }

    /// The process's peak resident memory, in bytes.
    static func peakMemory() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
