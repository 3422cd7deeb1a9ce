import Foundation
import TestSupport
import Testing

@testable import LogStore

/// Replays the committed corpus of the `keysdir` fuzz target (Tests/Fuzz/corpus/keysdir) on every
/// `swift test`: damaged and forged key directory files over a sound store.
@Suite struct FuzzKeyDirectoryCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/keysdir").path

    @Test func keysdirTargetCorpusReplaysWithoutFinding() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        #expect(names.count >= 10)
        let template = try FuzzKeyDirectoryTemplate()
        for name in names {
            let input = readFile(Self.corpus + "/" + name)
            for problem in fuzzKeyDirectory(input, template: template) {
                Issue.record("\(name): \(problem)")
            }
            // The whole path through a store, which the target's body no longer runs.
            for problem in fuzzKeyDirectoryThroughStore(input, template: template) {
                Issue.record("\(name), through a store: \(problem)")
            }
        }
    }

    /// The template's file is used by open, and the body's checks can fail.
    @Test func theTemplateIsUsedAndAnswersAreCompared() throws {
        var template = try FuzzKeyDirectoryTemplate()
        let file = try #require(template.files[FuzzKeyDirectoryTemplate.keysDir])
        var options = LogStoreOptions()
        options.fileSystem = ByteFileSystem(files: template.files)
        options.readOnly = true
        let store = try LogStore(path: FuzzKeyDirectoryTemplate.directory, options: options)
        #expect(store.recovery.usedKeyDirectory)
        try store.close()
        #expect(fuzzKeyDirectory([0] + file, template: template).isEmpty)
        #expect(fuzzKeyDirectoryThroughStore([0] + file, template: template).isEmpty)
        template = FuzzKeyDirectoryTemplate(files: template.files, contents: [:])
        #expect(!fuzzKeyDirectory([0] + file, template: template).isEmpty)
        #expect(!fuzzKeyDirectoryThroughStore([0] + file, template: template).isEmpty)
    }

    /// The body stops at a file that loading refuses (`Replay.loadKeyDirectory`): open then
    /// ignores it and builds the index from the hints and segments alone, so every such file
    /// gives the same store. That store answers every read as the template does, and open does
    /// ignore a file loading refuses.
    @Test func anIgnoredFileGivesTheTemplatesAnswers() throws {
        let template = try FuzzKeyDirectoryTemplate()
        var file = try #require(template.files[FuzzKeyDirectoryTemplate.keysDir])
        file[FileHeader.size + 4] ^= 0x41  // the last sequence: the meta CRC fails
        var files = template.files
        files[FuzzKeyDirectoryTemplate.keysDir] = file
        var options = LogStoreOptions()
        options.fileSystem = ByteFileSystem(files: files)
        options.readOnly = true
        let directory = FuzzKeyDirectoryTemplate.directory
        var replay = Replay(path: directory, options: options)
        replay.checkingTablesLater = true
        #expect(throws: KeyDirectoryFile.Unusable.self) {
            try replay.loadKeyDirectory(
                StoreFiles(storeAt: directory, fileSystem: options.fileSystem))
        }
        #expect(
            fuzzKeyDirectory([1, UInt8(FileHeader.size + 4), 0, 0x41], template: template) == [])
        let store = try LogStore(path: directory, options: options)
        defer { try? store.close() }
        #expect(!store.recovery.usedKeyDirectory)
        #expect(store.recovery.ignoredKeyDirectory != nil)
        #expect(try template.pointRead(store) == template.contents)
        #expect(try FuzzKeyDirectoryTemplate.read(store) == template.contents)
    }

    /// A file that loading accepts and a later check refuses (here a table entry's hash
    /// changed, so its block's CRC fails): the target's body stops at the refusal, and a store
    /// over that file ignores it (this template's read-only open checks every table already)
    /// and answers every read as the template does.
    @Test func aTableRefusedAfterOpenGivesTheTemplatesAnswers() throws {
        let template = try FuzzKeyDirectoryTemplate()
        let file = try #require(template.files[FuzzKeyDirectoryTemplate.keysDir])
        let entry = KeyDirectoryForgery.liveEntries(file)[0]
        let input: [UInt8] = [1, UInt8(entry & 0xFF), UInt8(entry >> 8), 0x41]
        var files = template.files
        files[FuzzKeyDirectoryTemplate.keysDir] = try #require(
            FuzzKeyDirectoryTemplate.keyDirectory(input, template: template)?.bytes)
        var options = LogStoreOptions()
        options.fileSystem = ByteFileSystem(files: files)
        options.readOnly = true
        let directory = FuzzKeyDirectoryTemplate.directory
        var replay = Replay(path: directory, options: options)
        replay.checkingTablesLater = true
        let start = try replay.loadKeyDirectory(
            StoreFiles(storeAt: directory, fileSystem: options.fileSystem))
        let pending = try #require(start.state.pendingCheck)
        #expect(throws: KeyDirectoryFile.Unusable.self) {
            try pending.checkAll(start.state.directories)
        }
        #expect(fuzzKeyDirectory(input, template: template) == [])
        let store = try LogStore(path: directory, options: options)
        defer { try? store.close() }
        #expect(try template.pointRead(store) == template.contents)
        #expect(try FuzzKeyDirectoryTemplate.read(store) == template.contents)
        #expect(!store.recovery.usedKeyDirectory)
        #expect(store.recovery.ignoredKeyDirectory != nil)
    }

    /// `LOGBOOK_WRITE_FUZZ_SEEDS=1 swift test --filter writesKeyDirectorySeeds` (re)writes the
    /// seeds into Tests/Fuzz/corpus/keysdir, named `seed-…`: the template's file whole, and
    /// patches of each part of it, plain and forged.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_WRITE_FUZZ_SEEDS"] != nil))
    func writesKeyDirectorySeeds() throws {
        let template = try FuzzKeyDirectoryTemplate()
        let file = try #require(template.files[FuzzKeyDirectoryTemplate.keysDir])
        var seeds: [(String, [UInt8])] = [("whole", [0] + file), ("whole-resealed", [2] + file)]
        func patch(_ offset: Int, _ xor: UInt8) -> [UInt8] {
            [UInt8(offset & 0xFF), UInt8(offset >> 8), xor]
        }
        let layout = KeyDirectoryForgery.Layout(file)
        let table = layout.tables[0]
        let entry = KeyDirectoryForgery.liveEntries(file)[0]
        let parts: [(String, Int)] = [
            ("header", 9), ("meta-length", FileHeader.size), ("last-sequence", FileHeader.size + 4),
            ("segment-count", FileHeader.size + 12), ("segment-size", FileHeader.size + 24),
            ("keys", table.keysAt), ("capacity", table.keysAt + 16),
            ("table-offset", table.keysAt + 24), ("blocks", table.keysAt + 32),
            ("entry-hash", entry), ("entry-offset", entry + 5), ("entry-segment", entry + 8),
            ("empty-slot", table.offset + 12 * (table.capacity - 1) + 8),
        ]
        for (name, offset) in parts {
            seeds.append(("patch-" + name, [1] + patch(offset, 0x41)))
            seeds.append(("forged-" + name, [3] + patch(offset, 0x41)))
        }
        for (name, input) in seeds {
            writeFile(Self.corpus + "/seed-" + name, input)
        }
    }
}
