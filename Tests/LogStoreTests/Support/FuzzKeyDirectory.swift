// The body of the `keysdir` fuzz target (Tests/Fuzz/README.md): compiled into the LogStore module
// by Tests/Fuzz/build.sh (-D FUZZING), and into LogStoreTests for the corpus replay.
import Foundation

#if !FUZZING
    @testable import LogStore
#endif

/// A store of several segments and four keyspaces (with overwrites and deletes, one keyspace
/// emptied), closed cleanly so that it has a key directory file: its files' bytes and its
/// contents. Built once, in memory.
struct FuzzKeyDirectoryTemplate {
    static let directory = "/store"
    static let keysDir = directory + "/" + KeyDirectoryFile.name
    /// Every file of the store by path, `keys.dir` included.
    let files: [String: [UInt8]]
    /// Every key's value, as `"keyspace/key"` (hex).
    let contents: [String: [UInt8]]
    /// The keys of `contents` in name order, parsed once (not for every input).
    let keys: [(name: String, keyspace: String, key: [UInt8])]
    /// `contents` by keyspace, then key (what a walk of each keyspace finds).
    let byKeyspace: [String: [[UInt8]: [UInt8]]]

    init(files: [String: [UInt8]], contents: [String: [UInt8]]) {
        self.files = files
        self.contents = contents
        keys = Self.parse(contents)
        byKeyspace = Self.byKeyspace(keys, contents)
    }

    init() throws {
        let fs = MemoryFileSystem()
        var options = LogStoreOptions()
        options.fileSystem = fs
        options.segmentSize = 2048
        options.autoCompactionDeadFraction = nil
        options.keyDirectoryFileMinimumKeys = 0
        options.keyDirectoryFileMaximumShare = nil
        options.durability = .buffered
        let store = try LogStore(path: Self.directory, options: options)
        for i in 0..<300 {
            let keyspace = ["a", "b", "c", "gone"][i % 4]
            let key = Array("key\(i % 61)".utf8) + (i % 7 == 0 ? [0, 0xFF] : [])
            if i % 11 == 5 {
                try store.delete(key, in: keyspace)
            } else {
                try store.put(
                    [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: i % 40), for: key,
                    in: keyspace)
            }
        }
        for key in try store.keys(in: "gone") { try store.delete(key, in: "gone") }
        contents = try Self.read(store)
        keys = Self.parse(contents)
        byKeyspace = Self.byKeyspace(keys, contents)
        try store.close()
        var files: [String: [UInt8]] = [:]
        for name in try fs.contents(ofDirectory: Self.directory) {
            let path = Self.directory + "/" + name
            let file = try fs.open(path, create: false, readOnly: true)
            var bytes = [UInt8](repeating: 0, count: Int(try fs.size(file)))
            _ = try bytes.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
            try fs.close(file)
            files[path] = bytes
        }
        self.files = files
    }

    /// Every key and value of `store`, by walks, checked against the keys listed and counts
    /// (point reads: ``pointRead(_:)``).
    static func read(_ store: LogStore) throws -> [String: [UInt8]] {
        var all: [String: [UInt8]] = [:]
        for keyspace in try store.keyspaces() {
            var walked: Set<[UInt8]> = []
            try store.forEach(in: keyspace) { key, value in
                all[keyspace + "/" + key.map { String($0, radix: 16) }.joined(separator: ".")] =
                    Array(value)
                walked.insert(Array(key))
            }
            let listed = try store.keys(in: keyspace)
            if listed.count != walked.count || !listed.allSatisfy(walked.contains) {
                all[keyspace + "/listed"] = []
            }
            if try store.count(in: keyspace) != walked.count { all[keyspace + "/count"] = [] }
        }
        return all
    }
}

/// Input: `mode: u8, rest`. Mode bit 0 clear: `rest` is the whole `keys.dir`; set: `rest` is
/// patches to the template's file, 3 bytes each (offset: u16 LE, then a byte XORed in there).
/// Bit 1 then makes every CRC match again (meta and table blocks), as a forger would.
///
/// The whole path of a file through a store: the body the `keysdir` target ran before
/// ``fuzzKeyDirectory(_:template:)``, which runs only what reads the file, replaced it (too slow
/// for 10^7 inputs); `FuzzKeyDirectoryCorpusTests` replays the corpus through both. The file is
/// first loaded as open loads it (``Replay/loadKeyDirectory(_:)``, its tables left for the reads
/// to check, ``PendingKeyDirectoryCheck``). A file that load finds unusable is ignored by open,
/// which then builds the index from the template's hints and segments alone: the same whatever
/// the file held (`FuzzKeyDirectoryCorpusTests.anIgnoredFileGivesTheTemplatesAnswers`), so
/// nothing more is run for it. Otherwise the store is opened read-only over the template's
/// segments and read every way.
///
/// Returns what broke: a load that fails otherwise than by refusing the file; a failed open (a
/// key directory file is a cache: open must ignore a bad one); an answer or a read error
/// different from the template's when the file was ignored or not forged; or a different
/// answer (or a read error) from a forged file that `verify`'s check of the key directory file
/// does not report.
@discardableResult
func fuzzKeyDirectoryThroughStore(_ input: [UInt8], template: FuzzKeyDirectoryTemplate)
    -> [String]
{
    guard let (bytes, forged) = FuzzKeyDirectoryTemplate.keyDirectory(input, template: template)
    else { return [] }
    let (fs, options) = template.readOnly(keysDir: bytes)
    let directory = FuzzKeyDirectoryTemplate.directory
    do {
        var replay = Replay(path: directory, options: options)
        replay.checkingTablesLater = true
        _ = try replay.loadKeyDirectory(StoreFiles(storeAt: directory, fileSystem: fs))
    } catch is KeyDirectoryFile.Unusable {
        return []
    } catch {
        return ["loading the key directory file failed: \(error)"]
    }
    let store: LogStore
    do {
        store = try LogStore(path: directory, options: options)
    } catch {
        return ["open failed: \(error)"]
    }
    defer { try? store.close() }
    // Run once at most (a replay of the log): the point reads and the walks may both need it.
    var verified: String?? = nil
    func verifyProblem() -> String? {
        if let verified { return verified }
        let problem = verifyReports(fs)
        verified = .some(problem)
        return problem
    }
    // Point reads first, while the tables are still unchecked (open leaves them to the first
    // read: PendingKeyDirectoryCheck): a damaged file must not change their answers either.
    let pointAnswers = Result { try template.pointRead(store) }
    if (try? pointAnswers.get()) != template.contents {
        guard forged else {
            return ["a key directory file not forged changed a point read: \(pointAnswers)"]
        }
        if let problem = verifyProblem() { return [problem] }
    }
    let used = store.recovery.usedKeyDirectory
    let answer = Result { try FuzzKeyDirectoryTemplate.read(store) }
    if case .success(let found) = answer, found == template.contents { return [] }
    guard used && forged else {
        return [
            "a key directory file \(used ? "not forged" : "ignored") changed an answer: \(answer)"
        ]
    }
    if case .failure(let error) = answer, !(error is LogStoreError) {
        return ["not a LogStoreError: \(error)"]
    }
    // A forged file may mislead reads (or make them throw, when they catch it), but verify
    // must say so.
    return verifyProblem().map { [$0] } ?? []
}

/// What is wrong if `verify` does not report the key directory file in `fs` as unusable: its
/// check of the file (``LogInspector/checkKeyDirectory(_:fileSystem:passBytes:report:)``), the
/// only part of `verify` the file changes (the rest checks the template's segments and hints).
func verifyReports(_ fs: ByteFileSystem) -> String? {
    do {
        var report = VerifyReport()
        LogInspector.checkKeyDirectory(
            try StoreFiles(storeAt: FuzzKeyDirectoryTemplate.directory, fileSystem: fs),
            fileSystem: fs, passBytes: KeyDirectoryFile.comparisonPassBytes, report: &report)
        if !report.problems.contains(where: { $0.kind == .unusableKeyDirectory }) {
            return "a forged key directory file changes answers and verify finds nothing"
        }
    } catch {
        return "verify failed: \(error)"
    }
    return nil
}

extension FuzzKeyDirectoryTemplate {
    /// The keys of `contents` (named as ``read(_:)`` names them) in name order.
    static func parse(_ contents: [String: [UInt8]]) -> [(
        name: String, keyspace: String, key: [UInt8]
    )] {
        contents.keys.sorted().map { name in
            let parts = name.split(separator: "/", maxSplits: 1)
            let key = parts[1].split(separator: ".").map { UInt8($0, radix: 16)! }
            return (name, String(parts[0]), key)
        }
    }

    /// ``contents`` by keyspace, then key.
    static func byKeyspace(
        _ keys: [(name: String, keyspace: String, key: [UInt8])], _ contents: [String: [UInt8]]
    ) -> [String: [[UInt8]: [UInt8]]] {
        var all: [String: [[UInt8]: [UInt8]]] = [:]
        for (name, keyspace, key) in keys { all[keyspace, default: [:]][key] = contents[name] }
        return all
    }

    /// The value of every key of ``contents``, by point reads.
    func pointRead(_ store: LogStore) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for (name, keyspace, key) in keys {
            if let value = try store.get(key, in: keyspace) { found[name] = value }
        }
        return found
    }
}

/// Makes every CRC of a key directory file match its bytes, reading its layout leniently (a
/// field that points outside the file is left alone).
enum FuzzKeyDirectoryReseal {
    static func reseal(_ bytes: inout [UInt8]) {
        func u16(_ at: Int) -> Int? {
            at >= 0 && at + 2 <= bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : nil
        }
        func u32(_ at: Int) -> Int? {
            at >= 0 && at + 4 <= bytes.count
                ? (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } : nil
        }
        func u64(_ at: Int) -> Int? {
            guard at >= 0 && at + 8 <= bytes.count else { return nil }
            let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
            return value > UInt64(Int32.max) ? nil : Int(value)
        }
        func store(_ crc: UInt32, at: Int) {
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        }
        var p = FileHeader.size
        guard let metaLength = u32(p), let segments = u32(p + 12), segments < 1 << 16 else {
            return
        }
        p += 16 + segments * 28
        if let keyspaces = u32(p), keyspaces < 1 << 16 {
            p += 4
            for _ in 0..<keyspaces {
                guard let nameLength = u16(p), let capacity = u64(p + 2 + nameLength + 16),
                    let offset = u64(p + 2 + nameLength + 24),
                    let blocks = u32(p + 2 + nameLength + 32), blocks < 1 << 16
                else { break }
                p += 2 + nameLength + 36
                let length = capacity * 12
                if offset + length <= bytes.count, p + 4 * blocks <= bytes.count {
                    let crcs = bytes.withUnsafeBytes {
                        KeyDirectoryFile.blockCRCs(
                            UnsafeRawBufferPointer(rebasing: $0[offset..<offset + length]),
                            blockSize: KeyDirectoryFile.blockSize(
                                version: $0.loadLE(at: 8, as: UInt16.self)))
                    }
                    for (i, crc) in crcs.prefix(blocks).enumerated() { store(crc, at: p + 4 * i) }
                }
                p += 4 * blocks
            }
        }
        let end = FileHeader.size + metaLength - 4
        guard metaLength >= 4, end + 4 <= bytes.count else { return }
        let crc = bytes.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size..<end]))
        }
        store(crc, at: end)
    }
}
