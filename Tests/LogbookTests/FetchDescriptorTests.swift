import Foundation
import Logbook
import TestSupport
import Testing

/// Sorting, slicing, counting and predicates of `FetchDescriptor`.
@MainActor @Suite struct FetchDescriptorTests {
    /// name, designation, salary — with ties on designation and salary.
    static let rows: [(String, String, Int64)] = [
        ("e1", "Engineer", 300), ("m1", "Manager", 500), ("e2", "Engineer", 100),
        ("d1", "Designer", 300),
        ("e3", "Engineer", 300), ("m2", "Manager", 100), ("d2", "Designer", 200),
        ("e4", "Engineer", 100),
    ]

    private func seeded(_ fixture: LogbookFixture) throws -> ModelContainer {
        let container = try fixture.open()
        for (name, designation, salary) in Self.rows {
            container.mainContext.insert(
                Employee(name: name, designation: designation, salary: salary))
        }
        try container.mainContext.save()
        return container
    }

    @Test func mixedAscendingAndDescendingKeysWithTiesInIdentifierOrder() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try seeded(fixture))
        let sorted = try context.fetch(
            FetchDescriptor<Employee>(sortBy: [
                SortDescriptor(\.designation), SortDescriptor(\.salary, order: .reverse),
            ]))
        #expect(sorted.map(\.name) == ["d1", "d2", "e1", "e3", "e2", "e4", "m1", "m2"])
        let bySalaryOnly = try context.fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary)]))
        #expect(bySalaryOnly.map(\.name) == ["e2", "m2", "e4", "d2", "e1", "d1", "e3", "m1"])
    }

    @Test func sortingIncludesPendingObjectsInPlace() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = container.mainContext
        context.insert(Employee(name: "x", designation: "Engineer", salary: 200))
        let engineers = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary, order: .reverse)]))
        #expect(engineers.map(\.name) == ["e1", "e3", "x", "e2", "e4"])
    }

    @Test func limitAndOffsetAtTheEdges() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try seeded(fixture))
        func names(limit: Int?, offset: Int?) throws -> [String] {
            var descriptor = FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])
            descriptor.fetchLimit = limit
            descriptor.fetchOffset = offset
            return try context.fetch(descriptor).map(\.name)
        }
        #expect(try names(limit: 2, offset: nil) == ["d1", "d2"])
        #expect(try names(limit: 2, offset: 6) == ["m1", "m2"])
        #expect(try names(limit: 5, offset: 7) == ["m2"])
        #expect(try names(limit: nil, offset: 8) == [])
        #expect(try names(limit: 3, offset: 100) == [])
        #expect(try names(limit: 0, offset: 0) == [])
        #expect(try names(limit: 100, offset: 0).count == 8)
        #expect(try names(limit: nil, offset: -1).count == 8)
    }

    @Test func fetchCountBuildsNoObjectsAndCountsPending() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try seeded(fixture)
        let context = ModelContext(container)
        #expect(
            try context.fetchCount(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }))
                == 4)
        let someID = try #require(try context.fetchIdentifiers(FetchDescriptor<Employee>()).first)
        #expect(
            context.registeredModel(for: someID, as: Employee.self) == nil, "no object was built")
        context.insert(Employee(name: "new", designation: "Engineer"))
        #expect(
            try context.fetchCount(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }))
                == 5)
    }

    @Test func fetchIdentifiersInOrder() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try seeded(fixture))
        var descriptor = FetchDescriptor<Employee>(
            predicate: #Predicate { $0.salary >= 300 },
            sortBy: [SortDescriptor(\.salary, order: .reverse)])
        descriptor.fetchLimit = 2
        let ids = try context.fetchIdentifiers(descriptor)
        let objects = try ids.map { try #require(try context.model(for: $0, as: Employee.self)) }
        #expect(objects.map(\.name) == ["m1", "e1"])
    }

    @Test func compoundPredicates() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try seeded(fixture))
        let sort = [SortDescriptor(\Employee.name)]
        let a = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" && $0.salary > 100 },
                sortBy: sort))
        #expect(a.map(\.name) == ["e1", "e3"])
        let b = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Manager" || $0.salary <= 100 },
                sortBy: sort))
        #expect(b.map(\.name) == ["e2", "e4", "m1", "m2"])
        let c = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { !($0.designation != "Designer") }, sortBy: sort))
        #expect(c.map(\.name) == ["d1", "d2"])
        let threshold: Int64 = 200
        let d = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.salary < threshold }, sortBy: sort)
        )
        #expect(d.map(\.name) == ["e2", "e4", "m2"])
    }

    @Test func predicatesBeyondAttributeComparisonsStillWork() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try seeded(fixture))
        let sort = [SortDescriptor(\Employee.name)]
        let starts = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.name.starts(with: "m") }, sortBy: sort))
        #expect(starts.map(\.name) == ["m1", "m2"])
        let contains = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation.contains("sign") }, sortBy: sort))
        #expect(contains.map(\.name) == ["d1", "d2"])
    }

    @Test func sortingByAKeyPathThatIsNotAnAttributeFallsBackToObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try seeded(fixture))
        var descriptor = FetchDescriptor<Employee>(sortBy: [
            SortDescriptor(\.name.count), SortDescriptor(\.name, order: .reverse),
        ])
        descriptor.fetchLimit = 3
        #expect(try context.fetch(descriptor).map(\.name) == ["m2", "m1", "e4"])
    }

    @Test func optionalsWithNilInPredicatesAndSorts() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Contact.self])
        let context = container.mainContext
        context.insert(Contact(email: "a", nickname: "Zed", age: 30))
        context.insert(Contact(email: "b", nickname: nil, age: nil))
        context.insert(Contact(email: "c", nickname: "Amy", age: 20))
        context.insert(Contact(email: "d", nickname: nil, age: 40))
        try context.save()
        let fresh = ModelContext(container)
        let withoutNickname = try fresh.fetch(
            FetchDescriptor<Contact>(predicate: #Predicate { $0.nickname == nil }))
        #expect(withoutNickname.map(\.email) == ["b", "d"])
        let withNickname = try fresh.fetch(
            FetchDescriptor<Contact>(predicate: #Predicate { $0.nickname != nil }))
        #expect(withNickname.map(\.email) == ["a", "c"])
        let amy = try fresh.fetch(
            FetchDescriptor<Contact>(predicate: #Predicate { $0.nickname == "Amy" }))
        #expect(amy.map(\.email) == ["c"])
        let byNickname = try fresh.fetch(
            FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.nickname)]))
        #expect(byNickname.map(\.email) == ["b", "d", "c", "a"], "nil sorts first")
        let byAgeDescending = try fresh.fetch(
            FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.age, order: .reverse)]))
        #expect(byAgeDescending.map(\.email) == ["d", "a", "c", "b"])
        let older = try fresh.fetch(entity: "Contact", where: "age > 25", sortBy: "email")
        #expect(older.compactMap { $0["email"] as? String } == ["a", "d"], "nil is not greater")
    }

    @Test func everyAttributeTypeRoundTrips() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        let token = UUID()
        do {
            let container = try fixture.open([Contact.self])
            let c = Contact(email: "ann@example.com", nickname: "Ann", age: -7)
            c.score = 2.5
            c.active = false
            c.birthday = date
            c.avatar = Data([0, 1, 2, 255])
            c.token = token
            container.mainContext.insert(c)
            container.mainContext.insert(Contact(email: "empty@example.com"))
            try container.mainContext.save()
            try container.close()
        }
        let container = try fixture.open([Contact.self])
        let all = try container.mainContext.fetch(
            FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.email)]))
        let c = all[0]
        #expect(c.nickname == "Ann" && c.age == -7 && c.score == 2.5 && c.active == false)
        #expect(c.birthday == date && c.avatar == Data([0, 1, 2, 255]) && c.token == token)
        let e = all[1]
        #expect(
            e.nickname == nil && e.age == nil && e.birthday == nil && e.avatar == nil
                && e.token == nil && e.active)
    }
}
