import Foundation
import Logbook
import TestSupport
import Testing

/// A class's objects fetched from records of an older schema version that lack the newest
/// fields (attributes added at the end): each read field as stored, nulls as nulls, and each
/// missing field the default it had in the version that added it, not the class's initial value.
@MainActor @Suite struct OlderRecordLoadTests {
    enum V1 {
        final class Gauge: PersistentModel {
            @Attribute var name = ""
            @Attribute var count: Int64 = 0
            @Attribute var ratio = 0.0
            @Attribute var flag = false
            @Attribute var note: String? = nil
            @Attribute var opened = Date(timeIntervalSince1970: 0)
            init() {}
        }
    }

    /// V1 with fields added at the end, each with a default.
    enum V2 {
        final class Gauge: PersistentModel {
            @Attribute var name = ""
            @Attribute var count: Int64 = 0
            @Attribute var ratio = 0.0
            @Attribute var flag = false
            @Attribute var note: String? = nil
            @Attribute var opened = Date(timeIntervalSince1970: 0)
            @Attribute var level: Int64 = 7
            @Attribute var title = "added"
            @Attribute var score = 1.5
            @Attribute var active = true
            @Attribute var tag: String? = "t"
            init() {}
        }
    }

    /// V2 with other initial values: records of V1 still read V2's defaults.
    enum V3 {
        final class Gauge: PersistentModel {
            @Attribute var name = ""
            @Attribute var count: Int64 = 0
            @Attribute var ratio = 0.0
            @Attribute var flag = false
            @Attribute var note: String? = nil
            @Attribute var opened = Date(timeIntervalSince1970: 0)
            @Attribute var level: Int64 = 9
            @Attribute var title = "changed"
            @Attribute var score = 2.5
            @Attribute var active = false
            @Attribute var tag: String? = nil
            init() {}
        }
    }

    @Test func fieldsAddedAtTheEndReadTheDefaultsOfTheVersionThatAddedThem() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([V1.Gauge.self])
            let context = container.mainContext
            let a = V1.Gauge()
            (a.name, a.count, a.ratio, a.flag, a.note) = ("a", -3, 0.25, true, "kept")
            a.opened = Date(timeIntervalSince1970: 1_000)
            let b = V1.Gauge()
            (b.name, b.count) = ("b", 5)
            context.insert(a)
            context.insert(b)
            try context.save()
            try container.close()
        }
        try fixture.open([V2.Gauge.self]).close()
        let container = try fixture.open([V3.Gauge.self])
        defer { try? container.close() }
        let gauges = try container.mainContext.fetch(
            FetchDescriptor<V3.Gauge>(sortBy: [SortDescriptor(\.name)]))
        try #require(gauges.count == 2)
        let (a, b) = (gauges[0], gauges[1])
        #expect(a.name == "a" && a.count == -3 && a.ratio == 0.25 && a.flag && a.note == "kept")
        #expect(a.opened == Date(timeIntervalSince1970: 1_000))
        #expect(b.name == "b" && b.count == 5 && b.ratio == 0 && !b.flag && b.note == nil)
        for gauge in gauges {
            #expect(gauge.level == 7)
            #expect(gauge.title == "added")
            #expect(gauge.score == 1.5)
            #expect(gauge.active)
            #expect(gauge.tag == "t")
        }
    }
}
