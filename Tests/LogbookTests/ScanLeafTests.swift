import Foundation
import Logbook
import TestSupport
import Testing

/// A scan whose predicate is one string (in)equality tests each record's bytes before it
/// locates the other fields (issue 12). The answers must be those of the general path: nulls,
/// records of an older schema version, and the context's unsaved changes take part as before.
@MainActor @Suite struct ScanLeafTests {
    /// `note` is optional and follows five fields of every other kind.
    @Test func equalityOnAnOptionalStringAfterFieldsOfEveryKind() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([FieldKinds.self])
        let context = ModelContext(container)
        let notes: [String?] = [nil, "x", "y", nil, "x", "", "\u{212A}", "K"]
        for (i, note) in notes.enumerated() {
            let object = FieldKinds()
            object.note = note
            object.count = i
            object.text = String(repeating: "t", count: i * 40)  // lengths of 1 and 2 bytes
            context.insert(object)
        }
        try context.save()
        func counts(_ predicate: Predicate<FieldKinds>) throws -> [Int] {
            try ModelContext(container).fetch(
                FetchDescriptor<FieldKinds>(predicate: predicate, sortBy: [SortDescriptor(\.count)])
            ).map(\.count)
        }
        #expect(try counts(#Predicate { $0.note == "x" }) == [1, 4])
        #expect(try counts(#Predicate { $0.note != "x" }) == [0, 2, 3, 5, 6, 7])
        #expect(try counts(#Predicate { $0.note == "" }) == [5])
        #expect(try counts(#Predicate { $0.note == "K" }) == [6, 7])
        #expect(try counts(#Predicate { $0.note != "K" }) == [0, 1, 2, 3, 4, 5])
        #expect(try counts(#Predicate { $0.text == "" }) == [0])
        #expect(
            try ModelContext(container).fetchCount(
                FetchDescriptor<FieldKinds>(predicate: #Predicate { $0.note == "x" })) == 2)
        try container.close()
    }

    /// Byte tests against Swift's canonical equality: combining marks after an ASCII first
    /// byte, precomposed and decomposed forms, a different ASCII first byte, prefixes.
    @Test func byteTestsAgreeWithCanonicalEquality() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([ScanRow.self])
        let context = ModelContext(container)
        let values = [
            "A", "A\u{30A}", "\u{C5}", "B\u{30A}", "e\u{301}", "\u{E9}", "e", "E", "",
            "\u{212A}", "K", "Ka", "aK", "Engineer", "Engineers", "Enginee", "Fngineer",
            "Engineer\u{301}", "\u{212A}elvin", "Kelvin", "Lelvin", "abcdefghijklmnop\u{301}",
            String(repeating: "long ", count: 40),
        ]
        for (i, value) in values.enumerated() {
            context.insert(
                ScanRow(label: "\(i)", count: Int64(i) * 1000, value: value, rank: Int64(i)))
        }
        try context.save()
        for constant in values + ["Å", "é", "Kelvin\u{301}", "zz"] {
            let equal = try ModelContext(container).fetch(
                FetchDescriptor<ScanRow>(
                    predicate: #Predicate { $0.value == constant }, sortBy: [SortDescriptor(\.rank)]
                ))
            #expect(equal.map(\.value) == values.filter { $0 == constant }, "\(constant)")
            let notEqual = try ModelContext(container).fetch(
                FetchDescriptor<ScanRow>(
                    predicate: #Predicate { $0.value != constant }, sortBy: [SortDescriptor(\.rank)]
                ))
            #expect(notEqual.map(\.value) == values.filter { $0 != constant }, "\(constant)")
            #expect(
                try ModelContext(container).fetchCount(
                    FetchDescriptor<ScanRow>(predicate: #Predicate { $0.value == constant }))
                    == values.filter { $0 == constant }.count)
        }
        try container.close()
    }

    /// Records written before `rank` was added are decoded in full; records written since
    /// take the byte test. Both kinds are in one result, sorted by the added field.
    @Test func recordsOfAnOlderSchemaVersionTakePart() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open(
                schema: Schema([
                    Entity(
                        name: "ScanRow",
                        attributes: [
                            AttributeDescription("label", .string),
                            AttributeDescription("count", .integer),
                            AttributeDescription("value", .string),
                        ])
                ]))
            for (label, value) in [("a", "Engineer"), ("b", "Manager"), ("c", "Engineer")] {
                try container.mainContext.insert(
                    entity: "ScanRow", values: ["label": label, "count": Int64(1), "value": value])
            }
            try container.mainContext.save()
            try container.close()
        }
        let container = try fixture.open([ScanRow.self])
        let context = ModelContext(container)
        context.insert(ScanRow(label: "d", count: 2, value: "Engineer", rank: -5))
        context.insert(ScanRow(label: "e", count: 2, value: "Manager", rank: 7))
        try context.save()
        let engineers = try ModelContext(container).fetch(
            FetchDescriptor<ScanRow>(
                predicate: #Predicate { $0.value == "Engineer" },
                sortBy: [SortDescriptor(\.rank), SortDescriptor(\.label)]))
        #expect(engineers.map(\.label) == ["d", "a", "c"])
        let others = try ModelContext(container).fetch(
            FetchDescriptor<ScanRow>(
                predicate: #Predicate { $0.value != "Engineer" }, sortBy: [SortDescriptor(\.label)])
        )
        #expect(others.map(\.label) == ["b", "e"])
        #expect(
            try ModelContext(container).delete(
                model: ScanRow.self, where: #Predicate { $0.value == "Manager" }) == 2)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ScanRow>()) == 3)
        try container.close()
    }

    /// Unsaved inserts, changes and deletes of the fetching context decide for their objects,
    /// whatever their stored records say.
    @Test func unsavedChangesOverrideTheStoredBytes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([ScanRow.self])
        let setup = ModelContext(container)
        let rows = [("a", "Engineer"), ("b", "Manager"), ("c", "Engineer"), ("d", "Engineer")]
        for (i, (label, value)) in rows.enumerated() {
            setup.insert(ScanRow(label: label, count: 0, value: value, rank: Int64(i)))
        }
        try setup.save()
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<ScanRow>(sortBy: [SortDescriptor(\.label)]))
        all[0].value = "Manager"  // a: stored as an Engineer, no longer one
        all[1].value = "Engineer"  // b: stored as a Manager, now one
        all[1].rank = 10
        context.delete(all[2])  // c: stored as an Engineer, deleted
        context.insert(ScanRow(label: "e", count: 0, value: "Engineer", rank: -1))
        let engineers = try context.fetch(
            FetchDescriptor<ScanRow>(
                predicate: #Predicate { $0.value == "Engineer" }, sortBy: [SortDescriptor(\.rank)]))
        #expect(engineers.map(\.label) == ["e", "d", "b"])
        #expect(engineers[2] === all[1])
        let notEngineers = try context.fetch(
            FetchDescriptor<ScanRow>(
                predicate: #Predicate { $0.value != "Engineer" }, sortBy: [SortDescriptor(\.label)])
        )
        #expect(notEngineers.map(\.label) == ["a"])
        #expect(
            try context.fetchCount(
                FetchDescriptor<ScanRow>(predicate: #Predicate { $0.value == "Engineer" })) == 3)
        // Left out, the unsaved changes do not count: the stored records answer.
        var stored = FetchDescriptor<ScanRow>(
            predicate: #Predicate { $0.value == "Engineer" }, sortBy: [SortDescriptor(\.label)])
        stored.includePendingChanges = false
        #expect(try context.fetch(stored).map(\.label) == ["a", "c", "d"])
    }
}

/// A string after a string and an integer, none of them indexed: predicates on `value` take
/// the scan's byte test with two fields stepped over.
final class ScanRow: PersistentModel {
    @Attribute var label = ""
    @Attribute var count: Int64 = 0
    @Attribute var value = ""
    @Attribute var rank: Int64 = 0

    init() {}

    convenience init(label: String, count: Int64, value: String, rank: Int64) {
        self.init()
        self.label = label
        self.count = count
        self.value = value
        self.rank = rank
    }
}

/// A fetch sorted by one integer attribute orders by one radix sort of (value, primary key)
/// when both fit in 64 bits, else by two; both must give the order of a comparison sort, ties
/// by primary key (issue 12).
@Suite struct IntegerSortKeyTests {
    func check(_ salaries: [Int64]) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        for (i, salary) in salaries.enumerated() {
            context.insert(Employee(name: "e\(i)", designation: "d", salary: salary))
        }
        try context.save()
        let keyed = salaries.enumerated().map { (salary: $0.element, pk: UInt64($0.offset + 1)) }
        for ascending in [true, false] {
            let expected = keyed.sorted {
                $0.salary != $1.salary
                    ? (ascending ? $0.salary < $1.salary : $0.salary > $1.salary) : $0.pk < $1.pk
            }.map(\.pk)
            let fetched = try ModelContext(container).fetch(
                FetchDescriptor<Employee>(
                    sortBy: [SortDescriptor(\.salary, order: ascending ? .forward : .reverse)]))
            #expect(fetched.map(\.persistentModelID.primaryKey) == expected, "\(salaries)")
        }
        try container.close()
    }

    @Test func tiesAndNegativeValuesInOneKey() throws {
        var rng = SystemRandomNumberGenerator()
        let salaries = (0..<300).map { _ in Int64.random(in: -50...50, using: &rng) }
        try check(salaries)
    }

    @Test func valuesTooWideForOneKey() throws {
        try check(
            [.max, .min, 0, -1, 1, .max, .min, .max - 1, .min + 1]
                + (0..<100).map { Int64($0 % 7) * (.max / 8) })
    }

    @Test func oneValueAndOneObject() throws {
        try check([7])
        try check(Array(repeating: -3, count: 80))
    }
}
