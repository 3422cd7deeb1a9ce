import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// The index sidecar mapped at open (FORMAT.md Part 2, "Index sidecar", format 2): chunks are
/// used in place until they change, checked before their first use, and a damaged one makes
/// its entity's indexes be built from the records, with the reason reported.
@Suite struct IndexSidecarTests {
    /// A store of 3,000 Staff in several teams, closed (so it has a sidecar): built once, and
    /// copied for each test.
    private static let staff = StoreTemplate("staff-sidecar") { path in
        let container = try ModelContainer(
            for: [Staff.self, Team.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let teams = (0..<3).map { Team("t\($0)") }
        for team in teams { context.insert(team) }
        for i in 0..<3000 {
            context.insert(
                Staff(
                    "staff member \(i)", designation: ["Engineer", "Manager", "Clerk"][i % 3],
                    salary: Int64(i * 7 % 1000), team: teams[i % 3]))
        }
        try context.save()
        try container.close()
    }

    /// The fixture's store becomes a copy of ``staff``.
    private func filled(_ fixture: LogbookFixture) throws {
        try Self.staff.copy(to: fixture.url.path)
    }

    /// A store as ``filled(_:)`` makes it; the salaries below 100 it holds, and the path
    /// of its sidecar.
    private func filledWithSidecar(_ fixture: LogbookFixture) throws -> (
        expected: [String], sidecar: String
    ) {
        try filled(fixture)
        let clean = try fixture.open([Staff.self, Team.self])
        let expected = try salaries(clean, below: 100)
        try clean.close()
        return (expected, fixture.url.path + "/logbook-indexes.sidecar")
    }

    private func salaries(_ container: ModelContainer, below limit: Int64) throws -> [String] {
        try ModelContext(container).fetch(
            FetchDescriptor<Staff>(
                predicate: #Predicate { $0.salary < limit }, sortBy: [SortDescriptor(\.name)])
        ).map(\.name)
    }

    @Test func mappedChunksStayExactThroughChangesAndReopens() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try filled(fixture)
        var container = try fixture.open([Staff.self, Team.self])
        #expect(container.indexesReadFromSidecar)
        #expect(container.indexSidecarNote == nil)
        let expected = try salaries(container, below: 100)
        #expect(expected.count == 300)
        // Changes in some chunks; the others stay in place.
        let context = ModelContext(container)
        let some = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.salary >= 500 && $0.salary < 520 }))
        for staff in some { staff.salary = 5 }
        context.insert(Staff("new one", salary: 1))
        let gone = try context.fetch(
            FetchDescriptor<Staff>(predicate: #Predicate { $0.salary == 99 }))
        for staff in gone { context.delete(staff) }
        try context.save()
        #expect(try container.indexProblems() == [])
        #expect(try salaries(container, below: 100).count == 300 + some.count + 1 - gone.count)
        try context.delete(model: Staff.self, where: #Predicate { $0.salary == 98 })
        #expect(try container.indexProblems() == [])
        try container.close()
        container = try fixture.open([Staff.self, Team.self])
        #expect(container.indexesReadFromSidecar)
        #expect(try container.indexProblems() == [])
        #expect(
            try salaries(container, below: 100).count == 300 + some.count + 1 - gone.count - 3)
        // An unchanged open writes nothing at close, and the next open maps it again.
        try container.close()
        container = try fixture.open([Staff.self, Team.self])
        #expect(container.indexesReadFromSidecar)
        #expect(try container.indexProblems() == [])
    }

    /// Where a byte is flipped (offsets in the file; the contents start at 32).
    enum Damage: CaseIterable {
        case format, headerField, firstChunkEnds, firstChunkEntries, middle, summary
        /// One of the three bytes after `format` that FORMAT.md says are zero (no CRC covers
        /// them but the whole file's).
        case zeroBytes
        /// A byte every 4 KiB of the chunk data: whatever a fetch reads first fails its check
        /// during the fetch, which then runs again on indexes built from the records.
        case everyChunk
    }

    /// Sidecars written before the snapshot's zero bytes were checked (the committed fixture
    /// stores') hold zeros there, so today's check takes them as they are.
    @Test func committedFixtureSidecarsHaveTheirZeroBytesZero() throws {
        for name in ["PreInheritance.logbook", "SchemaFormats1and2.logbook"] {
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../Fixtures/\(name)/logbook-indexes.sidecar")
                .standardized.path
            let bytes = try #require(FileManager.default.contents(atPath: path), "\(name)")
            #expect(bytes.count > 36 && bytes[33...35].allSatisfy { $0 == 0 }, "\(name)")
        }
    }

    @Test(arguments: Damage.allCases)
    func damageIsFoundBeforeUseAndTheIndexesAreBuilt(_ damage: Damage) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (expected, sidecar) = try filledWithSidecar(fixture)
        var bytes = readFile(sidecar)
        var offset: Int
        switch damage {
        case .everyChunk:
            let summaryOffset = bytes[40..<48].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset = 64
            while offset < 32 + summaryOffset - 1 {
                bytes[offset] ^= 0x5A
                offset += 4096
            }
            offset = 32 + summaryOffset - 1
        case .format: offset = 32
        case .zeroBytes: offset = 32 + 2
        case .headerField: offset = 32 + 9
        case .firstChunkEnds: offset = 64 + 2
        case .firstChunkEntries: offset = 64 + 200
        case .middle: offset = bytes.count / 2
        case .summary: offset = bytes.count - 20
        }
        bytes[offset] ^= 0x5A
        writeFile(sidecar, bytes)
        let container = try fixture.open([Staff.self, Team.self])
        // The first use (a fetch) finds the damage and gets the right answer.
        #expect(try salaries(container, below: 100) == expected, "\(damage)")
        #expect(!container.indexesReadFromSidecar, "\(damage)")
        let note = container.indexSidecarNote ?? ""
        switch damage {
        case .format: #expect(note.contains("another format"), "\(note)")
        case .headerField, .summary, .zeroBytes:
            #expect(note.contains("does not decode"), "\(note)")
        default: #expect(note.contains("damaged"), "\(note)")
        }
        #expect(try container.indexProblems() == [], "\(damage)")
        // A save after the rebuild, and a close that writes a sound sidecar again.
        let context = ModelContext(container)
        context.insert(Staff("late", salary: 3))
        try context.save()
        try container.close()
        let reopened = try fixture.open([Staff.self, Team.self])
        #expect(reopened.indexesReadFromSidecar, "\(damage): \(reopened.indexSidecarNote ?? "")")
        #expect(try reopened.indexProblems() == [])
        #expect(try salaries(reopened, below: 100).count == expected.count + 1)
    }

    /// A forged sidecar (every CRC right) whose chunk ends in an entry that sorts after the
    /// next chunk's head: its check finds it before a lookup can miss entries.
    @Test func aChunkSortingAfterTheNextOneFailsItsCheck() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (expected, sidecar) = try filledWithSidecar(fixture)
        var bytes = readFile(sidecar)
        let chunks = FuzzSidecarLayout(bytes).chunks
        // A chunk followed by another of the same index (directory records adjacent), whose
        // last entry is raised: still last in its chunk, but after the next chunk's head.
        let c = try #require(
            chunks.indices.dropLast().first {
                chunks[$0 + 1].record == chunks[$0].record + 20
                    && bytes[chunks[$0 + 1].data + 4 * readChunkEnds(bytes, chunks[$0 + 1]).count]
                        < 0xFF
            })
        let ends = readChunkEnds(bytes, chunks[c])
        bytes[chunks[c].data + 4 * ends.count + ends[ends.count - 2]] = 0xFF
        FuzzSidecarLayout.reseal(&bytes)
        writeFile(sidecar, bytes)
        let container = try fixture.open([Staff.self, Team.self])
        #expect(try salaries(container, below: 100) == expected)
        let note = container.indexSidecarNote ?? ""
        #expect(note.contains("sorts after the next chunk's head"), "\(note)")
        #expect(try container.indexProblems() == [])
    }

    @Test func aDamagedChunkFoundByASaveIsBuiltFirst() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try filled(fixture)
        let sidecar = fixture.url.path + "/logbook-indexes.sidecar"
        var bytes = readFile(sidecar)
        bytes[bytes.count / 3] ^= 0x01
        writeFile(sidecar, bytes)
        let container = try fixture.open([Staff.self, Team.self])
        // The unique check and the index upkeep of the save meet the damage first.
        let context = ModelContext(container)
        context.insert(Staff("staff member 7"))
        #expect(throws: LogbookError.self) { try context.save() }
        context.rollback()
        context.insert(Staff("someone else", salary: 2))
        try context.save()
        #expect(container.indexSidecarNote?.contains("damaged") == true)
        #expect(try container.indexProblems() == [])
    }

    @Test func statisticsComeFromTheSummaryAlone() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try filled(fixture)
        var readOnly = LogStoreOptions()
        readOnly.readOnly = true
        let store = try LogStore(path: fixture.url.path, options: readOnly)
        let stored = try #require(try IndexStatistics.stored(in: store))
        try store.close()
        let container = try fixture.open([Staff.self, Team.self])
        let loaded = container.indexStatistics()
        #expect(stored.map(\.entries) == loaded.map(\.entries))
        #expect(stored.map(\.fields) == loaded.map(\.fields))
        for (a, b) in zip(stored, loaded) {
            #expect(abs(a.memoryBytes - b.memoryBytes) <= b.memoryBytes / 100, "\(a) vs \(b)")
        }
        // Damage to the chunks does not matter to the summary; damage to it does.
        let sidecar = fixture.url.path + "/logbook-indexes.sidecar"
        try container.close()
        var bytes = readFile(sidecar)
        bytes[bytes.count - 20] ^= 0x5A
        writeFile(sidecar, bytes)
        let damaged = try LogStore(path: fixture.url.path, options: readOnly)
        #expect(try IndexStatistics.stored(in: damaged) == nil)
        try damaged.close()
    }

    @Test func aMappedSidecarHasTheBytesWrittenAndItsHeaderChecked() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let store = try LogStore(path: fixture.url.path)
        #expect(try store.mapSidecar(named: "probe") == nil)
        try store.put(Array("v".utf8), for: Array("k".utf8), in: "ks")
        let contents = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try store.writeSidecar(named: "probe", contents: contents, sequence: store.lastSequence)
        let mapped = try #require(try store.mapSidecar(named: "probe"))
        #expect(mapped.sequence == store.lastSequence)
        #expect(Array(mapped.contents) == contents)
        #expect(Int(bitPattern: mapped.contents.baseAddress) % 8 == 0)
        // A new sidecar replaces the file by a rename: the mapping keeps the old bytes, also
        // after the store closes.
        try store.writeSidecar(
            named: "probe", contents: Array(repeating: 1, count: 64), sequence: store.lastSequence)
        #expect(try store.mapSidecar(named: "probe")?.contents.count == 64)
        #expect(Array(mapped.contents) == contents)
        // The contents CRC is the reader's to check; the header is checked here.
        let file = fixture.url.path + "/probe.sidecar"
        var bytes = readFile(file)
        bytes[40] ^= 1
        writeFile(file, bytes)
        #expect(try store.mapSidecar(named: "probe") != nil)
        #expect(throws: LogStoreError.self) { try store.readSidecar(named: "probe") }
        bytes[13] ^= 1
        writeFile(file, bytes)
        #expect(throws: LogStoreError.self) { try store.mapSidecar(named: "probe") }
        try store.close()
        #expect(Array(mapped.contents) == contents)
    }
}
