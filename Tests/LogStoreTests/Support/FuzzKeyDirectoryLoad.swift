// The body of the `keysdir` fuzz target (Tests/Fuzz/README.md): compiled into the LogStore module
// by Tests/Fuzz/build.sh (-D FUZZING), and into LogStoreTests for the corpus replay.
import Foundation

#if !FUZZING
    @testable import LogStore
#endif

/// Input: `mode: u8, rest`, as for ``fuzzKeyDirectoryThroughStore(_:template:)``, which opens
/// a store over each file; this body does not, so that the target runs thousands of inputs a
/// second. Only the key directory file changes from one input to the next, so only what reads
/// it runs: the file is loaded as open loads it (``Replay/loadKeyDirectory(_:)``, its tables
/// left unchecked, ``PendingKeyDirectoryCheck``), every key of the template is read through
/// the loaded index as a point read reads it (the pending check of what its probe reads first,
/// then the table whole once every block of it has been checked so), every table is then
/// checked whole as the first walk does (``PendingKeyDirectoryCheck/checkAll(_:)``), and every
/// table is walked (``KeyDirectory/forEach(_:_:)``, the entries' records checked as a walk
/// checks them) and its count compared with the keys walked.
///
/// A check that refuses the file stops the body: open and the first read then build the index
/// from the template's hints and segments whatever the file held (checked once by
/// `FuzzKeyDirectoryCorpusTests`: `anIgnoredFileGivesTheTemplatesAnswers`,
/// `aTableRefusedAfterOpenGivesTheTemplatesAnswers`); answers given before a refusal are
/// still compared.
///
/// Returns what broke: a load that fails otherwise than by refusing the file; an answer (or a
/// read error) different from the template's from a file not forged; or a different answer
/// (or a read error) from a forged file that `verify`'s check of the key directory file
/// (`LogInspector.checkKeyDirectory`) does not report.
@discardableResult
func fuzzKeyDirectory(_ input: [UInt8], template: FuzzKeyDirectoryTemplate) -> [String] {
    guard let (bytes, forged) = FuzzKeyDirectoryTemplate.keyDirectory(input, template: template)
    else { return [] }
    let (fs, options) = template.readOnly(keysDir: bytes)
    let directory = FuzzKeyDirectoryTemplate.directory
    var state: StoreState
    do {
        var replay = Replay(path: directory, options: options)
        replay.checkingTablesLater = true
        state = try replay.loadKeyDirectory(StoreFiles(storeAt: directory, fileSystem: fs)).state
    } catch is KeyDirectoryFile.Unusable {
        return []
    } catch {
        return ["loading the key directory file failed: \(error)"]
    }
    // Whatever is compared below differs from the template: a finding unless the file was
    // forged and verify's check of it reports it.
    func differs(_ what: String) -> [String] {
        guard forged else { return ["a key directory file not forged changed \(what)"] }
        return verifyReports(fs).map { [$0 + " (\(what))"] } ?? []
    }
    var wrongPoint: String?
    var refused = false
    do {
        try readEveryKey(template, &state, wrong: &wrongPoint, refused: &refused)
    } catch {
        return differs("a point read, which threw \(error)")
    }
    // After a refusal, open's rebuild answers the rest: the answers given before must be the
    // template's too.
    if let wrongPoint { return differs("the point read of \(wrongPoint)") }
    if refused { return [] }
    if let pending = state.pendingCheck {
        do {
            try pending.checkAll(state.directories)
        } catch {
            return []
        }
        state.setPendingCheck(nil)
    }
    do {
        return try walksMatch(template, state) ? [] : differs("a walk or a count")
    } catch {
        return differs("a walk, which threw \(error)")
    }
}

/// Reads every key of `template` through `state` as ``LogStore/get(_:in:)`` reads it while
/// tables are unchecked (``StoreStateLock/checkProbe(_:key:in:storePath:)``), and sets `wrong`
/// to the first whose value is not the template's; sets `refused` and stops at the first check
/// that fails (the store would rebuild its index there).
private func readEveryKey(
    _ template: FuzzKeyDirectoryTemplate, _ state: inout StoreState, wrong: inout String?,
    refused: inout Bool
) throws {
    let path = FuzzKeyDirectoryTemplate.directory
    for (name, keyspace, key) in template.keys {
        let expected = template.contents[name]
        guard let id = state.keyspaces.id(of: keyspace) else {
            if wrong == nil && expected != nil { wrong = name }
            continue
        }
        let same = try key.withUnsafeBytes { key throws -> Bool in
            if state.hasPendingCheck {
                do {
                    let entries = state.directories[id].entries
                    if try state.checkPendingProbe(
                        hash: KeyDirectory.hash(key), entries: entries, in: id)
                    {
                        var pending = state.pendingCheck!
                        try pending.checkTable(id, of: state.directories)
                        state.setPendingCheck(pending)
                    }
                } catch {
                    refused = true
                    return true
                }
            }
            let found = try state.find(key, in: id, storePath: path)?.1.value
            guard let found, let expected else { return found == nil && expected == nil }
            return found.elementsEqual(expected)
        }
        if refused { return }
        if !same && wrong == nil { wrong = name }
    }
}

/// Whether walking every table of `state` (its entries' records checked as a walk checks them)
/// finds exactly the template's keys and values, and each table's count is the keys walked.
private func walksMatch(_ template: FuzzKeyDirectoryTemplate, _ state: StoreState) throws -> Bool {
    var keyspaces = 0
    for id in 1..<state.directories.count {
        guard let keyspace = state.keyspaces.name(of: id) else { continue }
        let expected = template.byKeyspace[keyspace] ?? [:]
        if !expected.isEmpty { keyspaces += 1 }
        var walked = 0
        var same = true
        try state.directories[id].forEach(state.bases) { _, record in
            walked += 1
            if same, expected[Array(record.key)]?.elementsEqual(record.value) != true {
                same = false
            }
        }
        guard same, walked == expected.count, walked == state.directories[id].count else {
            return false
        }
    }
    return keyspaces == template.byKeyspace.count
}

extension FuzzKeyDirectoryTemplate {
    /// The key directory file `input` gives (`mode: u8, rest`, see
    /// ``fuzzKeyDirectoryThroughStore(_:template:)``), and whether it was forged (its CRCs
    /// made to match); `nil` for an empty input.
    static func keyDirectory(_ input: [UInt8], template: Self) -> (bytes: [UInt8], forged: Bool)? {
        guard let mode = input.first else { return nil }
        let rest = input.dropFirst()
        var bytes: [UInt8]
        if mode & 1 == 0 {
            bytes = Array(rest)
        } else {
            bytes = template.files[keysDir] ?? []
            var patches = rest[...]
            while patches.count >= 3, !bytes.isEmpty {
                let at =
                    (Int(patches[patches.startIndex]) | Int(patches[patches.startIndex + 1]) << 8)
                bytes[at % bytes.count] ^= patches[patches.startIndex + 2]
                patches = patches.dropFirst(3)
            }
        }
        let forged = mode & 2 != 0
        if forged { FuzzKeyDirectoryReseal.reseal(&bytes) }
        return (bytes, forged)
    }

    /// The template's files with `keysDir` replaced by `bytes`, and read-only options over them.
    func readOnly(keysDir bytes: [UInt8]) -> (ByteFileSystem, LogStoreOptions) {
        var files = self.files
        files[Self.keysDir] = bytes
        let fs = ByteFileSystem(files: files)
        var options = LogStoreOptions()
        options.fileSystem = fs
        options.readOnly = true
        options.autoCompactionDeadFraction = nil
        return (fs, options)
    }
}
