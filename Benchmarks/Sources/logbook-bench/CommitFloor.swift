import Foundation

/// The floor under YCSB's one-write commits (A, F, the inserts of D and E), without any engine:
/// what handing one record's bytes to the operating system costs on this machine, the two ways
/// a buffered commit can do it. Both survive a crash of the process, not of the machine:
/// - `write`: a `pwrite(2)` of the record at the end of a plain file, one system call a commit
///   (LogStore's `.buffered` commit, LevelDB's and RocksDB's unsynced log writes);
/// - `mapped`: a copy into a shared mapping of the file, no system call (LMDB's `MDB_WRITEMAP`
///   commit; the kernel writes the pages back later, untimed).
/// The file is written once with zeros (and mapped pages touched) before the clock starts, so
/// both figures are the hand-over alone, into pages already in memory, as a store in steady
/// state finds them (LMDB reuses freed pages; LogStore's zero tail extends its segment ahead).
/// A store that commits by system call pays at least the first figure a commit, one that writes
/// into a shared mapping the second.
enum CommitFloor {
    static var workload: Workload {
        Workload(
            name: "ycsb-commit-floor", group: "ycsb",
            summary: "one record handed to the OS a commit: pwrite(2) against a shared mapping"
        ) { context in
            let commits = context.sizes.ycsbOperations
            for valueSize in [1000, 100] {
                let recordBytes = BenchKey.size + valueSize
                try ScratchDirectory.with("commit-floor") { directory in
                    let write = try measureWrites(
                        directory + "/write.bare", commits: commits, recordBytes: recordBytes)
                    let mapped = try measureMapped(
                        directory + "/mapped.bare", commits: commits, recordBytes: recordBytes)
                    for (name, seconds, how) in [
                        ("write", write, "pwrite(2) of the record at the end of a file"),
                        ("mapped", mapped, "copy into a MAP_SHARED mapping of the file"),
                    ] {
                        context.reporter.figure(
                            "ycsb-commit-floor-\(name)/\(valueSize)b", engine: "machine",
                            value: seconds * 1e9 / Double(commits),
                            unit: "ns a commit of \(recordBytes) bytes: \(how), no engine")
                    }
                }
            }
        }
    }

    /// A file of `length` zero bytes, written (so its pages are in memory), open for writing.
    static func zeroFile(_ path: String, length: Int) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError.setup("open \(path): errno \(errno)") }
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var written = 0
        while written < length {
            let count = min(zeros.count, length - written)
            guard zeros.withUnsafeBytes({ write(descriptor, $0.baseAddress, count) }) == count
            else {
                close(descriptor)
                throw BenchError.setup("write \(path): errno \(errno)")
            }
            written += count
        }
        return descriptor
    }

    /// Seconds for `commits` writes of `recordBytes` bytes one after the other, one `pwrite`
    /// each.
    static func measureWrites(_ path: String, commits: Int, recordBytes: Int) throws -> Double {
        let descriptor = try zeroFile(path, length: commits * recordBytes)
        defer { close(descriptor) }
        let record = [UInt8](repeating: 0x61, count: recordBytes)
        var failed = false
        let seconds = record.withUnsafeBytes { bytes in
            measure {
                for commit in 0..<commits {
                    let offset = off_t(commit * recordBytes)
                    if pwrite(descriptor, bytes.baseAddress, recordBytes, offset) != recordBytes {
                        failed = true
                        return
                    }
                }
            }
        }
        if failed { throw BenchError.setup("pwrite \(path): errno \(errno)") }
        return seconds
    }

    /// Seconds for `commits` copies of `recordBytes` bytes, one after the other, into a shared
    /// mapping of the file.
    static func measureMapped(_ path: String, commits: Int, recordBytes: Int) throws -> Double {
        let length = commits * recordBytes
        let descriptor = try zeroFile(path, length: length)
        defer { close(descriptor) }
        guard
            let map = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
            map != MAP_FAILED
        else { throw BenchError.setup("mmap \(path): errno \(errno)") }
        defer { munmap(map, length) }
        for page in stride(from: 0, to: length, by: 4096) {
            map.storeBytes(of: 0, toByteOffset: page, as: UInt8.self)
        }
        let record = [UInt8](repeating: 0x61, count: recordBytes)
        return record.withUnsafeBytes { bytes in
            measure {
                for commit in 0..<commits {
                    (map + commit * recordBytes).copyMemory(
                        from: bytes.baseAddress!, byteCount: recordBytes)
                }
            }
        }
    }
}
