import Foundation
import Logbook
import TestSupport
import Testing

/// A fetch lets go first of the objects an earlier fetch of its entity registered and that
/// nobody holds (it neither indexes them nor looks its matches up among them). What the app
/// holds, and what has unsaved changes, must stay the one registered instance.
@MainActor @Suite struct UnheldObjectReleaseTests {
    /// No sort: the objects are built as the index read meets them, and registered without
    /// indexing (as a sorted fetch of more than 1,024 objects registers them too).
    static func inSection(_ section: String) -> FetchDescriptor<Voucher> {
        FetchDescriptor<Voucher>(predicate: #Predicate { $0.section == section })
    }

    /// Objects of one fetch that the app keeps, or changed and let go, are the ones the next
    /// fetches return; those it let go unchanged come back with their stored values.
    @Test func heldAndChangedObjectsStayRegisteredAcrossFetches() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Voucher.self])
        try RepeatedFetchTests.saveVouchers(60, in: ModelContext(container))
        let context = ModelContext(container)
        var first = try context.fetch(Self.inSection("s1"))
        #expect(first.count == 20)
        let held = Array(first.prefix(3))
        first[5].name = "changed"
        let changedCode = first[5].code
        first = []
        // Another entity shape in between: the same entity, other objects.
        #expect(try context.fetch(Self.inSection("s2")).count == 20)
        let again = try context.fetch(Self.inSection("s1"))
        #expect(again.count == 20)
        for object in held {
            #expect(again.contains { $0 === object }, "held \(object.code)")
        }
        let changed = try #require(again.first { $0.code == changedCode })
        #expect(changed.name == "changed")
        #expect(context.hasChanges)
        // Fetched twice while held: one instance per identifier.
        let twice = try context.fetch(Self.inSection("s1"))
        #expect(zip(again, twice).allSatisfy { $0 === $1 })
        for voucher in again where voucher.code != changedCode {
            let i = Int(voucher.code.dropFirst())!
            #expect(voucher.name == "c\(i + 1)", "\(voucher.code)")
        }
    }

    /// Enough objects for the context to prune between fetches, some held through a later
    /// fetch (so indexed) and then let go: every later look-up, by fetch or by identifier,
    /// finds the right object with its stored values (no stale registration).
    @Test func prunedObjectsAreNeverFoundAgainByTheirOldEntries() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Voucher.self])
        try RepeatedFetchTests.saveVouchers(9_000, in: ModelContext(container))
        let context = ModelContext(container)
        for round in 0..<6 {
            let section = "s\(round % 3)"
            var kept = try context.fetch(Self.inSection(section))
            #expect(kept.count == 3_000)
            // Held through the next fetch: its look-ups index these.
            var other = try context.fetch(Self.inSection("s\((round + 1) % 3)"))
            #expect(other.count == 3_000)
            let ids = kept.prefix(50).map(\.persistentModelID)
            kept = []
            other = []
            // An insert registers an object outside a fetch: past 4,096 objects, the context
            // prunes the 6,000 nobody holds now.
            context.insert(Voucher(code: "x\(round)", name: "", section: "x", price: 0))
            context.rollback()
            for id in ids {
                let voucher = try #require(context.model(for: id) as? Voucher)
                #expect(voucher.persistentModelID == id)
                let i = Int(voucher.code.dropFirst())!
                #expect(voucher.name == "c\(i + 1)" && voucher.section == section)
            }
            let byCode = try context.fetch(RepeatedFetchTests.byCode("c\(round * 7 + 3)"))
            #expect(byCode.map(\.name) == ["c\(round * 7 + 4)"])
        }
    }
}
