import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// ``StoreCheck``: the one consistency check `logbook verify` prints.
@MainActor @Suite struct StoreCheckTests {
    private func filled(_ fixture: LogbookFixture) throws {
        let container = try fixture.open()
        for i in 0..<500 {
            container.mainContext.insert(
                Employee(name: "e\(i)", designation: i % 2 == 0 ? "Engineer" : "Clerk"))
        }
        try container.mainContext.save()
        try container.close()  // writes the index sidecar
    }

    @Test func aSoundStoreChecksClean() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try filled(fixture)
        let report = try StoreCheck.run(storeAt: fixture.url.path)
        #expect(!report.isDamaged)
        #expect(report.objectsChecked == 500)
        #expect(report.damagedRecords.isEmpty && report.danglingReferences.isEmpty)
        #expect(report.unusableIndexSidecar == nil)
    }

    @Test func aDamagedCurrentIndexSidecarIsReportedButIsNotDamage() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try filled(fixture)
        let path = fixture.url.path + "/logbook-indexes.sidecar"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x5A
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let report = try StoreCheck.run(storeAt: fixture.url.path)
        let finding = try #require(report.unusableIndexSidecar)
        #expect(finding.path == path)
        #expect(finding.message.contains("checksum"), "\(finding)")
        #expect(!report.isDamaged)
    }

    @Test func anOutOfDateIndexSidecarIsNoFinding() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try filled(fixture)
        // A commit after the close: the sidecar no longer describes the store.
        var options = LogStoreOptions()
        options.autoCompactionDeadFraction = nil
        let store = try LogStore(path: fixture.url.path, options: options)
        try store.put([1], for: [1], in: "other")
        try store.close()
        #expect(try StoreCheck.run(storeAt: fixture.url.path).unusableIndexSidecar == nil)
    }
}
